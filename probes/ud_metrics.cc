#include "probes/ud_metrics.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <utility>

#include "probes/metric_families.h"

namespace rxe::probes {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

constexpr const char* kLatencyHelp =
    "Every latency sample of successful latency probes. One-way latency = round trip / 2, as "
    "perftest reports send/write latency. ud_ping modules: the network round trip (total minus "
    "the responder's processing time) of every valid ping.";

uint64_t Increase(uint64_t cur, uint64_t last, bool reset) { return reset ? cur : cur - last; }

ud::LoopCounters Sum(const ud::LoopCounters& a, const ud::LoopCounters& b) {
  ud::LoopCounters s;
  s.pongs_sent = a.pongs_sent + b.pongs_sent;
  s.malformed = a.malformed + b.malformed;
  s.unmatched_pongs = a.unmatched_pongs + b.unmatched_pongs;
  s.no_send_slot = a.no_send_slot + b.no_send_slot;
  s.skipped_rounds = a.skipped_rounds + b.skipped_rounds;
  s.wc_errors = a.wc_errors + b.wc_errors;
  s.not_allowed = a.not_allowed + b.not_allowed;
  s.ah_evictions = a.ah_evictions + b.ah_evictions;
  return s;
}

Labels SeriesLabels(const UdPairInfo& p) {
  if (!p.aggregate_by.empty()) {
    auto it = p.labels.find(p.aggregate_by);
    return {{"module", p.module}, {p.aggregate_by, it != p.labels.end() ? it->second : ""}};
  }
  Labels l{{"module", p.module}, {"peer", p.peer}};
  for (const auto& [k, v] : p.labels) {
    if (k == "module" || k == "peer" || k == "component" || k == "le") continue;
    l.push_back({k, v});
  }
  return l;
}

void AddSeries(Families& o, const Labels& l, const UdStats::Counts& c) {
  o.Get("rxe_probe_latency_seconds", kLatencyHelp, MetricType::Histogram)
      .metric.push_back(Histogram(l, kLatencyBuckets, c.buckets, c.samples, c.network_sum));
  const auto C = MetricType::Counter;
  o.Add("rxe_ud_ping_sent_total", "ud_ping pings posted (per pair, or per aggregate_by value).", C,
        l, static_cast<double>(c.sent));
  o.Add("rxe_ud_ping_received_total", "ud_ping pongs received within the timeout.", C, l,
        static_cast<double>(c.received));
  o.Add("rxe_ud_ping_lost_total",
        "ud_ping pings without a pong within the module's timeout (loss ratio = "
        "rate(lost) / rate(sent)).",
        C, l, static_cast<double>(c.lost));
  o.Add("rxe_ud_ping_late_total",
        "ud_ping pings counted lost whose pong arrived after the timeout (a slow host or "
        "path, not a dropped packet); lost - late = pings never answered.",
        C, l, static_cast<double>(c.late));
  o.Add("rxe_ud_ping_unresolved_total",
        "ud_ping ping slots (one per interval) the peer could not be pinged in because its UD "
        "address was never fetched (its control port did not answer); the loss rules count them "
        "as lost.",
        C, l, static_cast<double>(c.unresolved));
  o.Add("rxe_ud_ping_send_errors_total",
        "ud_ping pings that could not be sent (post or send completion failed, no free send "
        "slot); not network loss.",
        C, l, static_cast<double>(c.send_errors));
  const char* help =
      "Sum over valid ud_ping samples of the round trip (total), the responder's processing time "
      "(responder) and their difference (network); mean = rate(this) / "
      "rate(rxe_probe_latency_seconds_count).";
  auto with = [&](const char* v) {
    Labels x = l;
    x.push_back({"component", v});
    return x;
  };
  o.Add("rxe_ud_ping_seconds_total", help, C, with("total"), c.total_sum);
  o.Add("rxe_ud_ping_seconds_total", help, C, with("network"), c.network_sum);
  o.Add("rxe_ud_ping_seconds_total", help, C, with("responder"), c.responder_sum);
}

}  // namespace

void UdStats::Counts::Add(const Counts& o) {
  sent += o.sent;
  received += o.received;
  lost += o.lost;
  late += o.late;
  send_errors += o.send_errors;
  unresolved += o.unresolved;
  samples += o.samples;
  for (size_t i = 0; i < buckets.size(); ++i) buckets[i] += o.buckets[i];
  network_sum += o.network_sum;
  total_sum += o.total_sum;
  responder_sum += o.responder_sum;
}

void UdStats::SetPairs(const std::vector<UdPairInfo>& pairs,
                       const std::vector<std::string>& modules) {
  std::map<std::pair<std::string, std::string>, Pair> next;
  for (const auto& info : pairs) {
    auto key = std::make_pair(info.module, info.peer);
    auto it = pairs_.find(key);
    Pair p = it != pairs_.end() ? std::move(it->second) : Pair{};
    p.info = info;
    next[key] = std::move(p);
  }
  pairs_ = std::move(next);
  modules_ = modules;
  std::map<std::string, std::pair<uint64_t, uint64_t>> fetches;
  for (const auto& m : modules) fetches[m] = fetches_[m];
  fetches_ = std::move(fetches);
}

