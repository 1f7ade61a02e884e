// One accepted HTTP(S) connection as an httplib::Stream. Reads go through a
// buffer that first receives the whole request head (bounded in size and
// time, see HttpLimits), so httplib parses only a head that fits the limits;
// every read of a request shares one deadline.
#pragma once

#include <httplib.h>
#include <openssl/ssl.h>

#include <chrono>
#include <optional>
#include <string>

#include "exporter/http_limits.h"

namespace rxe::exporter {

class HttpConnection : public httplib::Stream {
 public:
  using Clock = std::chrono::steady_clock;

  /// Takes ownership of `fd` (non-blocking). `ctx` non-null = TLS.
  HttpConnection(int fd, SSL_CTX* ctx, const HttpLimits& limits);
  ~HttpConnection() override;
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  /// TLS handshake (no-op for plain HTTP); false on failure or at `deadline`.
  bool Handshake(Clock::time_point deadline);
  /// Waits until a request byte is available; false on EOF, error or `deadline`.
  bool WaitForRequest(Clock::time_point deadline);

  enum class HeadResult { kComplete, kClosed, kTooLarge };
  /// Buffers the request head; reads of this request then share `deadline`.
  HeadResult ReadHead(Clock::time_point deadline);
  /// Drops what the last request consumed from the buffer (keeps pipelined bytes).
  void FinishRequest();
  /// Writes a complete response with no body processing (431, 503).
  void WriteRaw(const std::string& response);
  /// After an early response (431): stops sending and discards what the
  /// client still sends, for a short bounded time, so that closing does not
  /// reset the connection before the client has read the response.
  void LingeringClose();
  SSL* ssl() const { return ssl_; }

  // httplib::Stream
  bool is_readable() const override;
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return fd_; }

 private:
  /// One read from the socket (or TLS) into `out`; -1 on error/timeout, 0 on EOF.
  ssize_t ReadSome(char* out, size_t size, Clock::time_point deadline);
  bool Poll(short events, Clock::time_point deadline) const;

  int fd_;
  SSL* ssl_ = nullptr;
  bool tls_failed_ = false;  // a TLS listener could not make the SSL object: never serve plain text
  const HttpLimits limits_;
  std::string buf_;
  size_t pos_ = 0;  // consumed bytes of buf_
  Clock::time_point read_deadline_;
  std::optional<Clock::time_point> write_deadline_;  // of the response being written
};

}  // namespace rxe::exporter
