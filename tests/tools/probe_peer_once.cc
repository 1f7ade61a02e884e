// probe_peer_once: runs ONE probe against a remote responder over the control
// protocol (probes/prober.h RunProbe, exactly what the daemon's scheduler
// runs), with an optional pre-shared key, and prints a perftest-like table plus
//   RESULT type=write_bw ok=1 bytes=... bw_mib_s=... | ok=0 reason=... detail="..."
// Used by the lab cases (tests/lab/cases/responder_security.sh) as a good
// client, a client with a wrong key and a client from an unlisted address.
//
//   probe_peer_once --peer ADDR [--port N] [--type write_bw|send_bw|send_lat|write_lat]
//     [--psk-file FILE] [-s size] [-q qps] [-t tx_depth] [-D seconds] [-n iterations]
//     [-u qp_timeout] [--timeout seconds] [--max-buffer bytes]
// Exit status: 0 probe succeeded, 1 probe failed, 2 usage or unreadable key.
#include <getopt.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/log.h"
#include "probes/auth.h"
#include "probes/prober.h"
#include "tests/tools/probe_once_util.h"
#include "tests/tools/tool_args.h"

using namespace rxe::probes;
using rxe::config::ProbeType;

namespace {

[[noreturn]] void Usage(const char* msg) {
  std::fprintf(stderr,
               "%s\nusage: probe_peer_once --peer ADDR [--port N] [--type TYPE] [--psk-file FILE]\n"
               "  [-s size] [-q qps] [-t tx_depth] [-D seconds] [-n iterations] [-u qp_timeout]\n"
               "  [--timeout s]"
               " [--max-buffer bytes] [--debug]\n",
               msg);
  std::exit(2);
}

uint32_t U32(const char* s) {
  const auto v = rxe::tools::ParseU32(s);
  if (!v) Usage("bad number");
  return *v;
}

std::chrono::milliseconds Ms(const char* s) {
  return std::chrono::milliseconds(static_cast<int64_t>(std::atof(s) * 1000));
}

}  // namespace

int main(int argc, char** argv) {
  rxe::config::Module module;
  module.name = "probe_peer_once";
  rxe::config::Peer peer;
  peer.name = "peer";
  std::string psk_file;
  bool debug = false, have_timeout = false;
  ProberEnv env;
  static const option kLong[] = {{"peer", required_argument, nullptr, 'A'},
                                 {"port", required_argument, nullptr, 'P'},
                                 {"type", required_argument, nullptr, 'T'},
                                 {"psk-file", required_argument, nullptr, 'K'},
                                 {"timeout", required_argument, nullptr, 'O'},
                                 {"max-buffer", required_argument, nullptr, 'B'},
                                 {"debug", no_argument, nullptr, 'G'},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "s:q:t:D:n:u:", kLong, nullptr)) != -1) {
    switch (c) {
      case 'A': peer.address = optarg; break;
      case 'P': peer.port = static_cast<uint16_t>(U32(optarg)); break;
      case 'T': {
        const std::string t = optarg;
        if (t == "write_bw") module.type = ProbeType::kWriteBw;
        else if (t == "send_bw") module.type = ProbeType::kSendBw;
        else if (t == "send_lat") module.type = ProbeType::kSendLat;
        else if (t == "write_lat") module.type = ProbeType::kWriteLat;
        else Usage("unknown --type");
        break;
      }
      case 'K': psk_file = optarg; break;
      case 'O':
        module.timeout = Ms(optarg);
        have_timeout = true;
        break;
      case 'B': env.max_buffer_bytes = std::strtoull(optarg, nullptr, 10); break;
      case 'G': debug = true; break;
      case 's': module.size = U32(optarg); break;
      case 'q': module.qps = U32(optarg); break;
      case 't': module.tx_depth = U32(optarg); break;
      case 'D': module.duration = Ms(optarg); break;
      case 'n': module.iterations = U32(optarg); break;
      case 'u': {
        const uint32_t v = U32(optarg);
        if (v > 31) Usage("-u: qp_timeout is 0..31");
        module.qp_timeout = v;
        break;
      }
      default: Usage("bad flag");
    }
  }
  if (peer.address.empty()) Usage("--peer is required");
  if (!have_timeout) {
    module.timeout = rxe::config::IsBandwidth(module.type)
                         ? module.duration + std::chrono::seconds(10)
                         : rxe::config::Duration(std::chrono::seconds(30));
  }
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  rxe::log::Init(debug ? rxe::log::Level::kDebug : rxe::log::Level::kWarn, rxe::log::Format::kLogfmt);
  if (!psk_file.empty()) {
    auto key = auth::LoadPsk(psk_file);
    if (!key.ok()) {
      std::fprintf(stderr, "psk: %s\n", key.error().message.c_str());
      return 2;
    }
    env.psk = std::move(*key);
  }
  env.factory = DefaultSessionFactory();
  std::atomic<bool> cancel{false};
  ProbeOutcome out = RunProbe(module, peer, env, cancel);
  const double secs = std::chrono::duration<double>(out.duration).count();
  if (!out.success || !out.measurement) {
    const ProbeFailure f = out.failure.value_or(ProbeFailure{FailureReason::kInternal, "no result", ""});
    std::printf("RESULT type=%s ok=0 reason=%s duration_s=%.3f wc_status=\"%s\" detail=\"%s\"\n",
                rxe::config::ProbeTypeName(module.type), probe_once::ReasonName(f.reason), secs,
                f.wc_status.c_str(), f.detail.c_str());
    return 1;
  }
  std::printf(" Peer %s:%u, device %s, path MTU %u, probe %.3f s (set-up included)\n",
              peer.address.c_str(), peer.port, out.device.c_str(), out.path_mtu, secs);
  if (auto* bw = std::get_if<BandwidthMeasurement>(&*out.measurement)) {
    probe_once::PrintBandwidth(out.params, *bw);
  }
  if (auto* lat = std::get_if<LatencyMeasurement>(&*out.measurement)) {
    probe_once::PrintLatency(out.params, *lat);
  }
  return 0;
}
