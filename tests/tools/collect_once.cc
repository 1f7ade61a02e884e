// Runs the collectors (collectors::MakeCollectors plus the doctor collector,
// the exporter's scrape order) and prints the Prometheus exposition text of the last round on
// stdout; per-collector status and timing go to stderr. Used by lab cases.
//
//   collect_once [--sysfs-root DIR] [--hw-counter-source auto|netlink|sysfs]
//                [--only NAME[,NAME...]] [--repeat N]
//
// --only keeps the listed collectors (rdma_netlink, sysfs, rtnetlink) in
// scrape order. --repeat N scrapes N times (reusing the collectors, as the
// exporter does) and reports mean/min/p50/p90/max duration per collector.
// Exit status: 1 if any collector failed (kNoData counts as success).
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "collectors/factory.h"
#include "doctor/doctor_collector.h"

namespace {

struct Timing {
  std::vector<double> us;
  void Add(double v) { us.push_back(v); }
  double Quantile(double q) {
    std::sort(us.begin(), us.end());
    return us[static_cast<size_t>(q * static_cast<double>(us.size() - 1))];
  }
  double Mean() const {
    double sum = 0;
    for (double v : us) sum += v;
    return sum / static_cast<double>(us.size());
  }
};

int Usage(const char* argv0) {
  std::fprintf(stderr,
               "usage: %s [--sysfs-root DIR] [--hw-counter-source auto|netlink|sysfs] "
               "[--only NAME,...] [--repeat N]\n",
               argv0);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using rxe::config::HwCounterSource;
  std::string sysfs_root = "/sys";
  std::string only;
  int repeat = 1;
  rxe::config::CollectorsConfig cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) return Usage(argv[0]);
    const std::string val = argv[++i];
    if (arg == "--sysfs-root") {
      sysfs_root = val;
    } else if (arg == "--hw-counter-source") {
      if (val == "auto")
        cfg.hw_counter_source = HwCounterSource::kAuto;
      else if (val == "netlink")
        cfg.hw_counter_source = HwCounterSource::kNetlink;
      else if (val == "sysfs")
        cfg.hw_counter_source = HwCounterSource::kSysfs;
      else
        return Usage(argv[0]);
    } else if (arg == "--only") {
      only = "," + val + ",";
    } else if (arg == "--repeat") {
      repeat = std::max(1, std::atoi(val.c_str()));
    } else {
      return Usage(argv[0]);
    }
  }

  auto collectors = rxe::collectors::MakeCollectors(cfg, sysfs_root);
  collectors.push_back(rxe::doctor::NewDoctorCollector(sysfs_root, "/proc"));
  std::map<std::string, Timing> timings;
  std::vector<prometheus::MetricFamily> families;
  bool failed = false;
  for (int round = 0; round < repeat; ++round) {
    families.clear();
    rxe::collectors::ScrapeContext ctx;
    for (auto& c : collectors) {
      const std::string name(c->Name());
      if (!only.empty() && only.find("," + name + ",") == std::string::npos) continue;
      const auto t0 = std::chrono::steady_clock::now();
      rxe::Status st = c->Collect(ctx, families);
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
      timings[name].Add(us);
      const bool ok = st.ok() || st.error().code == rxe::ErrorCode::kNoData;
      if (!ok) failed = true;
      if (round == repeat - 1 || !ok) {
        std::fprintf(stderr, "collector=%s status=%s duration_us=%.1f%s%s\n", name.c_str(),
                     st.ok() ? "ok" : rxe::ErrorCodeName(st.error().code), us,
                     st.ok() ? "" : " error=", st.ok() ? "" : st.error().message.c_str());
      }
    }
  }
  for (auto& [name, t] : timings) {
    std::fprintf(stderr,
                 "timing collector=%s rounds=%zu mean_us=%.1f min_us=%.1f p50_us=%.1f "
                 "p90_us=%.1f max_us=%.1f\n",
                 name.c_str(), t.us.size(), t.Mean(), t.Quantile(0), t.Quantile(0.5),
                 t.Quantile(0.9), t.Quantile(1));
  }
  prometheus::TextSerializer().Serialize(std::cout, families);
  std::cout.flush();
  return failed ? 1 : 0;
}