void UdStats::Fold(const std::string& module, const std::string& peer, const ud::PeerReport& r) {
  auto it = pairs_.find({module, peer});
  if (it == pairs_.end()) return;
  Pair& p = it->second;
  const bool reset = r.sent < p.last.sent || r.received < p.last.received ||
                     r.lost < p.last.lost || r.late < p.last.late ||
                     r.send_errors < p.last.send_errors;
  p.counts.sent += Increase(r.sent, p.last.sent, reset);
  p.counts.received += Increase(r.received, p.last.received, reset);
  p.counts.lost += Increase(r.lost, p.last.lost, reset);
  p.counts.late += Increase(r.late, p.last.late, reset);
  p.counts.send_errors += Increase(r.send_errors, p.last.send_errors, reset);
  p.last.sent = r.sent;
  p.last.received = r.received;
  p.last.lost = r.lost;
  p.last.late = r.late;
  p.last.send_errors = r.send_errors;
  for (const auto& s : r.samples) {
    if (!s.valid) continue;  // a late software timestamp: no RTT statistics from it
    ++p.counts.samples;
    p.counts.network_sum += s.network_seconds;
    p.counts.total_sum += s.total_seconds;
    p.counts.responder_sum += s.responder_seconds;
    auto b = std::lower_bound(kLatencyBuckets.begin(), kLatencyBuckets.end(), s.network_seconds);
    if (b != kLatencyBuckets.end()) ++p.counts.buckets[static_cast<size_t>(b - kLatencyBuckets.begin())];
  }
}

void UdStats::CountFetch(const std::string& module, bool ok) {
  auto it = fetches_.find(module);
  if (it == fetches_.end()) return;
  ++(ok ? it->second.first : it->second.second);
}

void UdStats::CountUnresolved(const std::string& module, const std::string& peer) {
  auto it = pairs_.find({module, peer});
  if (it != pairs_.end()) ++it->second.counts.unresolved;
}

void UdStats::SetDevice(const std::string& device, const ud::LoopCounters& c) {
  devices_[device].current = c;
}

void UdStats::RebaseDevice(const std::string& device) {
  Device& d = devices_[device];
  d.base = Sum(d.base, d.current);
  d.current = {};
}

const UdStats::Counts* UdStats::PairCounts(const std::string& module, const std::string& peer) const {
  auto it = pairs_.find({module, peer});
  return it != pairs_.end() ? &it->second.counts : nullptr;
}

std::vector<MetricFamily> UdStats::Families() const {
  rxe::probes::Families o;
  // Per pair, or summed per (module, aggregate_by value); map order = stable output.
  auto label_less = [](const Labels& a, const Labels& b) {
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
          return std::tie(x.name, x.value) < std::tie(y.name, y.value);
        });
  };
  std::map<Labels, Counts, decltype(label_less)> merged(label_less);
  std::map<std::string, uint64_t> peers_per_module;
  for (const auto& m : modules_) peers_per_module[m] = 0;
  for (const auto& [key, p] : pairs_) {
    ++peers_per_module[key.first];
    merged[SeriesLabels(p.info)].Add(p.counts);
  }
  for (const auto& [l, c] : merged) AddSeries(o, l, c);
  for (const auto& [m, n] : peers_per_module) {
    o.Add("rxe_ud_ping_peers", "Peers a ud_ping module pings (after peer selection).",
          MetricType::Gauge, {{"module", m}}, static_cast<double>(n));
  }
  for (const auto& [m, f] : fetches_) {
    const char* help =
        "UD address fetches (GID, QPN, Q_Key) from peers over the control protocol, per module "
        "using the peer.";
    o.Add("rxe_ud_ping_address_fetches_total", help, MetricType::Counter,
          {{"module", m}, {"result", "ok"}}, static_cast<double>(f.first));
    o.Add("rxe_ud_ping_address_fetches_total", help, MetricType::Counter,
          {{"module", m}, {"result", "error"}}, static_cast<double>(f.second));
  }
  for (const auto& [dev, d] : devices_) {
    const ud::LoopCounters c = Sum(d.base, d.current);
    const auto C = MetricType::Counter;
    o.Add("rxe_ud_ping_pongs_sent_total", "Pings of other hosts answered by this device's UD QP.",
          C, {{"device", dev}}, static_cast<double>(c.pongs_sent));
    o.Add("rxe_ud_ping_malformed_total",
          "Receives on this device's ud_ping QP that were not ud_ping packets.", C,
          {{"device", dev}}, static_cast<double>(c.malformed));
    o.Add("rxe_ud_ping_skipped_rounds_total",
          "Ping rounds skipped because the device's loop fell more than one interval behind.", C,
          {{"device", dev}}, static_cast<double>(c.skipped_rounds));
    o.Add("rxe_ud_ping_not_allowed_total",
          "Pings dropped unanswered: their source GID is not a peer address or inside "
          "responder.allowed_cidrs (or the responder is disabled).",
          C, {{"device", dev}}, static_cast<double>(c.not_allowed));
  }
  return o.Take();
}

void MergeFamilies(std::vector<MetricFamily>* into, std::vector<MetricFamily> extra) {
  for (auto& f : extra) {
    auto it = std::find_if(into->begin(), into->end(),
                           [&](const MetricFamily& g) { return g.name == f.name; });
    if (it == into->end()) {
      into->push_back(std::move(f));
      continue;
    }
    it->help = f.help;  // the ud_ping help also describes the RC samples
    for (auto& m : f.metric) it->metric.push_back(std::move(m));
  }
}

}  // namespace rxe::probes
