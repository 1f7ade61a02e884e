#include "tests/exporter/test_util.h"

#include <arpa/inet.h>
#include <crypt.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "exporter/cli.h"

namespace rxe::exporter::testing {

namespace {
// TLS writes to a closed socket must not kill the test binary.
const bool kIgnoreSigpipe = [] {
  signal(SIGPIPE, SIG_IGN);
  return true;
}();
}  // namespace

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "rxe_exporter_test.XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void WriteFile(const std::string& path, const std::string& content) {
  // Write + rename so that a polling reader never sees a half-written file.
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << content;
  }
  std::filesystem::rename(tmp, path);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string TestConfigYaml(const std::string& include_regex) {
  return "devices:\n  include: \"" + include_regex +
         "\"\n"
         "collectors:\n  rdma_netlink: false\n  rtnetlink: false\n  hw_counter_source: sysfs\n"
         "responder:\n  enabled: false\n";
}

std::string BcryptHash(const std::string& password, const std::string& prefix, int cost) {
  char salt[CRYPT_GENSALT_OUTPUT_SIZE];
  if (crypt_gensalt_rn(prefix.c_str(), static_cast<unsigned long>(cost), nullptr, 0, salt,
                       sizeof salt) == nullptr) {
    throw std::runtime_error("crypt_gensalt_rn failed for " + prefix);
  }
  crypt_data data{};
  const char* hash = crypt_r(password.c_str(), salt, &data);
  if (hash == nullptr || hash[0] == '*') throw std::runtime_error("crypt_r failed");
  return hash;
}

std::unique_ptr<App> StartApp(const std::vector<std::string>& args) {
  CommandLine cl = ParseCommandLine(args);
  if (cl.action != Action::kRunDaemon) throw std::runtime_error("bad test flags: " + cl.output);
  auto app = std::make_unique<App>(cl.flags);
  Status st = app->Start();
  if (!st.ok()) throw std::runtime_error("App::Start: " + st.error().message);
  return app;
}

int ConnectLoopback(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string BinaryPath() { return std::string(RXE_BINARY_DIR) + "/exporter/rxe_exporter"; }

Child::Child(const std::vector<std::string>& args, const std::string& dir,
             const std::vector<std::string>& env)
    : out_(dir + "/child.stdout"), err_(dir + "/child.stderr") {
  const std::string bin = BinaryPath();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    int out = open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out, 1);
    dup2(err, 2);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGPIPE, SIG_DFL);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    unsetenv("NOTIFY_SOCKET");
    unsetenv("WATCHDOG_USEC");
    unsetenv("WATCHDOG_PID");
    for (const auto& e : env) putenv(const_cast<char*>(e.c_str()));
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
}

Child::~Child() {
  if (!reaped_ && pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

int Child::Wait(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      reaped_ = true;
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      return 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int Child::WaitForListenPort(std::chrono::milliseconds timeout) const {
  static const std::regex re(R"(msg=listening address=\S+:(\d+))");
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::smatch m;
    const std::string err = Stderr();
    if (std::regex_search(err, m, re)) return std::stoi(m[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

int RunBinary(const std::vector<std::string>& args, std::string* out, std::string* err) {
  TempDir dir;
  Child child(args, dir.path());
  const int rc = child.Wait(std::chrono::seconds(30));
  if (out) *out = child.Stdout();
  if (err) *err = child.Stderr();
  return rc;
}

}  // namespace rxe::exporter::testing
