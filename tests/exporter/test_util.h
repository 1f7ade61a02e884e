// Helpers for the exporter tests: temp dirs, files, bcrypt hashes, test
// certificates, an in-process App and the built binary as a child process.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "exporter/app.h"

namespace rxe::exporter::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, const std::string& content);
std::string ReadFile(const std::string& path);

/// A config that keeps tests hermetic: no responder port, no netlink.
std::string TestConfigYaml(const std::string& include_regex = ".*");

/// bcrypt hash of `password` with `prefix` ("$2y$", "$2b$") and `cost`.
std::string BcryptHash(const std::string& password, const std::string& prefix = "$2y$",
                       int cost = 4);

/// A CA and certificates it issued, as PEM files in a directory.
struct TestPki {
  std::string ca_cert, server_cert, server_key, client_cert, client_key;
  std::string other_ca_cert, other_client_cert, other_client_key;  // a CA the server does not trust
};
TestPki MakeTestPki(const std::string& dir);

/// Parses `args` like the command line and starts an App.
std::unique_ptr<App> StartApp(const std::vector<std::string>& args);

/// A TCP connection to 127.0.0.1:`port` (-1 on failure).
int ConnectLoopback(int port);

/// Path of the built rxe_exporter binary.
std::string BinaryPath();

/// The binary as a child process with stdout/stderr redirected to files.
class Child {
 public:
  /// `env`: extra NAME=VALUE entries for the child's environment.
  Child(const std::vector<std::string>& args, const std::string& dir,
        const std::vector<std::string>& env = {});
  ~Child();  // SIGKILL if still running
  pid_t pid() const { return pid_; }
  /// Waits up to `timeout`; returns the exit status, -1 on timeout, 128+sig if killed.
  int Wait(std::chrono::milliseconds timeout);
  std::string Stdout() const { return ReadFile(out_); }
  std::string Stderr() const { return ReadFile(err_); }
  /// Waits for the "listening" log line and returns its port (-1 on timeout).
  int WaitForListenPort(std::chrono::milliseconds timeout) const;

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  std::string out_, err_;
};

/// Runs the binary to completion; returns exit status, fills stdout/stderr.
int RunBinary(const std::vector<std::string>& args, std::string* out, std::string* err);

}  // namespace rxe::exporter::testing
