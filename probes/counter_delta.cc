#include "probes/counter_delta.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace rxe::probes {
namespace {

bool ReadU64File(const std::string& path, uint64_t& value) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[64];
  ssize_t n;
  do {
    n = ::read(fd, buf, sizeof buf - 1);
  } while (n < 0 && errno == EINTR);
  ::close(fd);
  if (n <= 0) return false;
  size_t len = static_cast<size_t>(n);
  while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == ' ')) --len;
  auto [p, ec] = std::from_chars(buf, buf + len, value);
  return ec == std::errc() && p == buf + len && len > 0;
}

}  // namespace

CounterSnapshot ReadHwCounters(const std::string& sysfs_root, const std::string& device) {
  CounterSnapshot snap;
  if (device.empty() || device.find('/') != std::string::npos || device == "..") return snap;
  std::string dir = sysfs_root + "/class/infiniband/" + device + "/ports/1/hw_counters/";
  for (std::string_view name : kAttributedCounters) {
    uint64_t v = 0;
    if (ReadU64File(dir + std::string(name), v)) snap.emplace(name, v);
  }
  return snap;
}

CounterSnapshot CounterDeltas(const CounterSnapshot& before, const CounterSnapshot& after) {
  CounterSnapshot d;
  for (const auto& [name, a] : after) {
    auto it = before.find(name);
    if (it == before.end()) continue;
    d[name] = a >= it->second ? a - it->second : 0;
  }
  return d;
}

DeviceActivity::Token DeviceActivity::Enter(const std::string& device, uint64_t group) {
  std::lock_guard<std::mutex> lock(mu_);
  Entry e{device, group, false};
  for (auto& [tok, other] : active_) {
    if (other.device == device && other.group != group) {
      other.disturbed = true;
      e.disturbed = true;
    }
  }
  Token t = next_++;
  active_.emplace(t, std::move(e));
  return t;
}

bool DeviceActivity::Exit(Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = active_.find(token);
  if (it == active_.end()) return false;
  bool alone = !it->second.disturbed;
  active_.erase(it);
  return alone;
}

size_t DeviceActivity::ActiveOn(const std::string& device) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& [tok, e] : active_) n += e.device == device ? 1 : 0;
  return n;
}

}  // namespace rxe::probes
