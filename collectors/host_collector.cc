// Host cost of Soft-RoCE: rxe's transport runs in softirq context, so the
// CPU — typically one hot core — is the bottleneck. Exports per-CPU softirq
// time, NET_RX/NET_TX softirq counts, and the busiest core's softirq share
// since the previous scrape.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>

#include "collectors/factory.h"
#include "collectors/host_parse.h"
#include "collectors/metric_builder.h"

namespace rxe::collectors {
namespace {

Result<std::string> ReadAll(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::FromErrno(errno ? errno : ENOENT, "open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class HostCollector : public Collector {
 public:
  explicit HostCollector(std::string procfs_root) : root_(std::move(procfs_root)) {}
  std::string_view Name() const override { return "host"; }

  Status Collect(ScrapeContext&, std::vector<prometheus::MetricFamily>& out) override {
    auto stat_text = ReadAll(root_ + "/stat");
    if (!stat_text.ok()) return stat_text.error();
    auto cpus = ParseProcStat(*stat_text);
    if (!cpus) return Error::Make(ErrorCode::kInvalidArgument, "parse " + root_ + "/stat");
    const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));

    FamilyBuilder softirq_time("rxe_host_softirq_seconds_total",
                               "CPU time spent in softirq context per CPU (/proc/stat); Soft-RoCE "
                               "runs its transport there.",
                               prometheus::MetricType::Counter);
    for (const auto& c : *cpus) {
      softirq_time.Add({{"cpu", std::to_string(c.cpu)}}, static_cast<double>(c.softirq_ticks) / hz);
    }
    softirq_time.AppendTo(out);

    if (auto text = ReadAll(root_ + "/softirqs"); text.ok()) {
      if (auto table = ParseSoftirqs(*text)) {
        FamilyBuilder counts("rxe_host_softirqs_total",
                             "NET_RX/NET_TX softirqs handled per CPU (/proc/softirqs).",
                             prometheus::MetricType::Counter);
        for (const char* name : {"NET_RX", "NET_TX"}) {
          auto it = table->find(name);
          if (it == table->end()) continue;
          for (size_t cpu = 0; cpu < it->second.size(); ++cpu) {
            counts.Add({{"cpu", std::to_string(cpu)}, {"softirq", name}},
                       static_cast<double>(it->second[cpu]));
          }
        }
        counts.AppendTo(out);
      }
    }

    std::lock_guard<std::mutex> lock(mu_);
    if (auto busiest = BusiestSoftirqCpu(previous_, *cpus)) {
      FamilyBuilder ratio("rxe_host_softirq_busiest_cpu_ratio",
                          "Share of time the busiest CPU spent in softirq since the previous "
                          "scrape (0..1); near 1 means a hot core limits Soft-RoCE.",
                          prometheus::MetricType::Gauge);
      ratio.Add({{"cpu", std::to_string(busiest->cpu)}}, busiest->ratio);
      ratio.AppendTo(out);
    }
    previous_ = std::move(*cpus);
    return Status::Ok();
  }

 private:
  std::string root_;
  std::mutex mu_;
  std::vector<CpuTimes> previous_;
};

}  // namespace

std::unique_ptr<Collector> NewHostCollector(const config::CollectorsConfig&,
                                            const std::string& procfs_root) {
  return std::make_unique<HostCollector>(procfs_root);
}

}  // namespace rxe::collectors
