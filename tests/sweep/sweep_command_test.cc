// Sweep flag validation (the subcommand on the command line: tests/exporter/cli_test.cc).
#include "sweep/sweep_command.h"

#include <gtest/gtest.h>

#include <functional>

namespace rxe::sweep {
namespace {

TEST(SweepCli, Preset) {
  SweepOptions o;
  o.peer = "10.0.0.2";
  o.preset = "article";
  o.repeat = 2;
  o.duration = "2s";
  o.pin_cpu = 1;
  auto inv = ValidateSweepOptions(o);
  ASSERT_TRUE(inv.ok()) << inv.error().message;
  ASSERT_EQ(inv->plans.size(), 6u);
  EXPECT_EQ(inv->plans[0].points[0].params.duration, std::chrono::milliseconds(2000));
  EXPECT_EQ(inv->plans[5].points[1].pin.cpus, std::vector<int>{1});
  EXPECT_EQ(inv->plans[1].points[0].params.mtu, 512u);
  EXPECT_EQ(inv->target.peer.port, 19792);
}

TEST(SweepCli, Errors) {
  struct Case {
    std::function<void(SweepOptions&)> set;
    const char* message;
  } cases[] = {
      {[](auto& o) { o.peer = ""; }, "--peer: required"},
      {[](auto& o) { o.peer = "h:0"; }, "--peer: bad port"},
      {[](auto& o) { o.vary.clear(); }, "give --vary NAME=VALUES"},
      {[](auto& o) { o.preset = "article"; }, "give --vary NAME=VALUES"},  // both
      {[](auto& o) { o.vary = {}, o.preset = "paper"; }, "unknown preset \"paper\""},
      {[](auto& o) { o.type = "rdma_bw"; }, "--type: unknown probe type"},
      {[](auto& o) { o.mtu = "9000"; }, "--mtu: mtu 9000 is not a RoCE MTU"},
      {[](auto& o) { o.duration = "20s"; }, "--duration: must be 1ms..10s"},
      {[](auto& o) { o.repeat = 0; }, "--repeat: must be 1..100"},
      {[](auto& o) { o.iterations = "x"; }, "--iterations: must be 5..1000000"},
      {[](auto& o) { o.cpu = "zero"; }, "--cpu: bad CPU list"},
      {[](auto& o) { o.vary = {"cq_mod=1,200"}; }, "point 200"},
      {[](auto& o) { o.baseline = "3"; }, "--baseline 3 is not one of the qps points"},
      {[](auto& o) { o.psk_file = "/nonexistent/psk"; }, "--psk-file:"},
      {[](auto& o) { o.output_dir = ""; }, "--output-dir: must not be empty"},
  };
  for (const auto& c : cases) {
    SweepOptions o;
    o.peer = "10.0.0.2";
    o.vary = {"qps=1,2"};
    c.set(o);
    auto inv = ValidateSweepOptions(o);
    ASSERT_FALSE(inv.ok()) << c.message;
    EXPECT_NE(inv.error().message.find(c.message), std::string::npos)
        << "want \"" << c.message << "\", got: " << inv.error().message;
  }
}

}  // namespace
}  // namespace rxe::sweep
