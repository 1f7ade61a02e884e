#include "exporter/http_limits.h"

namespace rxe::exporter {

HeadScan ScanRequestHead(std::string_view buf, size_t max_header_bytes, size_t max_header_lines) {
  const std::string_view window = buf.substr(0, max_header_bytes);
  size_t lines = 0;  // CRLFs seen: the request line's, then one per header line
  for (size_t pos = 0;;) {
    const size_t crlf = window.find("\r\n", pos);
    if (crlf == std::string_view::npos) break;
    if (crlf == pos && lines > 0) return {HeadState::kComplete, crlf + 2};
    if (++lines > max_header_lines + 1) return {HeadState::kTooManyLines, 0};
    pos = crlf + 2;
  }
  if (buf.size() >= max_header_bytes) return {HeadState::kTooLarge, 0};
  return {HeadState::kIncomplete, 0};
}

}  // namespace rxe::exporter
