#include "exporter/scrape.h"

#include <prometheus/text_serializer.h>

#include <chrono>
#include <exception>
#include <unordered_map>

#include "collectors/factory.h"
#include "collectors/metric_builder.h"
#include "common/log.h"
#include "doctor/doctor_collector.h"

namespace rxe::exporter {

using collectors::FamilyBuilder;

CollectorSet::CollectorSet(std::vector<std::unique_ptr<collectors::Collector>> collectors,
                           collectors::DeviceMatcher devices)
    : collectors_(std::move(collectors)), devices_(std::move(devices)) {}

Result<std::unique_ptr<CollectorSet>> CollectorSet::Build(const config::Config& cfg,
                                                          const std::string& sysfs_root,
                                                          const std::string& procfs_root) {
  try {
    collectors::DeviceMatcher devices(cfg.devices.include, cfg.devices.exclude);
    auto list = collectors::MakeCollectors(cfg.collectors, sysfs_root, procfs_root);
    list.push_back(doctor::NewDoctorCollector(sysfs_root, procfs_root));
    return std::make_unique<CollectorSet>(std::move(list), std::move(devices));
  } catch (const std::exception& e) {
    return Error::Make(ErrorCode::kInvalidArgument,
                       std::string("building collectors: ") + e.what());
  }
}

void CollectorSet::Collect(std::vector<prometheus::MetricFamily>& out) {
  FamilyBuilder success("rxe_exporter_scrape_collector_success",
                        "Whether a collector succeeded (1) or failed (0) in this scrape; a source "
                        "absent on this host counts as success.",
                        prometheus::MetricType::Gauge);
  FamilyBuilder duration("rxe_exporter_scrape_collector_duration_seconds",
                         "Time a collector took in this scrape.", prometheus::MetricType::Gauge);
  collectors::ScrapeContext ctx;
  ctx.devices = devices_;
  for (auto& c : collectors_) {
    const std::string name(c->Name());
    const auto start = std::chrono::steady_clock::now();
    bool ok = false;
    try {
      Status st = c->Collect(ctx, out);
      if (st.ok()) {
        ok = true;
      } else if (st.error().code == ErrorCode::kNoData) {
        ok = true;
        log::Debug("collector has no data", {{"collector", name}, {"reason", st.error().message}});
      } else {
        log::Error("collector failed", {{"collector", name}, {"err", st.error().message}});
      }
    } catch (const std::exception& e) {
      log::Error("collector threw", {{"collector", name}, {"err", e.what()}});
    } catch (...) {
      log::Error("collector threw", {{"collector", name}, {"err", "unknown exception"}});
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    success.Add({{"collector", name}}, ok ? 1 : 0);
    duration.Add({{"collector", name}}, took.count());
  }
  success.AppendTo(out);
  duration.AppendTo(out);
}

void Scraper::Swap(std::unique_ptr<CollectorSet> set) {
  std::unique_ptr<CollectorSet> old;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::exchange(set_, std::move(set));
  }
  // `old` (and its netlink sockets) is destroyed outside the lock.
}

void Scraper::Collect(std::vector<prometheus::MetricFamily>& out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (set_) set_->Collect(out);
}

std::vector<prometheus::MetricFamily> MergeFamilies(std::vector<prometheus::MetricFamily> in) {
  std::vector<prometheus::MetricFamily> out;
  out.reserve(in.size());
  std::unordered_map<std::string, size_t> index;
  for (auto& f : in) {
    auto [it, inserted] = index.emplace(f.name, out.size());
    if (inserted) {
      out.push_back(std::move(f));
      continue;
    }
    auto& first = out[it->second];
    if (first.type != f.type) {
      log::Error("dropping metric family with conflicting type", {{"name", f.name}});
      continue;
    }
    for (auto& m : f.metric) first.metric.push_back(std::move(m));
  }
  return out;
}

std::string SerializeText(const std::vector<prometheus::MetricFamily>& families) {
  return prometheus::TextSerializer().Serialize(families);
}

}  // namespace rxe::exporter
