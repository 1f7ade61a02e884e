#include "collectors/sysfs_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "collectors/sysfs_parse.h"

namespace rxe::collectors {
namespace {

// openat() needs a NUL-terminated name; attribute names are short, so build
// it on the stack instead of allocating a std::string per file.
constexpr size_t kMaxNameBytes = 256;

bool CopyName(std::string_view name, char (&buf)[kMaxNameBytes]) {
  if (name.empty() || name.size() >= kMaxNameBytes) return false;
  std::memcpy(buf, name.data(), name.size());
  buf[name.size()] = '\0';
  return true;
}

Error BadName(std::string_view name) {
  return Error::Make(ErrorCode::kInvalidArgument, "bad sysfs name \"" + std::string(name) + "\"");
}

}  // namespace

bool IsAbsentErrno(int err) {
  switch (err) {
    case ENOENT: case ENODEV: case ENXIO: case EINVAL: case EACCES: case EPERM:
    case EOPNOTSUPP: case ENODATA:
      return true;
    default:
      return false;
  }
}

SysfsDir::~SysfsDir() {
  if (fd_ >= 0) ::close(fd_);
}

SysfsDir::SysfsDir(SysfsDir&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

SysfsDir& SysfsDir::operator=(SysfsDir&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

std::string SysfsDir::Child(std::string_view name) const {
  std::string p = path_;
  p += '/';
  p += name;
  return p;
}

Result<SysfsDir> SysfsDir::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno(errno, "open " + path);
  return SysfsDir(fd, path);
}

Result<SysfsDir> SysfsDir::OpenSub(std::string_view name) const {
  char buf[kMaxNameBytes];
  if (!CopyName(name, buf)) return BadName(name);
  const int fd = ::openat(fd_, buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno(errno, "open " + Child(name));
  return SysfsDir(fd, Child(name));
}

Result<size_t> SysfsDir::ReadInto(std::string_view name, char* buf, size_t cap) const {
  char path[kMaxNameBytes];
  if (!CopyName(name, path)) return BadName(name);
  const int fd = ::openat(fd_, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::FromErrno(errno, "open " + Child(name));
  // One read(2): a sysfs attribute's show() produces the whole value (at most
  // a page) on the first read, so there is nothing to loop for.
  ssize_t n;
  do {
    n = ::read(fd, buf, cap);
  } while (n < 0 && errno == EINTR);
  const int read_errno = errno;
  ::close(fd);
  if (n < 0) return Error::FromErrno(read_errno, "read " + Child(name));
  return static_cast<size_t>(n);
}

Result<std::string> SysfsDir::Read(std::string_view name) const {
  char buf[kMaxAttrBytes];
  auto n = ReadInto(name, buf, sizeof(buf));
  if (!n.ok()) return n.error();
  return std::string(buf, *n);
}

Result<std::optional<std::string>> SysfsDir::ReadOptional(std::string_view name) const {
  auto r = Read(name);
  if (!r.ok()) {
    if (IsAbsentErrno(r.error().sys_errno)) return std::optional<std::string>();
    return r.error();
  }
  const std::string_view v = TrimSysfsValue(*r);
  r->resize(v.size());
  return std::optional<std::string>(std::move(*r));
}

Result<std::optional<std::string>> SysfsDir::ReadLinkBasename(std::string_view name) const {
  char path[kMaxNameBytes];
  if (!CopyName(name, path)) return BadName(name);
  char target[kMaxAttrBytes];
  const ssize_t n = ::readlinkat(fd_, path, target, sizeof(target));
  if (n < 0) {
    // ENOTDIR: an intermediate component ("device") is not a directory.
    if (IsAbsentErrno(errno) || errno == ENOTDIR) return std::optional<std::string>();
    return Error::FromErrno(errno, "readlink " + Child(name));
  }
  std::string_view t(target, static_cast<size_t>(n));
  while (!t.empty() && t.back() == '/') t.remove_suffix(1);
  if (const size_t slash = t.rfind('/'); slash != std::string_view::npos) t.remove_prefix(slash + 1);
  if (t.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::string(t));
}

Result<std::vector<DirEntry>> SysfsDir::List() const {
  std::vector<DirEntry> out;
  if (::lseek(fd_, 0, SEEK_SET) < 0) return Error::FromErrno(errno, "lseek " + path_);
  alignas(dirent64) char buf[8192];
  for (;;) {
    const ssize_t n = ::getdents64(fd_, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::FromErrno(errno, "getdents64 " + path_);
    }
    if (n == 0) break;
    for (ssize_t off = 0; off < n;) {
      const auto* d = reinterpret_cast<const dirent64*>(buf + off);
      off += d->d_reclen;
      const std::string_view name(d->d_name);
      if (name == "." || name == "..") continue;
      DirEntry e;
      e.name = std::string(name);
      e.is_dir = d->d_type == DT_DIR || d->d_type == DT_LNK || d->d_type == DT_UNKNOWN;
      e.is_file = d->d_type == DT_REG || d->d_type == DT_UNKNOWN;
      out.push_back(std::move(e));
    }
  }
  return out;
}

}  // namespace rxe::collectors
