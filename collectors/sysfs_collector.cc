// The "sysfs" collector: /sys/class/infiniband -> rxe_device_*, rxe_port_*
// families (docs/DESIGN.md "Metric names"), modelled on node_exporter's
// collector/infiniband_linux.go. I/O is in sysfs_reader, parsing in sysfs_parse.
#include <algorithm>
#include <exception>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "collectors/factory.h"
#include "collectors/hw_counters.h"
#include "collectors/metric_builder.h"
#include "collectors/sysfs_reader.h"
#include "common/log.h"

namespace rxe::collectors {
namespace {

using prometheus::MetricType;

// counters/ (IB PMA PortCounters/PortCountersExtended) with curated names.
struct PmaCounter {
  std::string_view file;
  std::string_view metric;
  std::string_view help;
  // PortXmitData/PortRcvData count 32-bit words ("octets divided by 4" in the
  // IBA spec, and the kernel passes the raw PMA value through), so bytes = 4 x
  // the file's value. procfs/node_exporter apply the same x4.
  bool words = false;
};

constexpr PmaCounter kPmaCounters[] = {
    {"port_xmit_data", "rxe_port_data_transmitted_bytes_total",
     "Bytes transmitted by the port according to the hardware PMA (sysfs counters/port_xmit_data, "
     "which counts 4-byte words; multiplied by 4).", true},
    {"port_rcv_data", "rxe_port_data_received_bytes_total",
     "Bytes received by the port according to the hardware PMA (sysfs counters/port_rcv_data, "
     "which counts 4-byte words; multiplied by 4).", true},
    {"port_xmit_packets", "rxe_port_packets_transmitted_total",
     "Packets transmitted by the port according to the hardware PMA (sysfs "
     "counters/port_xmit_packets).", false},
    {"port_rcv_packets", "rxe_port_packets_received_total",
     "Packets received by the port according to the hardware PMA (sysfs counters/port_rcv_packets).",
     false},
};

constexpr std::string_view kPmaGenericMetric = "rxe_port_pma_stat_total";
constexpr std::string_view kPmaGenericHelp =
    "Other hardware PMA port counters (errors, discards, link events) from sysfs "
    "ports/N/counters/<counter>; absent on Soft-RoCE before its PMA support.";

std::string Label(const std::optional<std::string>& v) { return v ? *v : std::string(); }

class SysfsCollector : public Collector {
 public:
  SysfsCollector(const config::CollectorsConfig& cfg, const std::string& root)
      : cfg_(cfg), reader_(root) {}

  std::string_view Name() const override { return "sysfs"; }

  Status Collect(ScrapeContext& ctx, std::vector<prometheus::MetricFamily>& out) override {
    try {
      return CollectOrThrow(ctx, out);
    } catch (const std::exception& e) {  // bad_alloc, regex_error from the device matcher
      return Error::Make(ErrorCode::kInternal, std::string("sysfs collector: ") + e.what());
    }
  }

 private:
  Status CollectOrThrow(ScrapeContext& ctx, std::vector<prometheus::MetricFamily>& out) {
    auto names = reader_.ListDevices();
    if (!names.ok()) {
      if (names.error().sys_errno == ENOENT || names.error().sys_errno == ENOTDIR) {
        return Error::Make(ErrorCode::kNoData, "no " + reader_.class_dir());
      }
      return names.error();
    }
    if (names->empty()) return Error::Make(ErrorCode::kNoData, "no devices in " + reader_.class_dir());

    SysfsReadOptions options;
    options.max_gids = cfg_.max_gids_per_port;
    options.hw_counters = cfg_.hw_counter_source != config::HwCounterSource::kNetlink;
    options.skip_hw_counters = &ctx.hw_counters_exported;

    std::vector<DeviceInfo> devices;
    std::vector<Error> errors;
    for (const std::string& name : *names) {
      if (!ctx.devices.Matches(name)) continue;
      auto dev = reader_.ReadDevice(name, options);
      if (!dev.ok()) {
        if (dev.error().sys_errno != ENOENT) errors.push_back(dev.error());  // ENOENT: just removed
        continue;
      }
      for (Error& e : dev->errors) errors.push_back(std::move(e));
      devices.push_back(std::move(*dev));
    }
    Emit(devices, ctx, out);

    if (errors.empty()) return Status::Ok();
    for (const Error& e : errors) log::Debug("sysfs attribute failed", {{"err", e.message}});
    Error first = errors.front();
    first.message = std::to_string(errors.size()) + " sysfs read(s) failed, first: " + first.message;
    return first;
  }

