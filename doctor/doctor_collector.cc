// rxe_doctor_check_status: the cheap doctor checks as metrics, so dashboards
// and alerts see a misconfiguration (0 pass, 1 warn, 2 fail). Facts are
// re-gathered at most once per `refresh` (60 s): the checks read sysfs and
// getrlimit only, and modules.dep only while rdma_rxe is not loaded. A change
// of the RDMA devices or of a port's state re-gathers them at once (a deleted
// device must not keep passing checks for a minute).
#include "doctor/doctor_collector.h"

#include <algorithm>
#include <mutex>

#include "collectors/metric_builder.h"
#include "collectors/sysfs_file.h"
#include "doctor/doctor_gather.h"

namespace rxe::doctor {
namespace {

using collectors::FamilyBuilder;
using collectors::LabelPairs;
using collectors::ScrapeContext;

class DoctorCollector : public collectors::Collector {
 public:
  explicit DoctorCollector(DoctorCollectorOptions o) : opts_(std::move(o)) {
    if (opts_.memlock_need.concurrent_bytes == 0) {
      opts_.memlock_need = MemlockNeedFor(config::Config{});
      opts_.memlock_need.detail = "default config: " + opts_.memlock_need.detail;
    }
  }
  std::string_view Name() const override { return "doctor"; }

  Status Collect(ScrapeContext& ctx, std::vector<prometheus::MetricFamily>& out) override {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    std::string fingerprint = DeviceFingerprint();
    if (!have_ || now - last_ >= opts_.refresh || fingerprint != fingerprint_) {
      results_ = Evaluate();
      last_ = now;
      have_ = true;
      fingerprint_ = std::move(fingerprint);
    }
    FamilyBuilder status(
        "rxe_doctor_check_status",
        "Result of a doctor check (rxe_exporter doctor): 0 pass, 1 warn, 2 fail. "
        "Costly checks (softirq under load, peers) only run in the doctor command.",
        prometheus::MetricType::Gauge);
    for (const auto& r : results_) {
      if (r.status == CheckStatus::kSkip) continue;
      // Per-device checks honour devices.include/exclude like every collector.
      if (!r.device.empty() && !ctx.devices.Matches(r.device)) continue;
      LabelPairs labels{{"check", r.check}};
      if (!r.device.empty()) {
        labels.push_back({"device", r.device});
        labels.push_back({"port", std::to_string(r.port)});
      }
      status.Add(labels, static_cast<double>(static_cast<int>(r.status)));
    }
    status.AppendTo(out);
    return Status::Ok();
  }

 private:
  std::vector<CheckResult> Evaluate() const {
    GatherPaths paths;
    paths.sysfs_root = opts_.sysfs_root;
    paths.procfs_root = opts_.procfs_root;
    paths.modules_root = opts_.modules_root;
    Facts facts = GatherLocalFacts(paths);
    facts.memlock_need = opts_.memlock_need;
    facts.mtu_requests = opts_.mtu_requests;
    std::vector<CheckResult> results = RunChecks(facts);
    // Only cheap checks are gathered here; RunChecks adds no softirq/peer results.
    return results;
  }

  /// "dev port=state ..." of every RDMA device (one listing, one small read per port):
  /// what makes the cached results stale before `refresh`.
  std::string DeviceFingerprint() const {
    std::string fp;
    auto root = collectors::SysfsDir::Open(opts_.sysfs_root + "/class/infiniband");
    if (!root.ok()) return fp;
    auto devs = root->List();
    if (!devs.ok()) return fp;
    std::vector<std::string> names;
    for (const auto& e : *devs) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) {
      fp += name;
      auto ports = root->OpenSub(name + "/ports");
      auto list = ports.ok() ? ports->List() : Result<std::vector<collectors::DirEntry>>(ports.error());
      if (list.ok()) {
        std::vector<std::string> nums;
        for (const auto& p : *list) nums.push_back(p.name);
        std::sort(nums.begin(), nums.end());
        for (const auto& n : nums) {
          auto state = ports->ReadOptional(n + "/state");
          fp += " " + n + "=" + (state.ok() && *state ? **state : std::string("?"));
        }
      }
      fp += '\n';
    }
    return fp;
  }

  DoctorCollectorOptions opts_;
  std::mutex mu_;
  std::string fingerprint_;
  bool have_ = false;
  std::chrono::steady_clock::time_point last_{};
  std::vector<CheckResult> results_;
};

}  // namespace

std::unique_ptr<collectors::Collector> NewDoctorCollector(DoctorCollectorOptions options) {
  return std::make_unique<DoctorCollector>(std::move(options));
}

std::unique_ptr<collectors::Collector> NewDoctorCollector(const std::string& sysfs_root,
                                                          const std::string& procfs_root) {
  DoctorCollectorOptions o;
  o.sysfs_root = sysfs_root;
  o.procfs_root = procfs_root;
  return NewDoctorCollector(std::move(o));
}

}  // namespace rxe::doctor
