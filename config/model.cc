#include "config/model.h"

namespace rxe::config {

const char* ProbeTypeName(ProbeType t) {
  switch (t) {
    case ProbeType::kWriteBw: return "write_bw";
    case ProbeType::kSendBw: return "send_bw";
    case ProbeType::kSendLat: return "send_lat";
    case ProbeType::kWriteLat: return "write_lat";
    case ProbeType::kUdPing: return "ud_ping";
  }
  return "unknown";
}

bool IsBandwidth(ProbeType t) { return t == ProbeType::kWriteBw || t == ProbeType::kSendBw; }

}  // namespace rxe::config
