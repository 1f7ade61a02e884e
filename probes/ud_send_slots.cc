#include "probes/ud_send_slots.h"

#include <algorithm>

namespace rxe::probes::ud {

SendSlots::SendSlots(uint32_t slots, uint32_t signal_every)
    : signal_every_(std::max<uint32_t>(signal_every, 1)), slots_(slots) {
  free_.reserve(slots);
  for (uint32_t s = slots; s > 0; --s) free_.push_back(s - 1);
}

std::optional<uint32_t> SendSlots::Acquire() {
  if (free_.empty()) return std::nullopt;
  const uint32_t s = free_.back();
  free_.pop_back();
  return s;
}

void SendSlots::Release(uint32_t slot) { free_.push_back(slot); }

void SendSlots::Posted(uint32_t slot, uint64_t tag, const Gid& to, bool signaled) {
  slots_[slot] = Slot{tag, to, true};
  posted_.push_back(slot);
  unsignaled_run_ = signaled ? 0 : unsignaled_run_ + 1;
}

}  // namespace rxe::probes::ud
