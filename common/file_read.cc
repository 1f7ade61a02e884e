#include "common/file_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace rxe {
namespace {

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

const char* FileTypeName(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "regular file";
    case S_IFDIR: return "directory";
    case S_IFIFO: return "FIFO";
    case S_IFSOCK: return "socket";
    case S_IFCHR: return "character device";
    case S_IFBLK: return "block device";
    default: return "special file";
  }
}

Result<std::string> ReadRegularFile(const std::string& path, size_t max_bytes,
                                    const std::string& too_large_hint) {
  // O_NONBLOCK: opening a FIFO without a writer returns at once instead of blocking.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return Error::FromErrno(errno, "open " + path);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return Error::FromErrno(errno, "stat " + path);
  if (!S_ISREG(st.st_mode)) {
    return Error::Make(ErrorCode::kInvalidArgument,
                       path + ": is a " + FileTypeName(st.st_mode) +
                           ", not a regular file; give the path of a file");
  }
  const std::string too_large = path + ": file is larger than " + std::to_string(max_bytes) +
                                " bytes" + too_large_hint;
  if (static_cast<unsigned long long>(st.st_size) > max_bytes) {
    return Error::Make(ErrorCode::kInvalidArgument, too_large);
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error::FromErrno(errno, "read " + path);
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > max_bytes) return Error::Make(ErrorCode::kInvalidArgument, too_large);  // grew
  }
  return out;
}

}  // namespace rxe
