// Per-probe hw counter attribution: snapshot a device's rxe hw counters
// before and after a probe and attribute the deltas to the probe, but only if
// nothing else (another probe or a responder session of another prober) used
// the device meanwhile (DeviceActivity).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>

namespace rxe::probes {

/// The counters attributed to probes (rxe names; loss, reordering, RNR).
inline constexpr std::array<std::string_view, 8> kAttributedCounters = {
    "completer_retry_err", "retry_exceeded_err", "rcvd_seq_err",  "out_of_seq_request",
    "duplicate_request",   "rcvd_rnr_err",       "send_rnr_err", "retry_rnr_exceeded_err"};

using CounterSnapshot = std::map<std::string, uint64_t>;

/// Reads kAttributedCounters of port 1 from
/// <sysfs_root>/class/infiniband/<device>/ports/1/hw_counters/<name>.
/// Missing or unparsable files are left out (one bounded read per file).
CounterSnapshot ReadHwCounters(const std::string& sysfs_root, const std::string& device);

/// after - before for names present in both; a counter that went backwards
/// (device re-created) gives 0.
CounterSnapshot CounterDeltas(const CounterSnapshot& before, const CounterSnapshot& after);

/// Which sessions use which device right now. A session belongs to a group
/// (the control-protocol client nonce), so the client and responder halves of
/// one loopback probe (peer = self) do not disturb each other. Thread-safe.
class DeviceActivity {
 public:
  using Token = uint64_t;
  Token Enter(const std::string& device, uint64_t group);
  /// True if no session of another group used the device between Enter and Exit.
  bool Exit(Token token);
  size_t ActiveOn(const std::string& device) const;

 private:
  struct Entry {
    std::string device;
    uint64_t group = 0;
    bool disturbed = false;
  };
  mutable std::mutex mu_;
  std::map<Token, Entry> active_;
  Token next_ = 1;
};

}  // namespace rxe::probes
