// The send slots of the ud_ping endpoint, pure (no verbs): which slots are free, which
// sends are posted (in post order), and which send asks for a completion. Most sends are
// posted unsignaled: no CQE, no completion-channel event, no wake-up of the loop for them.
// A UD QP completes its sends in order, so a signaled send's completion (or any failed
// send's: a send that fails always completes, signaled or not, and so does every send
// flushed from a QP in the error state) also completes every send posted before it; their
// slots are freed then. The QP needs IBV_SEND_SIGNALED per send (sq_sig_all = 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "probes/gid_select.h"

namespace rxe::probes::ud {

class SendSlots {
 public:
  /// `slots` send slots; a send is signaled at least every `signal_every` sends (>= 1).
  SendSlots(uint32_t slots, uint32_t signal_every);

  /// A free slot, or nullopt when every slot is posted (and not yet known complete).
  std::optional<uint32_t> Acquire();
  /// An acquired slot whose send was not posted: free again.
  void Release(uint32_t slot);
  /// Whether the send about to be posted (its slot acquired) must be signaled: every
  /// signal_every-th send, and the one that took the last free slot (otherwise the
  /// unsignaled sends before it could never be reclaimed: no slot would be left to post
  /// the signaled send that completes them).
  bool ShouldSignal() const { return unsignaled_run_ + 1 >= signal_every_ || free_.empty(); }
  /// The acquired `slot`'s send was posted to `to`, with `tag` (returned by tag()).
  void Posted(uint32_t slot, uint64_t tag, const Gid& to, bool signaled);
  /// The tag of a posted slot (meaningful until it is freed; 0 for a slot out of range).
  uint64_t tag(uint32_t slot) const { return slot < slots_.size() ? slots_[slot].tag : 0; }
  /// A send completion for `slot` arrived: frees the sends posted before it (completed, in
  /// order) and `slot` itself, oldest first, calling on_free(slot, destination) for each.
  /// A slot that is not posted (duplicate or unknown completion) frees nothing.
  template <class F>
  size_t Complete(uint32_t slot, F&& on_free) {
    if (slot >= slots_.size() || !slots_[slot].posted) return 0;
    size_t n = 0;
    for (bool done = false; !done;) {
      const uint32_t s = posted_.front();
      posted_.pop_front();
      slots_[s].posted = false;
      free_.push_back(s);
      on_free(s, slots_[s].to);
      ++n;
      done = s == slot;
    }
    return n;
  }

  size_t free_count() const { return free_.size(); }
  size_t posted_count() const { return posted_.size(); }

 private:
  struct Slot {
    uint64_t tag = 0;
    Gid to{};
    bool posted = false;
  };
  uint32_t signal_every_;
  uint32_t unsignaled_run_ = 0;  // unsignaled sends posted since the last signaled one
  std::vector<uint32_t> free_;   // a stack: the most recently freed slot is reused first
  std::deque<uint32_t> posted_;  // post order
  std::vector<Slot> slots_;
};

}  // namespace rxe::probes::ud
