// Limits of one HTTP listener (flags --web.max-connections, --web.read-timeout,
// --web.max-header-bytes) and the pure check of a buffered request head.
#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

namespace rxe::exporter {

struct HttpLimits {
  /// Open connections per listener; at the cap, a new connection evicts the
  /// oldest one that is idle or still sending its request, else it is closed.
  size_t max_connections = 64;
  /// Whole-request deadline: the request line, all headers and the body must
  /// arrive within this time of the first byte (also the TLS handshake).
  std::chrono::milliseconds read_timeout{5000};
  /// Request line plus header lines, in bytes; more gets 431.
  size_t max_header_bytes = 16 * 1024;
  /// Header lines (not counting the request line); more gets 431.
  size_t max_header_lines = 100;
  /// An idle keep-alive connection is closed after this.
  std::chrono::milliseconds idle_timeout{1000};
  /// Requests served on one connection.
  size_t max_requests_per_connection = 100;
  /// The whole response must be sent within this of its first byte (Prometheus's default
  /// scrape_timeout is 10 s too).
  std::chrono::milliseconds write_timeout{10000};
};

enum class HeadState {
  kIncomplete,    // no blank line yet, within the limits: read more
  kComplete,      // the head ends at `size`
  kTooLarge,      // longer than max_header_bytes without its blank line
  kTooManyLines,  // more than max_header_lines header lines
};

struct HeadScan {
  HeadState state = HeadState::kIncomplete;
  size_t size = 0;  // bytes of the head including its final CRLF CRLF (kComplete)
};

/// Looks for the end of a request head ("\r\n\r\n") at the start of `buf`.
HeadScan ScanRequestHead(std::string_view buf, size_t max_header_bytes, size_t max_header_lines);

}  // namespace rxe::exporter
