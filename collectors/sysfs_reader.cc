#include "collectors/sysfs_reader.h"

#include <algorithm>
#include <charconv>

#include "collectors/sysfs_file.h"

namespace rxe::collectors {
namespace {

// Reads an optional attribute and parses it with `parse`; absent -> nullopt,
// read or parse failures are recorded in `errors`.
template <typename T, typename Parse>
std::optional<T> ReadParsed(const SysfsDir& dir, std::string_view name, Parse parse,
                            std::vector<Error>& errors) {
  auto text = dir.ReadOptional(name);
  if (!text.ok()) {
    errors.push_back(text.error());
    return std::nullopt;
  }
  if (!text->has_value()) return std::nullopt;
  auto parsed = parse(**text);
  if (!parsed.ok()) {
    errors.push_back(parsed.error().Wrap(dir.path() + "/" + std::string(name)));
    return std::nullopt;
  }
  return std::move(*parsed);
}

std::optional<std::string> ReadString(const SysfsDir& dir, std::string_view name,
                                      std::vector<Error>& errors) {
  auto text = dir.ReadOptional(name);
  if (!text.ok()) {
    errors.push_back(text.error());
    return std::nullopt;
  }
  return std::move(*text);
}

// Opens a subdirectory; absent -> invalid SysfsDir, other errors recorded.
SysfsDir OpenOptionalDir(const SysfsDir& dir, std::string_view name, std::vector<Error>& errors) {
  auto sub = dir.OpenSub(name);
  if (sub.ok()) return std::move(*sub);
  if (!IsAbsentErrno(sub.error().sys_errno) && sub.error().sys_errno != ENOTDIR) {
    errors.push_back(sub.error());
  }
  return SysfsDir();
}

// Reads every regular file of `dir` as a counter (counters/, hw_counters/).
NamedCounters ReadCounterDir(const SysfsDir& dir, std::vector<Error>& errors) {
  NamedCounters out;
  auto entries = dir.List();
  if (!entries.ok()) {
    errors.push_back(entries.error());
    return out;
  }
  std::sort(entries->begin(), entries->end(),
            [](const DirEntry& a, const DirEntry& b) { return a.name < b.name; });
  out.reserve(entries->size());
  for (const DirEntry& e : *entries) {
    // hw_counters/lifespan is the refresh interval in ms (a setting, RW).
    if (!e.is_file || e.name == "lifespan") continue;
    auto value = ReadParsed<std::optional<uint64_t>>(dir, e.name, ParseCounter, errors);
    if (value && *value) out.emplace_back(e.name, **value);
  }
  return out;
}

constexpr std::string_view kZeroGidText = "0000:0000:0000:0000:0000:0000:0000:0000";

void ReadGids(const SysfsDir& port_dir, int max_gids, PortInfo& port, std::vector<Error>& errors) {
  if (max_gids <= 0) return;
  SysfsDir gids = OpenOptionalDir(port_dir, "gids", errors);
  if (!gids.valid()) return;
  SysfsDir types;  // opened on the first non-zero GID
  SysfsDir ndevs;
  int empty_run = 0;
  char buf[kMaxAttrBytes];
  for (int index = 0; static_cast<int>(port.gids.size()) < max_gids; ++index) {
    char name[16];
    const auto conv = std::to_chars(name, name + sizeof(name), index);
    const std::string_view idx(name, static_cast<size_t>(conv.ptr - name));
    auto n = gids.ReadInto(idx, buf, sizeof(buf));
    if (!n.ok()) {
      if (n.error().sys_errno == ENOENT) break;  // past the end of the table
      if (!IsAbsentErrno(n.error().sys_errno)) {
        errors.push_back(n.error());
        break;
      }
      if (++empty_run >= kMaxEmptyGidRun) break;
      continue;
    }
    const std::string_view text = TrimSysfsValue(std::string_view(buf, *n));
    if (text == kZeroGidText) {  // the common case: skip without parsing
      if (++empty_run >= kMaxEmptyGidRun) break;
      continue;
    }
    auto gid = ParseGid(text);
    if (!gid.ok()) {
      errors.push_back(gid.error().Wrap(gids.path() + "/" + std::string(idx)));
      continue;
    }
    if (gid->IsZero()) {
      if (++empty_run >= kMaxEmptyGidRun) break;
      continue;
    }
    empty_run = 0;
    // Only non-zero GIDs get their attributes read: an empty slot's type
    // fails with EINVAL anyway, and this keeps the scan to one file per slot.
    if (!types.valid()) {
      types = OpenOptionalDir(port_dir, "gid_attrs/types", errors);
      ndevs = OpenOptionalDir(port_dir, "gid_attrs/ndevs", errors);
      if (!types.valid()) break;  // pre-4.x kernel without gid_attrs
    }
    auto type = ReadParsed<GidType>(types, idx, ParseGidType, errors);
    if (!type) continue;  // EINVAL: the slot was emptied between the two reads
    GidEntry entry;
    entry.index = index;
    entry.gid = std::move(*gid);
    entry.type = *type;
    if (ndevs.valid()) entry.netdev = ReadString(ndevs, idx, errors);
    port.gids.push_back(std::move(entry));
  }
}

PortInfo ReadPort(const DeviceInfo& device, const SysfsDir& dir, int number,
                  const SysfsReadOptions& options, std::vector<Error>& errors) {
  PortInfo port;
  port.port = number;
  port.state = ReadParsed<NumberedName>(dir, "state", ParseState, errors);
  port.phys_state = ReadParsed<NumberedName>(dir, "phys_state", ParsePhysState, errors);
  port.rate_bytes_per_second = ReadParsed<uint64_t>(dir, "rate", ParseRate, errors);
  port.link_layer = ReadString(dir, "link_layer", errors);
  ReadGids(dir, std::max(options.max_gids, device.parent ? 0 : 1), port, errors);
  if (SysfsDir counters = OpenOptionalDir(dir, "counters", errors); counters.valid()) {
    port.counters = ReadCounterDir(counters, errors);
  }
  const bool skip = options.skip_hw_counters != nullptr &&
                    options.skip_hw_counters->count({device.name, number}) > 0;
  if (options.hw_counters && !skip) {
    if (SysfsDir hw = OpenOptionalDir(dir, "hw_counters", errors); hw.valid()) {
      port.hw_counters = ReadCounterDir(hw, errors);
      port.hw_counters_read = true;
    }
  }
  return port;
}

}  // namespace

SysfsReader::SysfsReader(std::string sysfs_root) {
  while (sysfs_root.size() > 1 && sysfs_root.back() == '/') sysfs_root.pop_back();
  class_dir_ = std::move(sysfs_root) + "/class/infiniband";
}

Result<std::vector<std::string>> SysfsReader::ListDevices() const {
  auto dir = SysfsDir::Open(class_dir_);
  if (!dir.ok()) return dir.error();
  auto entries = dir->List();
  if (!entries.ok()) return entries.error();
  std::vector<std::string> names;
  for (DirEntry& e : *entries) {
    if (e.is_dir) names.push_back(std::move(e.name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<DeviceInfo> SysfsReader::ReadDevice(const std::string& name,
                                           const SysfsReadOptions& options) const {
  auto opened = SysfsDir::Open(class_dir_ + "/" + name);
  if (!opened.ok()) return opened.error();
  const SysfsDir& dir = *opened;
  DeviceInfo dev;
  dev.name = name;
  auto& errors = dev.errors;
  dev.node_type = ReadParsed<NumberedName>(dir, "node_type", ParseNodeType, errors);
  dev.node_guid = ReadString(dir, "node_guid", errors);
  dev.sys_image_guid = ReadString(dir, "sys_image_guid", errors);
  dev.fw_ver = ReadString(dir, "fw_ver", errors);
  dev.node_desc = ReadString(dir, "node_desc", errors);
  dev.parent = ReadString(dir, "parent", errors);
  auto driver = dir.ReadLinkBasename("device/driver");
  if (!driver.ok()) errors.push_back(driver.error());
  if (driver.ok() && driver->has_value()) {
    dev.driver = **driver;
  } else {
    dev.driver = dev.parent ? "rxe" : "unknown";  // rxe has no `device` link (§1.1)
  }

  SysfsDir ports = OpenOptionalDir(dir, "ports", errors);
  if (!ports.valid()) return dev;
  auto entries = ports.List();
  if (!entries.ok()) {
    errors.push_back(entries.error());
    return dev;
  }
  std::vector<std::pair<int, std::string>> numbers;
  for (const DirEntry& e : *entries) {
    int n = 0;
    const char* end = e.name.data() + e.name.size();
    auto [ptr, ec] = std::from_chars(e.name.data(), end, n);
    if (ec == std::errc() && ptr == end && n > 0 && e.is_dir) numbers.emplace_back(n, e.name);
  }
  std::sort(numbers.begin(), numbers.end());
  for (const auto& [n, port_name] : numbers) {
    SysfsDir port_dir = OpenOptionalDir(ports, port_name, errors);
    if (port_dir.valid()) dev.ports.push_back(ReadPort(dev, port_dir, n, options, errors));
  }
  return dev;
}

std::optional<std::string> PortNetdev(const DeviceInfo& device, const PortInfo& port) {
  if (device.parent && !device.parent->empty()) return device.parent;
  for (const GidEntry& g : port.gids) {
    if (g.netdev && !g.netdev->empty()) return g.netdev;
  }
  return std::nullopt;
}

}  // namespace rxe::collectors
