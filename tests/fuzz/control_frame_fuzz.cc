// Control protocol (TCP 19792): any bytes must decode to a message or a WireError, and every
// message that decodes must encode and decode to the same bytes again.
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "probes/control_protocol.h"

using namespace rxe::probes::control;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> buf(data, data + size);
  auto r = DecodeFrame(buf, kDefaultMaxMessageBytes);
  if (const auto* m = std::get_if<Message>(&r)) {
    auto again = DecodeFrame(Encode(*m), kDefaultMaxMessageBytes);
    if (!std::holds_alternative<Message>(again)) std::abort();  // Encode made an undecodable frame
  }
  if (size > 0) (void)DecodeBody(static_cast<MessageType>(data[0] % 16), std::vector<uint8_t>(data + 1, data + size));
  return 0;
}
