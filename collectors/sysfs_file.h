// Low-level sysfs access for the sysfs collector: directory fds, one bounded
// read(2) per attribute (like procfs internal/util.SysReadFile), getdents64
// listings. Everything is relative to an open directory fd (openat), so a
// scrape does not re-walk /sys/class/infiniband/<dev>/ports/<n>/ per file.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace rxe::collectors {

/// errno values that mean "this attribute is not there / not supported on this
/// device" rather than a failure: ENOENT (no file), ENODEV/ENXIO (device going
/// away), EINVAL (e.g. gid_attrs/types/N of an empty GID slot), EACCES/EPERM,
/// EOPNOTSUPP, ENODATA. procfs treats the same set as absent.
bool IsAbsentErrno(int err);

/// Largest attribute we read: sysfs attributes are at most one page.
inline constexpr size_t kMaxAttrBytes = 4096;

/// An entry of a directory listing.
struct DirEntry {
  std::string name;
  bool is_dir = false;   // DT_DIR, or a symlink (class/infiniband/<dev> are symlinks)
  bool is_file = false;  // DT_REG (or DT_UNKNOWN: caller finds out when reading)
};

/// An open directory (O_DIRECTORY fd), move-only.
class SysfsDir {
 public:
  SysfsDir() = default;
  ~SysfsDir();
  SysfsDir(SysfsDir&& other) noexcept;
  SysfsDir& operator=(SysfsDir&& other) noexcept;
  SysfsDir(const SysfsDir&) = delete;
  SysfsDir& operator=(const SysfsDir&) = delete;

  /// Opens an absolute (or cwd-relative) directory path.
  static Result<SysfsDir> Open(const std::string& path);
  /// Opens `name` relative to this directory (follows symlinks).
  Result<SysfsDir> OpenSub(std::string_view name) const;

  /// Reads attribute `name` with open/read/close and one read(2) of at most
  /// kMaxAttrBytes. The error keeps the errno (test it with IsAbsentErrno).
  Result<std::string> Read(std::string_view name) const;
  /// Read into a caller buffer (no allocation): returns the byte count.
  Result<size_t> ReadInto(std::string_view name, char* buf, size_t cap) const;
  /// Like Read, but absent (IsAbsentErrno) -> std::nullopt; the value is
  /// trimmed of its trailing newline.
  Result<std::optional<std::string>> ReadOptional(std::string_view name) const;
  /// readlink(2) of `name`, basename of the target; std::nullopt if absent.
  Result<std::optional<std::string>> ReadLinkBasename(std::string_view name) const;
  /// All entries except "." and "..", in kernel order (callers sort).
  Result<std::vector<DirEntry>> List() const;

  const std::string& path() const { return path_; }
  bool valid() const { return fd_ >= 0; }

 private:
  SysfsDir(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  std::string Child(std::string_view name) const;
  int fd_ = -1;
  std::string path_;  // for error messages only
};

}  // namespace rxe::collectors
