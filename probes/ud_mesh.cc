#include "probes/ud_mesh.h"

#include <algorithm>

#include "common/log.h"
#include "probes/scheduler_runner.h"
#include "probes/ud_wire.h"

namespace rxe::probes {
namespace {

constexpr char kSep = '\n';  // module/peer separator in a pinger's target names
constexpr auto kTick = std::chrono::milliseconds(500);

std::string TargetName(const std::string& module, const std::string& peer) {
  return module + kSep + peer;
}

bool SameAddress(const ud::EndpointAddress& a, const ud::EndpointAddress& b) {
  return a.gid == b.gid && a.qpn == b.qpn && a.qkey == b.qkey;
}

std::string TimingKey(const config::Module& m) {
  return std::to_string(m.interval.count()) + "/" + std::to_string(m.timeout.count()) + "/" +
         std::to_string(m.size);
}

}  // namespace

struct UdMesh::Device {
  LocalTarget where;
  std::unique_ptr<ud::Pinger> pinger;
  std::vector<ud::PeerTarget> pushed;
};

struct UdMesh::PeerState {
  config::Peer peer;
  bool queued = false;    // in queue_ or being fetched
  bool fetched = false;   // the last fetch succeeded
  bool failing = false;   // a failure was logged and no fetch succeeded since
  std::optional<ud::EndpointAddress> address;
  std::optional<in_addr> local_ip;
  Clock::time_point last_attempt{};
  // While the peer has no address and a fetch failed: the next ping slot counted unresolved.
  std::optional<Clock::time_point> unresolved_due;
  std::map<std::string, uint64_t> lost, received, run;  // per module: last counters, loss run
};

UdMesh::UdMesh(UdAddressFetcher fetch) : fetch_(std::move(fetch)) {
  timing_.type = config::ProbeType::kUdPing;
  timing_.interval = config::kUdPingDefaultInterval;
  timing_.timeout = config::kUdPingDefaultTimeout;
  timing_.size = config::kUdPingDefaultSize;
}

UdMesh::~UdMesh() { Stop(); }

ud::PingerOptions UdMesh::Timing() const { return {timing_.interval, timing_.timeout}; }

UdMesh::Device* UdMesh::DeviceFor(in_addr local_ip, const std::string& hint) {
  const auto key = std::make_pair(static_cast<uint32_t>(local_ip.s_addr), hint);
  if (auto it = device_of_.find(key); it != device_of_.end()) {
    auto d = devices_.find(it->second);
    if (d != devices_.end() && d->second->pinger) return d->second.get();
  }
  // A failed creation is not retried for every target of every push (1,000 peers and a
  // wrong `device` would mean a million attempts): once per kEndpointRetry per key.
  const auto now = Clock::now();
  if (auto it = failed_until_.find(key); it != failed_until_.end() && now < it->second) {
    return nullptr;
  }
  LocalTarget where;
  where.local_ip = local_ip;
  where.device = hint;
  ud::EndpointOptions eo;
  eo.message_bytes = timing_.size;
  auto created = ud::Endpoint::Create(where, eo);
  if (auto* f = std::get_if<ProbeFailure>(&created)) {
    failed_until_[key] = now + kEndpointRetry;
    log::Warn("ud_ping: cannot create the UD endpoint; retrying in 30 s",
              {{"device", hint}, {"reason", std::string(FailureReasonName(f->reason))},
               {"error", f->detail}});
    ++endpoint_failures_;
    return nullptr;
  }
  failed_until_.erase(key);
  auto ep = std::move(std::get<std::unique_ptr<ud::Endpoint>>(created));
  const std::string name = ep->device();
  device_of_[key] = name;
  auto& slot = devices_[name];
  if (slot && slot->pinger) return slot.get();  // this IP's device already has its endpoint
  slot = std::make_unique<Device>();
  slot->where = where;
  const ud::EndpointAddress a = ep->Address();
  slot->pinger = std::make_unique<ud::Pinger>(std::move(ep), Timing());
  slot->pinger->SetSourceFilter(acl_);
  if (!slot->pinger->Start()) {
    slot->pinger.reset();
    return nullptr;
  }
  log::Info("ud_ping: endpoint ready", {{"device", name},
                                         {"gid", GidToString(a.gid)},
                                         {"qpn", std::to_string(a.qpn)}});
  return slot.get();
}

std::optional<control::UdAddress> UdMesh::AddressFor(in_addr local_ip) {
  std::lock_guard lock(mu_);
  Device* d = DeviceFor(local_ip, "");
  if (d == nullptr) return std::nullopt;
  const ud::EndpointAddress a = d->pinger->Address();
  return control::UdAddress{a.gid, a.qpn, a.qkey};
}

void UdMesh::Enqueue(const std::string& peer) {
  PeerState& ps = *peers_.at(peer);
  if (ps.queued) return;
  ps.queued = true;
  queue_.push_back(peer);
  cv_.notify_all();  // the ticker waits on cv_ too
}

void UdMesh::Apply(const config::Config& cfg, std::optional<SourceAcl> acl) {
  std::lock_guard lock(mu_);
  Drain();
  modules_.clear();
  std::vector<Target> targets;
  std::vector<UdPairInfo> pairs;
  std::vector<std::string> module_names;
  for (const auto& [name, m] : cfg.modules) {
    if (m.type != config::ProbeType::kUdPing) continue;
    if (modules_.empty()) {
      // The config guarantees every ud_ping module has the same interval, timeout and size.
      if (TimingKey(m) != TimingKey(timing_)) {
        const bool same_size = m.size == timing_.size;
        timing_ = m;
        for (auto& [dev, d] : devices_) {
          if (!d->pinger) continue;
          if (same_size) {  // the endpoint (and its QPN, known to the peers) stays
            d->pinger->SetTiming(Timing());
            continue;
          }
          // A new ping size needs new buffers: the device's endpoint is rebuilt.
          stats_.SetDevice(dev, d->pinger->counters());
          stats_.RebaseDevice(dev);
          d->pinger.reset();
          d->pushed.clear();
        }
        if (!same_size) device_of_.clear();
      }
    }
    modules_[name] = m;
    module_names.push_back(name);
    for (auto& p : ModulePeersOf(cfg, m)) {
      pairs.push_back(UdPairInfo{name, p.name, p.labels, m.aggregate_by});
      targets.push_back(Target{name, std::move(p), m.device});
    }
  }
  targets_ = std::move(targets);
  stats_.SetPairs(pairs, module_names);
  std::set<std::pair<std::string, std::string>> kept;  // removed pairs leave the debug view
  for (const auto& t : targets_) kept.emplace(t.module, t.peer.name);
  for (auto it = debug_.begin(); it != debug_.end();) {
    it = kept.count(it->first) ? std::next(it) : debug_.erase(it);
  }
  acl_ = acl ? std::make_shared<const SourceAcl>(std::move(*acl)) : nullptr;

  std::map<std::string, std::unique_ptr<PeerState>> peers;
  for (const auto& t : targets_) {
    if (peers.count(t.peer.name)) continue;
    auto it = peers_.find(t.peer.name);
    const bool same = it != peers_.end() && it->second->peer.address == t.peer.address &&
                      it->second->peer.port == t.peer.port;
    auto ps = same ? std::move(it->second) : std::make_unique<PeerState>();
    ps->peer = t.peer;
    peers[t.peer.name] = std::move(ps);
  }
  peers_ = std::move(peers);
  queue_.erase(std::remove_if(queue_.begin(), queue_.end(),
                              [&](const std::string& n) { return !peers_.count(n); }),
               queue_.end());
  for (auto& [name, ps] : peers_) {
    if (!ps->fetched && !ps->queued) Enqueue(name);
  }
  // Devices in use get their loop back after a timing change; every loop gets the ACL.
  for (const auto& t : targets_) {
    const PeerState& ps = *peers_.at(t.peer.name);
    if (ps.local_ip) (void)DeviceFor(*ps.local_ip, t.device_hint);
  }
  for (auto& [dev, d] : devices_) {
    if (d->pinger) d->pinger->SetSourceFilter(acl_);
  }
  PushPeers();
  if (threads_.empty()) {
    stopping_ = false;
    cancel_ = false;
    threads_.emplace_back([this] { Ticker(); });
  }
  if (threads_.size() == 1 && !targets_.empty()) {  // fetchers on first use: a daemon without
    for (uint32_t i = 0; i < kFetchWorkers; ++i) {   // ud_ping modules runs none of them
      threads_.emplace_back([this] { Worker(); });
    }
  }
}

void UdMesh::PushPeers() {
  std::map<std::string, std::vector<ud::PeerTarget>> lists;
  for (auto& [dev, d] : devices_) lists[dev];
  for (const auto& t : targets_) {
    const PeerState& ps = *peers_.at(t.peer.name);
    if (!ps.address || !ps.local_ip) continue;  // not fetched yet: not pinged yet
    Device* d = DeviceFor(*ps.local_ip, t.device_hint);
    if (d == nullptr) continue;
    lists[device_of_.at({ps.local_ip->s_addr, t.device_hint})].push_back(
        ud::PeerTarget{TargetName(t.module, t.peer.name), *ps.address});
  }
  for (auto& [dev, list] : lists) {
    Device& d = *devices_.at(dev);
    if (!d.pinger) continue;
    const bool same = list.size() == d.pushed.size() &&
                      std::equal(list.begin(), list.end(), d.pushed.begin(),
                                 [](const ud::PeerTarget& a, const ud::PeerTarget& b) {
                                   return a.name == b.name && SameAddress(a.address, b.address);
                                 });
    if (same) continue;
    d.pinger->SetPeers(list);
    d.pushed = std::move(list);
  }
}

void UdMesh::Worker() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const std::string name = queue_.front();
    queue_.pop_front();
    config::Peer peer = peers_.at(name)->peer;
    config::Module m = timing_;  // a ud_ping module: HELLO(ud_ping) -> UD_ADDRESS
    m.name = "ud_ping";
    m.timeout = kFetchTimeout;
    lock.unlock();
    ProbeOutcome out = fetch_(m, peer, cancel_);
    lock.lock();
    auto it = peers_.find(name);
    if (it == peers_.end() || stopping_) continue;  // removed by a reload meanwhile
    PeerState& ps = *it->second;
    ps.queued = false;
    ps.last_attempt = Clock::now();
    const bool ok = out.success && out.ud_address && out.local_ip;
    for (const auto& t : targets_) {
      if (t.peer.name == name) stats_.CountFetch(t.module, ok);
    }
    if (!ok) {
      if (!ps.failing) {  // once per failure streak: 1,000 dead peers must not flood the log
        ps.failing = true;
        log::Warn("ud_ping: cannot fetch the peer's UD address; retrying later",
                  {{"peer", name},
                   {"error", out.failure ? out.failure->detail : "no UD address or IPv6"}});
      }
      ps.fetched = false;
      continue;
    }
    ps.fetched = true;
    ps.failing = false;
    ps.address = ud::EndpointAddress{out.ud_address->gid, out.ud_address->qpn, out.ud_address->qkey};
    ps.local_ip = out.local_ip;
    PushPeers();
  }
}

