// Lab tool: runs one device's ud_ping loop (long-lived UD endpoint + pinger) for a
// while. The endpoint's address (GID, QPN, Q_Key) is published to a file and the
// peers' addresses are read from theirs (the lab's stand-in for the control-protocol
// exchange). Prints a per-peer delta line every --report-ms and a summary at the end:
//   report t_ms=T peer=P sent=N received=N lost=N send_errors=N
//   summary peer=P sent=N received=N lost=N send_errors=N loss_pct=X samples=N invalid=N
//           rtt_min_us=X rtt_p10_us=X rtt_median_us=X rtt_p99_us=X total_median_us=X responder_median_us=X
//   loop pongs_sent=N malformed=N unmatched_pongs=N no_send_slot=N skipped_rounds=N wc_errors=N
#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "probes/gid_select.h"
#include "probes/ud_pinger.h"
#include "tests/tools/tool_args.h"

namespace {

using namespace rxe::probes;
using std::chrono::milliseconds;

int Usage() {
  std::cerr << "usage: ud_ping_once --local-ip IP --publish FILE [--interval-ms 100] "
               "[--timeout-ms 500] [--duration-ms 30000] [--report-ms 1000] [--linger-ms 5000] "
               "[--size 64] PEER_FILE...\n";
  return 2;
}

std::string Hex(const Gid& g) {
  std::string s;
  char b[3];
  for (uint8_t v : g) {
    std::snprintf(b, sizeof b, "%02x", v);
    s += b;
  }
  return s;
}

bool ParseHexGid(const std::string& s, Gid* g) {
  if (s.size() != 32) return false;
  for (size_t i = 0; i < 16; ++i) {
    unsigned v = 0;
    if (std::sscanf(s.c_str() + 2 * i, "%2x", &v) != 1) return false;
    (*g)[i] = static_cast<uint8_t>(v);
  }
  return true;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  std::string local_ip, publish;
  uint32_t interval_ms = 100, timeout_ms = 500, duration_ms = 30000, report_ms = 1000,
           linger_ms = 5000, size = 64;
  std::vector<std::string> peer_files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto num = [&](uint32_t* out) {
      if (i + 1 >= argc) return false;
      auto v = rxe::tools::ParseU32(argv[++i]);
      if (!v) return false;
      *out = *v;
      return true;
    };
    bool ok = true;
    if (a == "--local-ip" && i + 1 < argc) local_ip = argv[++i];
    else if (a == "--publish" && i + 1 < argc) publish = argv[++i];
    else if (a == "--interval-ms") ok = num(&interval_ms);
    else if (a == "--timeout-ms") ok = num(&timeout_ms);
    else if (a == "--duration-ms") ok = num(&duration_ms);
    else if (a == "--report-ms") ok = num(&report_ms);
    else if (a == "--linger-ms") ok = num(&linger_ms);
    else if (a == "--size") ok = num(&size);
    else if (!a.empty() && a[0] != '-') peer_files.push_back(a);
    else ok = false;
    if (!ok) return Usage();
  }
  LocalTarget where;
  if (local_ip.empty() || publish.empty() || inet_pton(AF_INET, local_ip.c_str(), &where.local_ip) != 1 ||
      report_ms == 0) {
    return Usage();
  }
  ud::EndpointOptions eo;
  eo.message_bytes = size;
  auto created = ud::Endpoint::Create(where, eo);
  if (auto* f = std::get_if<ProbeFailure>(&created)) {
    std::cerr << "ud_ping_once: endpoint: " << FailureReasonName(f->reason) << ": " << f->detail
              << "\n";
    return 1;
  }
  auto ep = std::move(std::get<std::unique_ptr<ud::Endpoint>>(created));
  const ud::EndpointAddress me = ep->Address();
  std::cout << "endpoint device=" << ep->device() << " gid_index=" << ep->gid_index()
            << " gid=" << GidToString(me.gid) << " qpn=" << me.qpn << " qkey=" << me.qkey
            << std::endl;
  {
    const std::string tmp = publish + ".tmp";
    std::ofstream(tmp) << Hex(me.gid) << " " << me.qpn << " " << me.qkey << "\n";
    std::filesystem::rename(tmp, publish);
  }
  ud::Pinger pinger(std::move(ep), {milliseconds(interval_ms), milliseconds(timeout_ms)});
  if (!pinger.Start()) return 1;

