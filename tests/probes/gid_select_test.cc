#include "probes/gid_select.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace rxe::probes {
namespace {

in_addr Ip(const char* s) {
  in_addr a{};
  EXPECT_EQ(inet_pton(AF_INET, s, &a), 1);
  return a;
}

Gid DefaultGid() {  // fe80::<eui-64>, rxe's reserved index 0
  Gid g{};
  g[0] = 0xfe;
  g[1] = 0x80;
  g[15] = 0x01;
  return g;
}

GidEntry Entry(uint32_t index, const Gid& gid, GidType type = GidType::kRoceV2) {
  return GidEntry{gid, index, type};
}

PortGids Port(std::string dev, std::vector<GidEntry> gids, uint32_t state = 4) {
  PortGids p;
  p.device = std::move(dev);
  p.port = 1;
  p.state = state;
  p.gids = std::move(gids);
  return p;
}

LocalTarget Target(const char* ip, std::string dev = "", std::optional<int> gid_index = {}) {
  LocalTarget t;
  t.local_ip = Ip(ip);
  t.device = std::move(dev);
  t.gid_index = gid_index;
  return t;
}

TEST(GidSelectTest, Ipv4MappedGidLayout) {
  Gid g = Ipv4MappedGid(Ip("10.9.0.1"));
  Gid want{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 9, 0, 1};
  EXPECT_EQ(g, want);
  EXPECT_EQ(GidToString(g), "0000:0000:0000:0000:0000:ffff:0a09:0001");
}

TEST(GidSelectTest, PicksRoceV2EntryOfTheIp) {
  std::vector<GidEntry> t = {Entry(0, DefaultGid()), Entry(1, Ipv4MappedGid(Ip("10.9.0.1")))};
  EXPECT_EQ(SelectGid(t, Ip("10.9.0.1")), 1u);
  EXPECT_EQ(SelectGid(t, Ip("10.9.0.2")), std::nullopt);
}

TEST(GidSelectTest, SkipsRoceV1AndPrefersLowestIndex) {
  const Gid g = Ipv4MappedGid(Ip("192.168.1.7"));
  std::vector<GidEntry> t = {Entry(0, DefaultGid()), Entry(1, g, GidType::kRoceV1), Entry(5, g),
                             Entry(3, g)};
  EXPECT_EQ(SelectGid(t, Ip("192.168.1.7")), 3u);
}

TEST(GidSelectTest, EmptyTable) { EXPECT_EQ(SelectGid({}, Ip("10.0.0.1")), std::nullopt); }

TEST(ChoosePortAndGidTest, NoDevices) {
  auto r = ChoosePortAndGid({}, Target("10.9.0.1"));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kNoDevice);
}

TEST(ChoosePortAndGidTest, DeviceOverrideNotFound) {
  std::vector<PortGids> ports = {Port("rxe0", {Entry(1, Ipv4MappedGid(Ip("10.9.0.1")))})};
  auto r = ChoosePortAndGid(ports, Target("10.9.0.1", "mlx5_0"));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kNoDevice);
  EXPECT_NE(std::get<ProbeFailure>(r).detail.find("mlx5_0"), std::string::npos);
}

TEST(ChoosePortAndGidTest, AutoFindsTheDeviceOwningTheIp) {
  std::vector<PortGids> ports = {
      Port("rxe0", {Entry(0, DefaultGid()), Entry(1, Ipv4MappedGid(Ip("10.9.0.1")))}),
      Port("rxe1", {Entry(0, DefaultGid()), Entry(2, Ipv4MappedGid(Ip("10.9.1.1")))})};
  auto r = ChoosePortAndGid(ports, Target("10.9.1.1"));
  ASSERT_TRUE(std::holds_alternative<GidChoice>(r));
  EXPECT_EQ(std::get<GidChoice>(r).port_index, 1u);
  EXPECT_EQ(std::get<GidChoice>(r).gid_index, 2u);
}

TEST(ChoosePortAndGidTest, NoGidForTheIp) {
  std::vector<PortGids> ports = {Port("rxe0", {Entry(0, DefaultGid())})};
  auto r = ChoosePortAndGid(ports, Target("10.9.0.1"));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kNoGid);
  EXPECT_NE(std::get<ProbeFailure>(r).detail.find("10.9.0.1"), std::string::npos);
}

TEST(ChoosePortAndGidTest, PortNotActiveIsNoDeviceWithState) {
  std::vector<PortGids> ports = {Port("rxe0", {Entry(1, Ipv4MappedGid(Ip("10.9.0.1")))}, 1)};
  auto r = ChoosePortAndGid(ports, Target("10.9.0.1"));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kNoDevice);
  EXPECT_NE(std::get<ProbeFailure>(r).detail.find("DOWN"), std::string::npos);
}

TEST(ChoosePortAndGidTest, PrefersActivePortWhenTheIpIsOnTwo) {
  const Gid g = Ipv4MappedGid(Ip("10.9.0.1"));
  std::vector<PortGids> ports = {Port("rxe0", {Entry(1, g)}, 1), Port("rxe1", {Entry(4, g)}, 4)};
  auto r = ChoosePortAndGid(ports, Target("10.9.0.1"));
  ASSERT_TRUE(std::holds_alternative<GidChoice>(r));
  EXPECT_EQ(std::get<GidChoice>(r).port_index, 1u);
  EXPECT_EQ(std::get<GidChoice>(r).gid_index, 4u);
}

TEST(ChoosePortAndGidTest, GidIndexOverride) {
  std::vector<PortGids> ports = {
      Port("rxe0", {Entry(0, DefaultGid()), Entry(1, Ipv4MappedGid(Ip("10.9.0.1"))),
                    Entry(2, Ipv4MappedGid(Ip("10.9.0.5")))})};
  auto ok = ChoosePortAndGid(ports, Target("10.9.0.1", "rxe0", 2));
  ASSERT_TRUE(std::holds_alternative<GidChoice>(ok));
  EXPECT_EQ(std::get<GidChoice>(ok).gid_index, 2u);

  auto missing = ChoosePortAndGid(ports, Target("10.9.0.1", "", 77));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(missing));
  EXPECT_EQ(std::get<ProbeFailure>(missing).reason, FailureReason::kNoGid);

  auto negative = ChoosePortAndGid(ports, Target("10.9.0.1", "", -1));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(negative));
  EXPECT_EQ(std::get<ProbeFailure>(negative).reason, FailureReason::kNoGid);
}

TEST(ChoosePortAndGidTest, GidIndexOverrideMustBeRoceV2) {
  std::vector<PortGids> ports = {Port(
      "rxe0", {Entry(0, DefaultGid(), GidType::kRoceV1), Entry(1, Ipv4MappedGid(Ip("10.9.0.1")))})};
  auto r = ChoosePortAndGid(ports, Target("10.9.0.1", "", 0));
  ASSERT_TRUE(std::holds_alternative<ProbeFailure>(r));
  EXPECT_EQ(std::get<ProbeFailure>(r).reason, FailureReason::kNoGid);
  EXPECT_NE(std::get<ProbeFailure>(r).detail.find("RoCE v2"), std::string::npos);
}

TEST(PortStateNameTest, Names) {
  EXPECT_EQ(PortStateName(4), "ACTIVE");
  EXPECT_EQ(PortStateName(1), "DOWN");
  EXPECT_EQ(PortStateName(9), "9");
}

}  // namespace
}  // namespace rxe::probes
