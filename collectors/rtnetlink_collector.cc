#include "collectors/rtnetlink_collector.h"

#include <cerrno>
#include <map>
#include <mutex>

#include "collectors/factory.h"
#include "common/log.h"

namespace rxe::collectors {
namespace rtnl {

Result<nl::NlSockPtr> ConnectRoute(std::chrono::milliseconds timeout) {
  nl::NlSockPtr sk(nl_socket_alloc());
  if (!sk) return Error::FromErrno(ENOMEM, "nl_socket_alloc");
  const int rc = nl_connect(sk.get(), NETLINK_ROUTE);
  if (rc < 0) return nl::NlError(rc, "rtnetlink connect");
  RXE_RETURN_IF_ERROR(nl::SetReceiveTimeout(sk.get(), timeout));
  return sk;
}

Result<std::optional<NetdevStats>> GetNetdevStats(nl_sock* sk, const std::string& netdev) {
  rtnl_link* raw = nullptr;
  const int rc = rtnl_link_get_kernel(sk, 0, netdev.c_str(), &raw);
  nl::RtnlLinkPtr link(raw);
  if (rc == -NLE_NODEV || rc == -NLE_OBJ_NOTFOUND) return std::optional<NetdevStats>();
  if (rc == -NLE_AGAIN || (rc == 0 && !link)) {  // SO_RCVTIMEO expired (0: older libnl)
    return Error{ErrorCode::kDeadlineExceeded, ETIMEDOUT, "RTM_GETLINK " + netdev + ": no reply"};
  }
  if (rc < 0) return nl::NlError(rc, "RTM_GETLINK " + netdev);
  NetdevStats stats = NetdevStatsFromLink(link.get());
  stats.name = netdev;
  return std::optional<NetdevStats>(std::move(stats));
}

}  // namespace rtnl

namespace {

class RtnetlinkCollector final : public Collector {
 public:
  std::string_view Name() const override { return "rtnetlink"; }

  Status Collect(ScrapeContext& ctx, std::vector<prometheus::MetricFamily>& out) override {
    std::lock_guard<std::mutex> lock(mu_);
    std::map<std::string, std::optional<rtnl::NetdevStats>> netdevs;  // each queried once
    for (const auto& [port, netdev] : ctx.port_netdevs) {
      if (!netdev.empty() && ctx.devices.Matches(port.first)) netdevs[netdev];
    }
    if (netdevs.empty()) return Status::Ok();
    if (!sk_) {
      auto sk = rtnl::ConnectRoute(std::chrono::seconds(2));
      if (!sk.ok()) return sk.error();
      sk_ = std::move(*sk);
    }
    for (auto& [name, stats] : netdevs) {
      auto got = rtnl::GetNetdevStats(sk_.get(), name);
      if (!got.ok()) {
        sk_.reset();  // a late reply would break libnl's sequence check
        return got.error();
      }
      if (!*got) log::Debug("rtnetlink: netdev not in this netns", {{"netdev", name}});
      stats = std::move(*got);
    }
    std::vector<rtnl::PortNetdevStats> ports;
    for (const auto& [port, netdev] : ctx.port_netdevs) {
      auto it = netdevs.find(netdev);
      if (it == netdevs.end() || !it->second) continue;
      ports.push_back({port.first, port.second, *it->second});
    }
    rtnl::AppendNetdevFamilies(ports, out);
    return Status::Ok();
  }

 private:
  std::mutex mu_;
  nl::NlSockPtr sk_;
};

}  // namespace

std::unique_ptr<Collector> NewRtnetlinkCollector(const config::CollectorsConfig& /*cfg*/) {
  return std::make_unique<RtnetlinkCollector>();
}

}  // namespace rxe::collectors
