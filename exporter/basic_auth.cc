#include "exporter/basic_auth.h"

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <strings.h>

#include <memory>

namespace rxe::exporter {
namespace {

std::string CacheKey(const std::string& user, const std::string& password,
                     const std::string& hash) {
  std::string input = user;
  input.push_back('\0');
  input += password;
  input.push_back('\0');
  input += hash;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(input.data(), input.size(), digest, &len, EVP_sha256(), nullptr);
  OPENSSL_cleanse(input.data(), input.size());
  return std::string(reinterpret_cast<char*>(digest), len);
}

/// A valid bcrypt setting used to spend the same time on unknown users.
const std::string& DummyHash() {
  static const std::string hash = [] {
    char buf[CRYPT_GENSALT_OUTPUT_SIZE];
    const char* s = crypt_gensalt_rn("$2b$", 10, nullptr, 0, buf, sizeof buf);
    return std::string(s != nullptr ? s : "");
  }();
  return hash;
}

}  // namespace

bool BcryptVerify(const std::string& password, const std::string& hash) {
  if (hash.size() < 7 || hash.compare(0, 2, "$2") != 0) return false;
  auto data = std::make_unique<crypt_data>();  // ~32 KiB: keep it off the stack
  const char* out = crypt_r(password.c_str(), hash.c_str(), data.get());
  if (out == nullptr || out[0] == '*') return false;
  const std::string computed(out);
  return computed.size() == hash.size() &&
         CRYPTO_memcmp(computed.data(), hash.data(), hash.size()) == 0;
}

bool ParseBasicAuthorization(std::string_view header, std::string& user, std::string& password) {
  constexpr std::string_view kScheme = "Basic ";
  if (header.size() <= kScheme.size() ||
      strncasecmp(header.data(), kScheme.data(), kScheme.size()) != 0) {
    return false;
  }
  std::string_view b64 = header.substr(kScheme.size());
  while (!b64.empty() && b64.front() == ' ') b64.remove_prefix(1);
  while (!b64.empty() && b64.back() == ' ') b64.remove_suffix(1);
  if (b64.empty() || b64.size() % 4 != 0 || b64.size() > 4096) return false;
  std::string decoded(b64.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(decoded.data()),
                                reinterpret_cast<const unsigned char*>(b64.data()),
                                static_cast<int>(b64.size()));
  if (n < 0) return false;
  size_t len = static_cast<size_t>(n);
  if (b64.back() == '=') --len;  // EVP_DecodeBlock counts padding as output bytes
  if (b64[b64.size() - 2] == '=') --len;
  decoded.resize(len);
  const auto colon = decoded.find(':');
  if (colon == std::string::npos) return false;
  user = decoded.substr(0, colon);
  password = decoded.substr(colon + 1);
  return true;
}

BasicAuth::BasicAuth(std::map<std::string, std::string> users) : users_(std::move(users)) {}

bool BasicAuth::CheckHeader(std::string_view authorization) {
  std::string user, password;
  if (!ParseBasicAuthorization(authorization, user, password)) return false;
  return Check(user, password);
}

bool BasicAuth::Check(const std::string& user, const std::string& password) {
  auto it = users_.find(user);
  const std::string& hash = it != users_.end() ? it->second : DummyHash();
  const std::string key = CacheKey(user, password, hash);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (it != users_.end() && verified_.count(key) != 0) return true;
    ++bcrypt_calls_;
  }
  // Unknown users still pay one bcrypt so timing does not reveal valid names.
  const bool ok = BcryptVerify(password, hash) && it != users_.end();
  if (ok) {
    std::lock_guard<std::mutex> lock(mu_);
    if (verified_.size() >= kMaxCacheEntries) verified_.clear();
    verified_.insert(key);
  }
  return ok;
}

size_t BasicAuth::bcrypt_calls() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bcrypt_calls_;
}

}  // namespace rxe::exporter
