// A fake RdmaSession for control-protocol flow tests (responder, prober,
// ProbeService) without an RDMA device. Test-only; never in the library.
#pragma once

#include <arpa/inet.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "probes/control_session.h"
#include "probes/engine.h"

namespace rxe::probes::testing {

struct FakeBehavior {
  std::optional<ProbeFailure> create_failure;
  std::optional<ProbeFailure> connect_failure;
  std::optional<ProbeFailure> run_failure;  // client side
  uint32_t active_mtu = 1024;
  std::string device = "rxe0";
  std::chrono::milliseconds client_run{20};
  bool responder_ignores_done = false;  // like a pong stuck to a vanished client
  std::function<void()> on_client_run;  // e.g. bump fixture counters

  // Observations.
  std::atomic<int> live{0};           // sessions currently alive (RAII check)
  std::atomic<int> created{0};
  std::atomic<int> responder_runs{0};
  std::atomic<int> responder_done{0};  // RunResponder saw `done`
  std::atomic<uint32_t> last_path_mtu{0};
  std::atomic<int> responder_use_event{-1};  // use_event of the last responder session (-1: none)
  std::mutex mu;
  std::string last_local_ip;
};

class FakeSession : public RdmaSession {
 public:
  FakeSession(std::shared_ptr<FakeBehavior> b, SessionParams p, Role /*role*/, in_addr ip)
      : b_(std::move(b)), p_(p) {
    ++b_->live;
    ++b_->created;
    local_.gid[10] = 0xff;
    local_.gid[11] = 0xff;
    std::memcpy(&local_.gid[12], &ip, 4);
    for (uint32_t i = 0; i < p.qps; ++i) local_.qps.push_back({100 + i, 1000 + i});
    local_.addr = 0x1000;
    local_.rkey = 77;
    local_.buffer_bytes = p.size;
    local_.active_mtu = b_->active_mtu;
  }
  ~FakeSession() override { --b_->live; }
  EndpointInfo Local() const override { return local_; }
  std::string DeviceName() const override { return b_->device; }
  int GidIndex() const override { return 1; }
  std::optional<ProbeFailure> Connect(const EndpointInfo&, uint32_t mtu) override {
    b_->last_path_mtu = mtu;
    return b_->connect_failure;
  }
  ProbeResult<Measurement> RunClient(Clock::time_point deadline,
                                     const std::atomic<bool>& cancel) override {
    if (b_->on_client_run) b_->on_client_run();
    auto until = Clock::now() + b_->client_run;
    while (Clock::now() < until) {
      if (cancel) return ProbeFailure{FailureReason::kTimeout, "cancelled", ""};
      if (Clock::now() >= deadline) return ProbeFailure{FailureReason::kTimeout, "deadline", ""};
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (b_->run_failure) return *b_->run_failure;
    if (config::IsBandwidth(p_.type)) {
      return Measurement{BandwidthMeasurement{uint64_t{p_.size} * 100, 100, b_->client_run}};
    }
    LatencyMeasurement lat;
    for (int i = 0; i < 100; ++i) lat.rtt_seconds.push_back(20e-6 + i * 1e-7);
    return Measurement{lat};
  }
  std::optional<ProbeFailure> RunResponder(Clock::time_point deadline, const std::atomic<bool>& done,
                                           const std::atomic<bool>& cancel) override {
    ++b_->responder_runs;
    while ((!done || b_->responder_ignores_done) && !cancel && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (done) ++b_->responder_done;
    return std::nullopt;
  }

 private:
  std::shared_ptr<FakeBehavior> b_;
  SessionParams p_;
  EndpointInfo local_;
};

inline SessionFactory FakeFactory(std::shared_ptr<FakeBehavior> b) {
  return [b](const SessionParams& p, Role role, const LocalTarget& where,
             uint64_t) -> ProbeResult<std::unique_ptr<RdmaSession>> {
    if (b->create_failure) return *b->create_failure;
    if (role == Role::kResponder) b->responder_use_event = p.use_event ? 1 : 0;
    {
      std::lock_guard<std::mutex> lock(b->mu);
      char buf[INET_ADDRSTRLEN] = {0};
      ::inet_ntop(AF_INET, &where.local_ip, buf, sizeof buf);
      b->last_local_ip = buf;
    }
    return std::unique_ptr<RdmaSession>(std::make_unique<FakeSession>(b, p, role, where.local_ip));
  };
}

}  // namespace rxe::probes::testing