void UdMesh::Drain() {
  const auto now = Clock::now();
  const auto gap = std::max<Clock::duration>(timing_.interval, kMinRefetchGap);
  for (auto& [dev, d] : devices_) {
    if (!d->pinger) continue;
    stats_.SetDevice(dev, d->pinger->counters());
    for (auto& r : d->pinger->TakeReport()) {
      const auto sep = r.name.find(kSep);
      if (sep == std::string::npos) continue;
      const std::string module = r.name.substr(0, sep), peer = r.name.substr(sep + 1);
      stats_.Fold(module, peer, r);
      PairDebugState& dbg = debug_[{module, peer}];
      dbg.device = dev;
      for (const auto& sample : r.samples) dbg.rtt.Add(sample);
      r.samples.clear();
      dbg.last = r;
      auto it = peers_.find(peer);
      if (it == peers_.end()) continue;
      PeerState& ps = *it->second;
      uint64_t& run = ps.run[module];
      if (r.received != ps.received[module]) {
        run = 0;
      } else if (r.lost > ps.lost[module]) {
        run += r.lost - ps.lost[module];
      }
      ps.received[module] = r.received;
      ps.lost[module] = r.lost;
      if (run >= kRefetchAfterLosses && !ps.queued && now - ps.last_attempt >= gap) {
        run = 0;
        Enqueue(peer);  // the peer may have restarted with a new QPN
      }
    }
  }
}

