#include "probes/auth.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "common/log.h"

namespace rxe::probes::auth {
namespace {

constexpr size_t kMaxKeyFileBytes = 64 * 1024;

std::string ModeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

}  // namespace

std::string_view ContextString(Direction d) {
  return d == Direction::kResponderToClient ? "rxe_exporter probe auth v1 responder"
                                            : "rxe_exporter probe auth v1 client";
}

Result<std::string> LoadPsk(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer. Symbolic links are followed
  // (Kubernetes secrets and systemd credentials are links into ..data/ directories); the
  // checks below apply to the file the link resolves to, on the opened descriptor.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error::FromErrno(errno, "open psk_file " + path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return Error::FromErrno(err, "stat psk_file " + path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error::Make(ErrorCode::kInvalidArgument,
                       "psk_file " + path + " is not a regular file (a FIFO, device or directory)");
  }
  if ((st.st_mode & S_IRWXO) != 0) {
    ::close(fd);
    return Error::Make(ErrorCode::kInvalidArgument,
                       "psk_file " + path + " is accessible by others (mode " +
                           ModeText(st.st_mode) +
                           "); chmod 600 it (Kubernetes secret volume: defaultMode: 0400)");
  }
  if ((st.st_mode & S_IRWXG) != 0) {
    log::Warn("psk_file is accessible by its group; chmod 600 it", {{"path", path}});
  }
  std::string key;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return Error::FromErrno(err, "read psk_file " + path);
    }
    if (n == 0) break;
    key.append(buf, static_cast<size_t>(n));
    if (key.size() > kMaxKeyFileBytes) {
      ::close(fd);
      return Error::Make(ErrorCode::kInvalidArgument, "psk_file " + path + " is larger than 64 KiB");
    }
  }
  ::close(fd);
  while (!key.empty() && (key.back() == '\n' || key.back() == '\r')) key.pop_back();
  if (key.empty()) return Error::Make(ErrorCode::kInvalidArgument, "psk_file " + path + " is empty");
  return key;
}

control::Proof ComputeProof(std::string_view key, Direction d, const control::Nonce& client_nonce,
                            const control::Nonce& responder_nonce) {
  std::string_view ctx = ContextString(d);
  std::vector<uint8_t> data;
  data.reserve(ctx.size() + 1 + 2 * control::kNonceBytes);
  data.insert(data.end(), ctx.begin(), ctx.end());
  data.push_back(0);  // context terminator: no context is a prefix of another message
  data.insert(data.end(), client_nonce.begin(), client_nonce.end());
  data.insert(data.end(), responder_nonce.begin(), responder_nonce.end());
  control::Proof out{};
  unsigned int len = static_cast<unsigned int>(out.size());
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data.data(), data.size(),
           out.data(), &len) == nullptr) {
    out.fill(0);  // all-zero = "no proof"; VerifyProof never accepts it
  }
  return out;
}

bool VerifyProof(std::string_view key, Direction d, const control::Nonce& client_nonce,
                 const control::Nonce& responder_nonce, const control::Proof& proof) {
  if (key.empty()) return false;
  control::Proof expected = ComputeProof(key, d, client_nonce, responder_nonce);
  if (expected == control::Proof{}) return false;  // HMAC failure
  return CRYPTO_memcmp(expected.data(), proof.data(), expected.size()) == 0;
}

Result<control::Nonce> RandomNonce() {
  control::Nonce n{};
  if (RAND_bytes(n.data(), static_cast<int>(n.size())) != 1) {
    return Error::Make(ErrorCode::kInternal, "RAND_bytes failed");
  }
  return n;
}

}  // namespace rxe::probes::auth
