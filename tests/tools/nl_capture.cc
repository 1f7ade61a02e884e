// Captures RDMA netlink (nldev) replies from the running kernel as raw bytes
// for tests/fixtures/netlink/. Each file is the concatenation of every reply
// message of one request exactly as received (nlmsghdr + payload, including
// the terminating NLMSG_DONE / NLMSG_ERROR when there is one).
//
//   nl_capture OUT_DIR [SUFFIX]
//   nl_capture --bench N      time N netlink scrapes (CMD_GET dump + STAT_GET per
//                             port + RES_GET per device), socket reused vs new each time
//
// Files (SUFFIX, if given, is appended before ".bin", e.g. "_busy"):
//   get_dump.bin                 CMD_GET dump (all devices, then NLMSG_DONE)
//   port_get_<dev>_<port>.bin    PORT_GET doit
//   stat_get_<dev>_<port>.bin    STAT_GET doit (hw counters)
//   res_get_<dev>.bin            RES_GET doit (resource summary)
//   stat_get_<dev>_99.bin        STAT_GET for a port that does not exist (NLMSG_ERROR)
//   stat_dump_no_res.bin         STAT_GET dump without STAT_RES (NLMSG_ERROR EINVAL)
// and prints a decoded summary on stdout. Exit 0 ok, 2 no RDMA netlink, 1 error.
#include <sys/utsname.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "collectors/netlink_message.h"
#include "collectors/rdma_netlink_client.h"

namespace {

using rxe::collectors::nl::NetlinkReply;
using rxe::collectors::rdma::RdmaNetlinkClient;
namespace rdma = rxe::collectors::rdma;

std::string g_dir;
std::string g_suffix;

bool Write(const std::string& name, const NetlinkReply& reply) {
  const std::string path = g_dir + "/" + name + g_suffix + ".bin";
  std::ofstream f(path, std::ios::binary);
  size_t total = 0;
  for (const auto& m : reply.messages) {
    f.write(reinterpret_cast<const char*>(m.data()), static_cast<std::streamsize>(m.size()));
    total += m.size();
  }
  if (!f) {
    std::fprintf(stderr, "write %s failed\n", path.c_str());
    return false;
  }
  std::printf("wrote %s: %zu messages, %zu bytes, kernel_errno %d\n", path.c_str(),
              reply.messages.size(), total, reply.kernel_errno);
  return true;
}

// Sends `request` and writes the reply; returns the reply (empty on failure).
NetlinkReply Capture(RdmaNetlinkClient& client, rxe::Result<rxe::collectors::nl::NlMsgPtr> request,
                     const std::string& name, bool& ok) {
  if (!request.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), request.error().message.c_str());
    ok = false;
    return {};
  }
  auto reply = client.Exchange(request->get());
  if (!reply.ok()) {
    std::fprintf(stderr, "%s: %s\n", name.c_str(), reply.error().message.c_str());
    ok = false;
    return {};
  }
  ok = Write(name, *reply) && ok;
  return std::move(*reply);
}

// One scrape's worth of requests; false on any error.
bool ScrapeOnce(RdmaNetlinkClient& c) {
  auto devices = c.ListDevices();
  if (!devices.ok()) return false;
  for (const auto& d : *devices) {
    for (uint32_t port = 1; port <= d.port_count; ++port) {
      if (!c.GetHwStats(d.index, port).ok()) return false;
    }
    if (!c.GetResources(d.index).ok()) return false;
  }
  return true;
}

int Bench(int n) {
  using Clock = std::chrono::steady_clock;
  auto reused = RdmaNetlinkClient::Connect();
  if (!reused.ok()) {
    std::fprintf(stderr, "connect: %s\n", reused.error().message.c_str());
    return reused.error().code == rxe::ErrorCode::kNoData ? 2 : 1;
  }
  auto t0 = Clock::now();
  for (int i = 0; i < n; ++i) {
    if (!ScrapeOnce(**reused)) return 1;
  }
  auto t1 = Clock::now();
  for (int i = 0; i < n; ++i) {
    auto fresh = RdmaNetlinkClient::Connect();
    if (!fresh.ok() || !ScrapeOnce(**fresh)) return 1;
  }
  auto t2 = Clock::now();
  auto us = [n](Clock::duration d) {
    return std::chrono::duration<double, std::micro>(d).count() / n;
  };
  std::printf("bench scrapes=%d reused_socket_us=%.1f new_socket_us=%.1f\n", n, us(t1 - t0),
              us(t2 - t1));
  return 0;
}

