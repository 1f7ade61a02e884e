// probe_once: runs one probe of the verbs engine with a client and a responder
// session in ONE process (two threads, EndpointInfo exchanged in memory) on a
// local IP, i.e. over rxe loopback. Flags mirror perftest; output is a
// perftest-like table plus one machine-readable line:
//   RESULT type=write_bw ok=1 bytes=... bw_mib_s=... | ok=0 reason=... detail="..."
// --leak-check compares `rdma resource show` before and after (in-process, so
// every verbs object of both sessions must be gone), printing LEAKCHECK ok=0|1.
// --fork runs the responder in a child process instead (EndpointInfo over
// pipes, like perftest's two processes); --pin pins client/responder to CPU 0/1.
#include <algorithm>
#include <arpa/inet.h>
#include <getopt.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "probes/engine.h"
#include "probes/stats.h"
#include "tests/tools/probe_once_util.h"
#include "tests/tools/tool_args.h"

using namespace rxe::probes;
using rxe::config::ProbeType;
using namespace probe_once;

namespace {

struct Options {
  SessionParams params;
  LocalTarget where;
  double timeout_s = 0;  // 0 = duration/iterations based
  int cancel_after_ms = -1;
  uint64_t max_buffer = 64u << 20;
  bool leak_check = false;
  bool fork = false;
  bool pin = false;
};

[[noreturn]] void Usage(const char* msg) {
  std::fprintf(stderr,
               "%s\nusage: probe_once --type write_bw|send_bw|send_lat|write_lat --ip A.B.C.D\n"
               "  [-d dev] [-x gid_index] [-s size] [-m mtu] [-q qps] [-l post_list] [-Q cq_mod]\n"
               "  [-t tx_depth] [-I inline] [-D seconds] [-n iterations] [-u qp_timeout] [-e]\n"
               "  [--timeout s] [--cancel-after ms] [--max-buffer bytes] [--leak-check] [--fork]\n"
               "  [--pin]\n",
               msg);
  std::exit(2);
}

uint32_t U32(const char* s) {
  const auto v = rxe::tools::ParseU32(s);
  if (!v) Usage("bad number");
  return *v;
}

Options Parse(int argc, char** argv) {
  Options o;
  bool have_type = false, have_ip = false, have_size = false;
  static const option kLong[] = {{"type", required_argument, nullptr, 'T'},
                                 {"ip", required_argument, nullptr, 'A'},
                                 {"timeout", required_argument, nullptr, 'O'},
                                 {"cancel-after", required_argument, nullptr, 'C'},
                                 {"max-buffer", required_argument, nullptr, 'B'},
                                 {"leak-check", no_argument, nullptr, 'L'},
                                 {"fork", no_argument, nullptr, 'F'},
                                 {"pin", no_argument, nullptr, 'P'},
                                 {"size", required_argument, nullptr, 's'},
                                 {"iters", required_argument, nullptr, 'n'},
                                 {nullptr, 0, nullptr, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "d:x:s:m:q:l:Q:t:I:D:n:u:e", kLong, nullptr)) != -1) {
    switch (c) {
      case 'T': {
        const std::string t = optarg;
        if (t == "write_bw")
          o.params.type = ProbeType::kWriteBw;
        else if (t == "send_bw")
          o.params.type = ProbeType::kSendBw;
        else if (t == "send_lat")
          o.params.type = ProbeType::kSendLat;
        else if (t == "write_lat")
          o.params.type = ProbeType::kWriteLat;
        else
          Usage("unknown --type");
        have_type = true;
        break;
      }
      case 'A':
        if (inet_pton(AF_INET, optarg, &o.where.local_ip) != 1) Usage("bad --ip");
        have_ip = true;
        break;
      case 'd':
        o.where.device = optarg;
        break;
      case 'x':
        o.where.gid_index = std::atoi(optarg);
        break;
      case 's':
        o.params.size = U32(optarg);
        have_size = true;
        break;
      case 'm':
        o.params.mtu = U32(optarg);
        break;
      case 'q':
        o.params.qps = U32(optarg);
        break;
      case 'l':
        o.params.post_list = U32(optarg);
        break;
      case 'Q':
        o.params.cq_moderation = U32(optarg);
        break;
      case 'e':  // send_lat: completion events on both sides (perftest -e)
        o.params.use_event = true;
        break;
      case 'u':
        o.params.qp_timeout = static_cast<uint8_t>(std::min(U32(optarg), 31u));
        break;
      case 't':
        o.params.tx_depth = U32(optarg);
        break;
      case 'I':
        o.params.inline_size = U32(optarg);
        break;
      case 'D':
        o.params.duration =
            std::chrono::milliseconds(static_cast<int64_t>(std::atof(optarg) * 1000));
        break;
      case 'n':
        o.params.iterations = U32(optarg);
        break;
      case 'O':
        o.timeout_s = std::atof(optarg);
        break;
      case 'C':
        o.cancel_after_ms = std::atoi(optarg);
        break;
      case 'B':
        o.max_buffer = std::strtoull(optarg, nullptr, 10);
        break;
      case 'L':
        o.leak_check = true;
        break;
      case 'F':
        o.fork = true;
        break;
      case 'P':
        o.pin = true;
        break;
      default:
        Usage("bad flag");
    }
  }
  if (!have_type || !have_ip) Usage("--type and --ip are required");
  const bool bw = rxe::config::IsBandwidth(o.params.type);
  if (!have_size) o.params.size = bw ? 65536 : 2;
  if (!bw) o.params.tx_depth = 1;
  if (o.timeout_s <= 0) {
    o.timeout_s = bw ? std::chrono::duration<double>(o.params.duration).count() + 30 : 60;
  }
  return o;
}

