// The scrape pipeline: the configured collectors run sequentially with one
// ScrapeContext, each timed and reported as
// rxe_exporter_scrape_collector_{success,duration_seconds}{collector}.
#pragma once

#include <prometheus/metric_family.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "collectors/collector.h"
#include "common/result.h"
#include "config/model.h"

namespace rxe::exporter {

/// Collectors and device filter built once per config.
class CollectorSet {
 public:
  CollectorSet(std::vector<std::unique_ptr<collectors::Collector>> collectors,
               collectors::DeviceMatcher devices);
  /// collectors::MakeCollectors(cfg.collectors, sysfs_root, procfs_root), then
  /// the doctor collector (doctor::NewDoctorCollector), plus cfg.devices.
  /// Construction errors (exceptions from a collector, a bad regex) become errors.
  static Result<std::unique_ptr<CollectorSet>> Build(const config::Config& cfg,
                                                     const std::string& sysfs_root,
                                                     const std::string& procfs_root = "/proc");

  /// Runs every collector; a failing or throwing collector reports success 0
  /// and the others still contribute. Appends the self-metrics families.
  void Collect(std::vector<prometheus::MetricFamily>& out);

 private:
  std::vector<std::unique_ptr<collectors::Collector>> collectors_;
  collectors::DeviceMatcher devices_;
};

/// Holds the current CollectorSet; scrapes are serialized by a mutex (the
/// collectors keep netlink sockets and are not re-entrant), reloads swap the
/// set between scrapes.
class Scraper {
 public:
  explicit Scraper(std::unique_ptr<CollectorSet> set) : set_(std::move(set)) {}
  void Swap(std::unique_ptr<CollectorSet> set);
  void Collect(std::vector<prometheus::MetricFamily>& out);

 private:
  std::mutex mu_;
  std::unique_ptr<CollectorSet> set_;
};

/// Merges families with the same name (several collectors may emit one name,
/// e.g. hw counters from netlink for one port and from sysfs for another)
/// so that each name has one HELP/TYPE block. A later family whose type
/// differs from the first one of that name is dropped (and logged).
std::vector<prometheus::MetricFamily> MergeFamilies(std::vector<prometheus::MetricFamily> in);

/// Text exposition format 0.0.4.
std::string SerializeText(const std::vector<prometheus::MetricFamily>& families);
inline constexpr const char* kTextContentType = "text/plain; version=0.0.4; charset=utf-8";

}  // namespace rxe::exporter