  std::vector<ud::PeerTarget> peers;
  const auto wait_until = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  for (const auto& file : peer_files) {
    while (!std::filesystem::exists(file)) {
      if (std::chrono::steady_clock::now() > wait_until) {
        std::cerr << "ud_ping_once: peer file " << file << " never appeared\n";
        return 1;
      }
      std::this_thread::sleep_for(milliseconds(100));
    }
    std::ifstream in(file);
    std::string gid_hex;
    ud::PeerTarget t;
    t.name = std::filesystem::path(file).filename();
    if (!(in >> gid_hex >> t.address.qpn >> t.address.qkey) || !ParseHexGid(gid_hex, &t.address.gid)) {
      std::cerr << "ud_ping_once: " << file << ": expected '<32 hex GID> <qpn> <qkey>'\n";
      return 1;
    }
    peers.push_back(t);
  }
  std::cout << "pinging " << peers.size() << " peers" << std::endl;
  pinger.SetPeers(peers);

  const auto start = std::chrono::steady_clock::now();
  std::map<std::string, ud::PeerReport> total;
  std::map<std::string, std::vector<double>> rtt, tot, resp;
  std::map<std::string, uint64_t> invalid;  // samples with total < responder delay
  auto collect = [&](bool print) {
    const long t_ms = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start).count();
    for (auto& r : pinger.TakeReport()) {
      ud::PeerReport& prev = total[r.name];
      if (print) {
        std::cout << "report t_ms=" << t_ms << " peer=" << r.name << " sent=" << r.sent - prev.sent
                  << " received=" << r.received - prev.received << " lost=" << r.lost - prev.lost
                  << " send_errors=" << r.send_errors - prev.send_errors << "\n";
      }
      for (const auto& s : r.samples) {
        if (!s.valid) {
          ++invalid[r.name];
          continue;
        }
        rtt[r.name].push_back(s.network_seconds * 1e6);
        tot[r.name].push_back(s.total_seconds * 1e6);
        resp[r.name].push_back(s.responder_seconds * 1e6);
      }
      r.samples.clear();
      prev = r;
    }
    std::cout.flush();
  };
  for (uint32_t t = report_ms; t <= duration_ms; t += report_ms) {
    std::this_thread::sleep_until(start + milliseconds(t));
    collect(true);
  }
  for (const auto& [name, r] : total) {
    const uint64_t answered = r.received + r.lost;
    std::printf("summary peer=%s sent=%lu received=%lu lost=%lu send_errors=%lu loss_pct=%.2f "
                "samples=%zu invalid=%lu rtt_min_us=%.1f rtt_p10_us=%.1f rtt_median_us=%.1f rtt_p99_us=%.1f "
                "total_median_us=%.1f "
                "responder_median_us=%.1f\n",
                name.c_str(), r.sent, r.received, r.lost, r.send_errors,
                answered ? 100.0 * static_cast<double>(r.lost) / static_cast<double>(answered) : -1.0,
                rtt[name].size(), invalid[name], Quantile(rtt[name], 0), Quantile(rtt[name], 0.1),
                Quantile(rtt[name], 0.5), Quantile(rtt[name], 0.99),
                Quantile(tot[name], 0.5), Quantile(resp[name], 0.5));
  }
  std::fflush(stdout);
  // Keep answering the peers' pings while they finish their own runs.
  pinger.SetPeers({});
  std::this_thread::sleep_for(milliseconds(linger_ms));
  const auto c = pinger.counters();
  std::printf("loop pongs_sent=%lu malformed=%lu unmatched_pongs=%lu no_send_slot=%lu "
              "skipped_rounds=%lu wc_errors=%lu\n",
              c.pongs_sent, c.malformed, c.unmatched_pongs, c.no_send_slot, c.skipped_rounds,
              c.wc_errors);
  return 0;
}
