#include "collectors/rdma_netlink_collector.h"

#include <cerrno>
#include <mutex>
#include <optional>

#include "collectors/factory.h"
#include "collectors/hw_counters.h"
#include "collectors/rdma_netlink_metrics.h"
#include "common/log.h"

namespace rxe::collectors {
namespace {

// Kernel answers that mean "nothing to report here", not a failure: the
// device went away between the dump and the doit (ENODEV/ENOENT), or the
// device has no hw counters (EINVAL/EOPNOTSUPP from stat_get_doit_default_counter).
bool IsBenignKernelError(const Error& e) {
  return e.sys_errno == ENODEV || e.sys_errno == ENOENT || e.sys_errno == EINVAL ||
         e.sys_errno == EOPNOTSUPP;
}

class RdmaNetlinkCollector final : public Collector {
 public:
  RdmaNetlinkCollector(const config::CollectorsConfig& cfg, NldevSourceFactory factory)
      : hw_counters_(cfg.hw_counter_source != config::HwCounterSource::kSysfs),
        factory_(std::move(factory)) {}

  std::string_view Name() const override { return "rdma_netlink"; }

  Status Collect(ScrapeContext& ctx, std::vector<prometheus::MetricFamily>& out) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!source_) {
      auto made = factory_();
      if (!made.ok()) return made.error();
      source_ = std::move(*made);
    }
    Status st = CollectFrom(*source_, ctx, out);
    if (source_->broken()) source_.reset();  // reconnect on the next scrape
    return st;
  }

 private:
  // Appends what could be read. Returns the first non-benign error (after
  // appending the rest), or a transport error right away.
  Status CollectFrom(rdma::NldevSource& src, ScrapeContext& ctx,
                     std::vector<prometheus::MetricFamily>& out) {
    auto devices = src.ListDevices();
    if (!devices.ok()) return devices.error();

    std::vector<PortHwCounters> ports;
    std::vector<rdma::RdmaResSummary> resources;
    std::optional<Error> first_error;
    auto note = [&](const Error& e) -> bool {  // true: abort the scrape
      if (src.broken()) return true;
      if (IsBenignKernelError(e)) {
        log::Debug("rdma netlink: skipped", {{"err", e.message}});
      } else if (!first_error) {
        first_error = e;
      }
      return false;
    };

    for (const rdma::RdmaDevice& dev : *devices) {
      if (!ctx.devices.Matches(dev.name)) continue;
      for (uint32_t port = 1; hw_counters_ && port <= dev.port_count; ++port) {
        auto stats = src.GetHwStats(dev.index, port);
        if (!stats.ok()) {
          if (note(stats.error())) return stats.error();
          continue;
        }
        if (stats->counters.empty()) continue;  // leave the port to the sysfs fallback
        ctx.hw_counters_exported.insert({dev.name, static_cast<int>(port)});
        stats->dev_name = dev.name;
        ports.push_back(rdma::ToPortHwCounters(std::move(*stats)));
      }
      auto res = src.GetResources(dev.index);
      if (!res.ok()) {
        if (note(res.error())) return res.error();
        continue;
      }
      res->dev_name = dev.name;
      resources.push_back(std::move(*res));
    }
    AppendHwCounterFamilies(ports, out);
    rdma::AppendResourceFamilies(resources, out);
    if (first_error) return *first_error;
    return Status::Ok();
  }

  const bool hw_counters_;
  NldevSourceFactory factory_;
  std::mutex mu_;
  std::unique_ptr<rdma::NldevSource> source_;
};

}  // namespace

std::unique_ptr<Collector> NewRdmaNetlinkCollector(const config::CollectorsConfig& cfg,
                                                   NldevSourceFactory factory) {
  return std::make_unique<RdmaNetlinkCollector>(cfg, std::move(factory));
}

std::unique_ptr<Collector> NewRdmaNetlinkCollector(const config::CollectorsConfig& cfg) {
  return NewRdmaNetlinkCollector(cfg, []() -> Result<std::unique_ptr<rdma::NldevSource>> {
    auto client = rdma::RdmaNetlinkClient::Connect();
    if (!client.ok()) return client.error();
    return std::unique_ptr<rdma::NldevSource>(std::move(*client));
  });
}

}  // namespace rxe::collectors
