#include "probes/verbs_poll.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace rxe::probes {

ProbeFailure WcFailure(const ibv_wc& wc, const char* what) {
  char detail[160];
  std::snprintf(detail, sizeof(detail), "%s completion error on QP %u: %s (vendor_err 0x%x)", what,
                wc.qp_num, ibv_wc_status_str(wc.status), wc.vendor_err);
  return ProbeFailure{FailureReason::kWcError, detail, ibv_wc_status_str(wc.status)};
}

ProbeFailure PollFailure(int ret, const char* what) {
  return ProbeFailure{FailureReason::kInternal,
                      std::string("ibv_poll_cq (") + what + ") failed: " + std::to_string(ret), ""};
}

std::optional<ProbeFailure> WaitOne(ibv_cq* cq, StopCheck& stop, const char* what, ibv_wc* wc,
                                    bool stop_on_done) {
  for (;;) {
    int n = ibv_poll_cq(cq, 1, wc);
    if (n > 0) {
      if (wc->status != IBV_WC_SUCCESS) return WcFailure(*wc, what);
      return std::nullopt;
    }
    if (n < 0) return PollFailure(n, what);
    if (auto f = stop.Check()) return f;
    if (stop_on_done && stop.Done()) {
      return ProbeFailure{FailureReason::kInternal, "peer finished early", ""};
    }
  }
}

std::vector<double> StampDeltasSeconds(const std::vector<Clock::time_point>& t) {
  std::vector<double> out;
  if (t.size() < 2) return out;
  out.reserve(t.size() - 1);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    out.push_back(std::chrono::duration<double>(t[i + 1] - t[i]).count());
  }
  return out;
}

}  // namespace rxe::probes