  void Emit(const std::vector<DeviceInfo>& devices, ScrapeContext& ctx,
            std::vector<prometheus::MetricFamily>& out) const {
    FamilyBuilder info("rxe_device_info",
                       "RDMA device facts from sysfs class/infiniband/<device>: driver (device/driver "
                       "link, rxe for Soft-RoCE), node_guid, sys_image_guid, fw_ver (empty on rxe), "
                       "node_type. Always 1.",
                       MetricType::Gauge);
    FamilyBuilder port_info("rxe_port_info",
                            "RDMA port facts: link_layer (ports/N/link_layer) and the netdev it runs "
                            "on (rxe parent, else gid_attrs/ndevs). Always 1.",
                            MetricType::Gauge);
    FamilyBuilder state("rxe_port_state",
                        "IB port state number from ports/N/state: 1 DOWN, 2 INIT, 3 ARMED, 4 ACTIVE, "
                        "5 ACTIVE_DEFER. rxe is ACTIVE iff its netdev is running with carrier.",
                        MetricType::Gauge);
    FamilyBuilder phys("rxe_port_physical_state",
                       "IB physical port state number from ports/N/phys_state: 1 Sleep, 2 Polling, "
                       "3 Disabled, 4 PortConfigurationTraining, 5 LinkUp, 6 LinkErrorRecovery, "
                       "7 Phy Test.",
                       MetricType::Gauge);
    FamilyBuilder active("rxe_port_active",
                         "1 if ports/N/state is 4: ACTIVE (the port can carry RDMA traffic), else 0.",
                         MetricType::Gauge);
    FamilyBuilder rate("rxe_port_rate_bytes_per_second",
                       "Port rate from ports/N/rate in bytes per second; for RoCE it is derived from "
                       "the netdev's ethtool speed (unknown speed shows as 2.5 Gb/sec).",
                       MetricType::Gauge);
    FamilyBuilder gids("rxe_port_gid_info",
                       "Valid GID table entries (ports/N/gids/<index> with gid_attrs/types and "
                       "gid_attrs/ndevs); at most collectors.max_gids_per_port per port. Always 1.",
                       MetricType::Gauge);
    std::vector<FamilyBuilder> pma;
    for (const PmaCounter& c : kPmaCounters) {
      pma.emplace_back(std::string(c.metric), std::string(c.help), MetricType::Counter);
    }
    FamilyBuilder pma_other(std::string(kPmaGenericMetric), std::string(kPmaGenericHelp),
                            MetricType::Counter);
    std::vector<PortHwCounters> hw;

    for (const DeviceInfo& d : devices) {
      info.Add({{"device", d.name},
                {"driver", d.driver},
                {"fw_version", Label(d.fw_ver)},
                {"node_guid", Label(d.node_guid)},
                {"node_type", d.node_type ? d.node_type->name : std::string()},
                {"sys_image_guid", Label(d.sys_image_guid)}},
               1);
      for (const PortInfo& p : d.ports) {
        const std::string port = std::to_string(p.port);
        const LabelPairs dp = {{"device", d.name}, {"port", port}};
        const std::optional<std::string> netdev = PortNetdev(d, p);
        if (netdev) ctx.port_netdevs.push_back({{d.name, p.port}, *netdev});
        port_info.Add({{"device", d.name},
                       {"link_layer", Label(p.link_layer)},
                       {"netdev", Label(netdev)},
                       {"port", port}},
                      1);
        if (p.state) {
          state.Add(dp, p.state->number);
          active.Add(dp, p.state->number == kPortStateActive ? 1 : 0);
        }
        if (p.phys_state) phys.Add(dp, p.phys_state->number);
        if (p.rate_bytes_per_second) rate.Add(dp, static_cast<double>(*p.rate_bytes_per_second));
        const size_t max_gids = static_cast<size_t>(std::max(cfg_.max_gids_per_port, 0));
        for (size_t i = 0; i < p.gids.size() && i < max_gids; ++i) {
          const GidEntry& g = p.gids[i];
          gids.Add({{"device", d.name},
                    {"gid", g.gid.text},
                    {"gid_type", std::string(GidTypeName(g.type))},
                    {"index", std::to_string(g.index)},
                    {"netdev", Label(g.netdev)},
                    {"port", port}},
                   1);
        }
        AddPmaCounters(d.name, port, p, pma, pma_other);
        if (p.hw_counters_read) hw.push_back(PortHwCounters{d.name, p.port, p.hw_counters});
      }
    }
    for (FamilyBuilder* f : {&info, &port_info, &state, &phys, &active, &rate, &gids}) {
      f->AppendTo(out);
    }
    for (FamilyBuilder& f : pma) f.AppendTo(out);
    pma_other.AppendTo(out);
    AppendHwCounterFamilies(hw, out);
  }

  static void AddPmaCounters(const std::string& device, const std::string& port, const PortInfo& p,
                             std::vector<FamilyBuilder>& pma, FamilyBuilder& other) {
    for (const auto& [name, value] : p.counters) {
      bool curated = false;
      for (size_t i = 0; i < std::size(kPmaCounters); ++i) {
        if (kPmaCounters[i].file != name) continue;
        // x4: see PmaCounter::words (the value is in 4-byte words, not bytes).
        const double v = static_cast<double>(value) * (kPmaCounters[i].words ? 4.0 : 1.0);
        pma[i].Add({{"device", device}, {"port", port}}, v);
        curated = true;
        break;
      }
      if (!curated) {
        other.Add({{"counter", name}, {"device", device}, {"port", port}},
                  static_cast<double>(value));
      }
    }
  }

  config::CollectorsConfig cfg_;
  SysfsReader reader_;
};

}  // namespace

std::unique_ptr<Collector> NewSysfsCollector(const config::CollectorsConfig& cfg,
                                             const std::string& sysfs_root) {
  return std::make_unique<SysfsCollector>(cfg, sysfs_root);
}

}  // namespace rxe::collectors