const nlmsghdr* First(const NetlinkReply& r) {
  return r.messages.empty() ? nullptr : reinterpret_cast<const nlmsghdr*>(r.messages[0].data());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR [SUFFIX]\n", argv[0]);
    return 1;
  }
  if (std::strcmp(argv[1], "--bench") == 0) return Bench(argc > 2 ? std::atoi(argv[2]) : 100);
  g_dir = argv[1];
  if (argc > 2) g_suffix = argv[2];
  utsname u{};
  uname(&u);
  std::printf("kernel %s %s\n", u.release, u.version);

  auto client = RdmaNetlinkClient::Connect();
  if (!client.ok()) {
    std::fprintf(stderr, "connect: %s\n", client.error().message.c_str());
    return client.error().code == rxe::ErrorCode::kNoData ? 2 : 1;
  }
  RdmaNetlinkClient& c = **client;
  bool ok = true;
  NetlinkReply dump = Capture(c, rdma::BuildDeviceDumpRequest(), "get_dump", ok);
  std::vector<const nlmsghdr*> msgs;
  for (const auto& m : dump.messages) msgs.push_back(reinterpret_cast<const nlmsghdr*>(m.data()));
  auto devices = rdma::DecodeDeviceList(msgs);
  if (!devices.ok()) {
    std::fprintf(stderr, "decode dump: %s\n", devices.error().message.c_str());
    return 1;
  }
  for (const auto& d : *devices) {
    std::printf("device %s index %u ports %u node_guid %s protocol %s\n", d.name.c_str(), d.index,
                d.port_count, rdma::FormatGuid(d.node_guid).c_str(), d.protocol.c_str());
    for (uint32_t port = 1; port <= d.port_count; ++port) {
      const std::string dp = d.name + "_" + std::to_string(port);
      NetlinkReply pr = Capture(c, rdma::BuildPortGetRequest(d.index, port), "port_get_" + dp, ok);
      if (const nlmsghdr* h = First(pr); h && h->nlmsg_type >= NLMSG_MIN_TYPE) {
        auto p = rdma::DecodePort(h);
        if (p.ok()) {
          std::printf("  port %u state %u phys %u netdev %s\n", p->port, p->state, p->phys_state,
                      p->netdev_name.c_str());
        }
      }
      NetlinkReply sr = Capture(c, rdma::BuildStatGetRequest(d.index, port), "stat_get_" + dp, ok);
      if (const nlmsghdr* h = First(sr); h && h->nlmsg_type >= NLMSG_MIN_TYPE) {
        auto s = rdma::DecodeHwStats(h);
        if (!s.ok()) {
          std::fprintf(stderr, "decode stat: %s\n", s.error().message.c_str());
          ok = false;
        } else {
          std::printf("  hw counters:");
          for (const auto& [n, v] : s->counters)
            std::printf(" %s=%llu", n.c_str(), (unsigned long long)v);
          std::printf("\n");
        }
      }
    }
    NetlinkReply rr = Capture(c, rdma::BuildResGetRequest(d.index), "res_get_" + d.name, ok);
    if (const nlmsghdr* h = First(rr); h && h->nlmsg_type >= NLMSG_MIN_TYPE) {
      auto r = rdma::DecodeResSummary(h);
      if (r.ok()) {
        std::printf("  resources:");
        for (const auto& [n, v] : r->entries)
          std::printf(" %s=%llu", n.c_str(), (unsigned long long)v);
        std::printf("\n");
      }
    }
    // Error replies, for the decoders' error paths.
    bool ignored = true;
    Capture(c, rdma::BuildStatGetRequest(d.index, 99), "stat_get_" + d.name + "_99", ignored);
  }
  {
    bool ignored = true;
    rxe::collectors::nl::NlMsgPtr m(
        nlmsg_alloc_simple(rdma::NldevType(RDMA_NLDEV_CMD_STAT_GET), NLM_F_DUMP));
    if (m) Capture(c, std::move(m), "stat_dump_no_res", ignored);
  }
  return ok ? 0 : 1;
}
