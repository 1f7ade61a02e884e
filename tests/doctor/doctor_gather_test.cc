// The doctor's gatherers on fixture trees (tests/fixtures/doctor/) and the
// daemon metric built from them.
#include "doctor/doctor_gather.h"

#include <gtest/gtest.h>

#include <map>

#include "doctor/doctor_checks.h"
#include "doctor/doctor_collector.h"

namespace rxe::doctor {
namespace {

using collectors::ScrapeContext;

const std::string kFix = std::string(RXE_FIXTURES_DIR) + "/doctor/";

GatherPaths Paths(const std::string& host, const std::string& release) {
  GatherPaths p;
  p.sysfs_root = kFix + host + "/sys";
  p.procfs_root = kFix + host + "/proc";
  p.modules_root = kFix + "modules";
  p.kernel_release = release;
  return p;
}

TEST(DoctorGather, HealthyHost) {
  const GatherPaths paths = Paths("healthy", "6.1.0-test");
  const Facts f = GatherLocalFacts(paths);
  EXPECT_TRUE(f.module.loaded);
  ASSERT_EQ(f.devices.size(), 1u);
  const DeviceFact& d = f.devices[0];
  EXPECT_EQ(d.name, "rxe0");
  EXPECT_TRUE(d.rxe);
  ASSERT_EQ(d.ports.size(), 1u);
  const PortFact& p = d.ports[0];
  EXPECT_EQ(p.state, 4u);
  EXPECT_EQ(p.phys_state_name, "LinkUp");
  EXPECT_EQ(p.link_layer, "Ethernet");
  EXPECT_EQ(p.netdev, "eth0");
  EXPECT_EQ(p.netdev_mtu, 9000u);
  EXPECT_EQ(p.netdev_operstate, "up");
  ASSERT_EQ(p.gids.size(), 2u);
  EXPECT_EQ(p.gids[1].index, 1);
  EXPECT_TRUE(p.gids[1].roce_v2);
  EXPECT_EQ(p.gids[1].ipv4, "10.77.0.10");
  EXPECT_FALSE(p.gids[0].ipv4);
  EXPECT_EQ(f.candidate_netdevs, std::vector<std::string>{"eth0"});
  ASSERT_TRUE(f.memlock);
  EXPECT_TRUE(f.memlock->cap_ipc_lock);
  ASSERT_TRUE(f.governors);
  EXPECT_EQ(f.governors->size(), 2u);
  auto cpus = ReadCpuTimes(paths);
  ASSERT_TRUE(cpus);
  EXPECT_EQ(cpus->size(), 2u);

  Facts all = f;
  all.memlock_need = MemlockNeedFor(config::Config{});
  all.mtu_requests = {{4096, "--mtu"}};
  const auto results = RunChecks(all);
  EXPECT_EQ(Worst(results), CheckStatus::kPass);
  for (const auto& r : results)
    EXPECT_EQ(r.status, CheckStatus::kPass) << r.check << ": " << r.evidence;
}

TEST(DoctorGather, BrokenHost) {
  const Facts f = GatherLocalFacts(Paths("broken", "6.1.0-norxe"));
  EXPECT_FALSE(f.module.loaded);
  EXPECT_FALSE(f.module.available);
  EXPECT_TRUE(f.devices.empty());
  // Default-route interface first, then the other interfaces that are up.
  EXPECT_EQ(f.candidate_netdevs, (std::vector<std::string>{"eth1", "eth2"}));
  EXPECT_FALSE(f.memlock->cap_ipc_lock);
  const auto results = RunChecks(f);
  ASSERT_GE(results.size(), 2u);
  EXPECT_EQ(results[0].check, "rxe_module");
  EXPECT_EQ(results[0].status, CheckStatus::kFail);
  EXPECT_EQ(results[1].check, "rdma_device");
  EXPECT_EQ(results[1].status, CheckStatus::kFail);
  EXPECT_NE(results[1].fix.find("rdma link add rxe0 type rxe netdev eth1"), std::string::npos);
  EXPECT_EQ(ExitStatus(Worst(results)), 2);
}

TEST(DoctorGather, ModuleAvailableButNotLoaded) {
  const ModuleFact m = GatherModule(Paths("broken", "6.1.0-test"));
  EXPECT_FALSE(m.loaded);
  EXPECT_TRUE(m.available);
  EXPECT_NE(m.evidence.find("modules.dep"), std::string::npos);
}

TEST(DoctorCollector, ExportsCheapChecksAsStatusSeries) {
  DoctorCollectorOptions o;
  o.sysfs_root = kFix + "healthy/sys";
  o.procfs_root = kFix + "healthy/proc";
  o.modules_root = kFix + "modules";
  o.refresh = std::chrono::milliseconds(0);
  o.mtu_requests = {{4096, "module jumbo"}};
  auto c = NewDoctorCollector(o);
  EXPECT_EQ(c->Name(), "doctor");
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  ASSERT_TRUE(c->Collect(ctx, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name, "rxe_doctor_check_status");
  std::map<std::string, double> by;
  for (const auto& m : out[0].metric) {
    std::string key;
    for (const auto& l : m.label) key += l.name + "=" + l.value + ",";
    by[key] = m.gauge.value;
  }
  EXPECT_EQ(by.at("check=mtu,device=rxe0,port=1,"), 0);
  EXPECT_EQ(by.at("check=gid,device=rxe0,port=1,"), 0);
  EXPECT_EQ(by.at("check=rxe_module,"), 0);
  EXPECT_EQ(by.count("check=softirq,"), 0u);  // costly: doctor command only

  o.sysfs_root = kFix + "broken/sys";
  o.procfs_root = kFix + "broken/proc";
  out.clear();
  ASSERT_TRUE(NewDoctorCollector(o)->Collect(ctx, out).ok());
  by.clear();
  for (const auto& m : out[0].metric) by[m.label[0].value] = m.gauge.value;
  EXPECT_EQ(by.at("rdma_device"), 2);   // fail
  EXPECT_EQ(by.at("cpu_governor"), 1);  // warn: powersave
}

TEST(DoctorCollector, FactoryForTheDaemon) {
  auto c = NewDoctorCollector(kFix + "healthy/sys", kFix + "healthy/proc");
  ScrapeContext ctx;
  std::vector<prometheus::MetricFamily> out;
  ASSERT_TRUE(c->Collect(ctx, out).ok());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_FALSE(out[0].metric.empty());
}

}  // namespace
}  // namespace rxe::doctor