int Fail(const Options& o, const char* stage, const ProbeFailure& f) {
  std::printf("RESULT type=%s ok=0 stage=%s reason=%s wc_status=\"%s\" detail=\"%s\"\n",
              rxe::config::ProbeTypeName(o.params.type), stage, ReasonName(f.reason),
              f.wc_status.c_str(), f.detail.c_str());
  return 1;
}

Clock::time_point Deadline(const Options& o) {
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.timeout_s));
}

// The --fork child: the responder session; `in` carries the client's info and
// then "done" (a byte or EOF), `out` our info and status bytes.
int ResponderChild(const Options& o, int in, int out) {
  PinThread(o.pin, 1);
  auto r = RdmaSession::Create(o.params, Role::kResponder, o.where, o.max_buffer);
  if (auto* f = std::get_if<ProbeFailure>(&r)) return Fail(o, "create_responder", *f);
  auto& responder = *std::get<std::unique_ptr<RdmaSession>>(r);
  char ok = 1;
  EndpointInfo client;
  if (!Put(out, &ok, 1) || !PutInfo(out, responder.Local()) || !GetInfo(in, &client)) return 1;
  if (auto f = responder.Connect(client, o.params.mtu)) return Fail(o, "connect_responder", *f);
  if (!Put(out, &ok, 1)) return 1;
  std::atomic<bool> done{false}, cancel{false};
  std::thread waiter([&] {
    char b;
    (void)!read(in, &b, 1);
    done = true;
  });
  auto f = responder.RunResponder(Deadline(o), done, cancel);
  waiter.join();
  return f ? Fail(o, "responder", *f) : 0;
}

// Creates, connects and runs both sessions; they are destroyed on return.
int RunOnce(const Options& o) {
  std::unique_ptr<RdmaSession> responder_session;
  int to_child[2] = {-1, -1}, from_child[2] = {-1, -1};
  pid_t child = -1;
  if (o.fork) {
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return 1;
    child = fork();
    if (child == 0) {
      close(to_child[1]);
      close(from_child[0]);
      _exit(ResponderChild(o, to_child[0], from_child[1]));
    }
    close(to_child[0]);
    close(from_child[1]);
  } else {
    auto r = RdmaSession::Create(o.params, Role::kResponder, o.where, o.max_buffer);
    if (auto* f = std::get_if<ProbeFailure>(&r)) return Fail(o, "create_responder", *f);
    responder_session = std::move(std::get<std::unique_ptr<RdmaSession>>(r));
  }
  // Closing the pipe tells the child we are done; reaping it gives its status.
  auto finish = [&](int rc) {
    if (child > 0) {
      close(to_child[1]);
      int status = 0;
      waitpid(child, &status, 0);
      close(from_child[0]);
      if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) rc = 1;
    }
    return rc;
  };
  EndpointInfo ri;
  char ok = 0;
  if (child > 0 && (!Get(from_child[0], &ok, 1) || !GetInfo(from_child[0], &ri))) return finish(1);
  if (responder_session) ri = responder_session->Local();

  auto c = RdmaSession::Create(o.params, Role::kClient, o.where, o.max_buffer);
  if (auto* f = std::get_if<ProbeFailure>(&c)) return finish(Fail(o, "create_client", *f));
  RdmaSession& client = *std::get<std::unique_ptr<RdmaSession>>(c);
  const EndpointInfo li = client.Local();
  std::printf(" Device %s, GID index %d, active MTU %u, QPs %zu, size %u%s\n",
              client.DeviceName().c_str(), client.GidIndex(), li.active_mtu, li.qps.size(),
              o.params.size, o.fork ? ", responder in a child process" : "");
  if (child > 0) {
    if (!PutInfo(to_child[1], li) || !Get(from_child[0], &ok, 1)) return finish(1);
  } else if (auto f = responder_session->Connect(li, o.params.mtu)) {
    return Fail(o, "connect_responder", *f);
  }
  if (auto f = client.Connect(ri, o.params.mtu)) return finish(Fail(o, "connect_client", *f));

  const auto deadline = Deadline(o);
  std::atomic<bool> done{false}, cancel{false};
  std::optional<ProbeFailure> responder_result;
  std::thread rt;
  if (responder_session) {
    rt = std::thread([&] {
      PinThread(o.pin, 1);
      responder_result = responder_session->RunResponder(deadline, done, cancel);
    });
  }
  std::thread canceller;
  if (o.cancel_after_ms >= 0) {
    canceller = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(o.cancel_after_ms));
      cancel = true;
    });
  }
  PinThread(o.pin, 0);
  ProbeResult<Measurement> result = client.RunClient(deadline, cancel);
  done.store(true, std::memory_order_release);
  if (rt.joinable()) rt.join();
  if (canceller.joinable()) canceller.join();
  const int child_rc = finish(0);

  if (auto* f = std::get_if<ProbeFailure>(&result)) return Fail(o, "client", *f);
  if (responder_result) return Fail(o, "responder", *responder_result);
  if (child_rc != 0) return child_rc;
  const Measurement& m = std::get<Measurement>(result);
  if (auto* bw = std::get_if<BandwidthMeasurement>(&m)) PrintBandwidth(o.params, *bw);
  if (auto* lat = std::get_if<LatencyMeasurement>(&m)) PrintLatency(o.params, *lat);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = Parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const std::string before = o.leak_check ? RdmaResources(o.where.device) : "";
  int rc = RunOnce(o);
  if (o.leak_check) {
    const std::string after = RdmaResources(o.where.device);
    const bool ok = before == after;
    std::printf("LEAKCHECK ok=%d before=\"%s\" after=\"%s\"\n", ok ? 1 : 0, before.c_str(),
                after.c_str());
    if (!ok && rc == 0) rc = 3;
  }
  return rc;
}
