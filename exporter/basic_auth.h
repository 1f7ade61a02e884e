// HTTP basic authentication against bcrypt hashes (basic_auth_users of the
// web config). bcrypt is slow by design (~50-100 ms at cost 10), so
// successful verifications are cached, keyed by SHA-256(user, password, hash).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>

namespace rxe::exporter {

/// True if `password` matches the bcrypt `hash` ($2y$/$2b$/$2a$) via libcrypt.
bool BcryptVerify(const std::string& password, const std::string& hash);

/// Decodes "Basic <base64(user:password)>"; false if malformed.
bool ParseBasicAuthorization(std::string_view header, std::string& user, std::string& password);

class BasicAuth {
 public:
  static constexpr size_t kMaxCacheEntries = 1024;

  explicit BasicAuth(std::map<std::string, std::string> users);
  bool enabled() const { return !users_.empty(); }
  /// Checks an Authorization header value (empty = none sent).
  bool CheckHeader(std::string_view authorization);
  bool Check(const std::string& user, const std::string& password);
  /// Number of bcrypt computations so far (tests check the cache with it).
  size_t bcrypt_calls() const;

 private:
  std::map<std::string, std::string> users_;
  mutable std::mutex mu_;
  std::unordered_set<std::string> verified_;  // cache keys of successful checks
  size_t bcrypt_calls_ = 0;
};

}  // namespace rxe::exporter