void UdMesh::Ticker() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, kTick, [&] { return stopping_; });
    if (stopping_) return;
    Drain();
    bool rebuild = false;
    for (auto& [dev, d] : devices_) {
      if (!d->pinger || !d->pinger->broken()) continue;
      stats_.SetDevice(dev, d->pinger->counters());
      stats_.RebaseDevice(dev);
      d->pinger.reset();  // DeviceFor() makes a new endpoint for it (new QPN)
      d->pushed.clear();
      rebuild = true;
    }
    if (rebuild) PushPeers();
    const auto now = Clock::now();
    const auto gap = std::max<Clock::duration>(timing_.interval, kMinRefetchGap);
    for (auto& [name, ps] : peers_) {
      if (!ps->fetched && !ps->queued && now - ps->last_attempt >= gap) Enqueue(name);
    }
    CountUnresolved(now);
  }
}

void UdMesh::CountUnresolved(Clock::time_point now) {
  // A peer pinged before keeps its last address (and shows loss); one never fetched has no
  // pings at all: every interval after its first failed fetch counts as one unresolved slot per
  // module, so a peer that was down when the daemon started still shows up in the loss rules.
  std::set<std::string> due;
  for (auto& [name, ps] : peers_) {
    if (ps->address || !ps->failing) {
      ps->unresolved_due.reset();
      continue;
    }
    if (!ps->unresolved_due) ps->unresolved_due = ps->last_attempt;
    if (now < *ps->unresolved_due) continue;
    due.insert(name);
    *ps->unresolved_due += timing_.interval;
    if (*ps->unresolved_due <= now) *ps->unresolved_due = now + timing_.interval;  // no bursts
  }
  if (due.empty()) return;
  for (const auto& t : targets_) {
    if (due.count(t.peer.name)) stats_.CountUnresolved(t.module, t.peer.name);
  }
}

void UdMesh::Stop() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cancel_ = true;
    threads.swap(threads_);
  }
  cv_.notify_all();
  for (auto& t : threads) t.join();
  std::lock_guard lock(mu_);
  Drain();
  for (auto& [dev, d] : devices_) {
    if (!d->pinger) continue;
    stats_.SetDevice(dev, d->pinger->counters());
    stats_.RebaseDevice(dev);
  }
  devices_.clear();
  device_of_.clear();
  failed_until_.clear();
  queue_.clear();
  for (auto& [name, ps] : peers_) ps->queued = false;
}

std::vector<prometheus::MetricFamily> UdMesh::Collect() {
  std::lock_guard lock(mu_);
  Drain();
  return stats_.Families();
}

std::string UdMesh::DebugJson() {
  std::lock_guard lock(mu_);
  Drain();
  UdDebugSnapshot snap;
  snap.interval_seconds = std::chrono::duration<double>(timing_.interval).count();
  snap.timeout_seconds = std::chrono::duration<double>(timing_.timeout).count();
  snap.steady_now = Clock::now();
  snap.wall_now = std::chrono::system_clock::now();
  for (const auto& [dev, d] : devices_) {
    if (d->pinger) snap.devices.push_back({dev, d->pinger->Address(), d->pushed.size()});
  }
  for (const auto& t : targets_) {
    UdPairDebug p;
    p.module = t.module;
    p.peer = t.peer.name;
    const PeerState& ps = *peers_.at(t.peer.name);
    p.fetch = ps.fetched ? "ok" : ps.failing ? "failed" : "pending";
    p.address = ps.address;
    if (auto it = debug_.find({t.module, t.peer.name}); it != debug_.end()) {
      p.device = it->second.device;
      p.report = it->second.last;
      p.rtt = it->second.rtt.Median();
      p.rtt_samples = it->second.rtt.size();
    }
    snap.pairs.push_back(std::move(p));
  }
  return UdDebugJson(snap);
}

}  // namespace rxe::probes
