#include "exporter/basic_auth.h"

#include <gtest/gtest.h>

#include "exporter/web_config.h"
#include "tests/exporter/test_util.h"

namespace rxe::exporter {
namespace {

TEST(Bcrypt, KnownVector) {
  // OpenBSD's bcrypt test vector; $2y$ is the same algorithm as $2a$/$2b$.
  EXPECT_TRUE(BcryptVerify("U*U", "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"));
  EXPECT_TRUE(BcryptVerify("U*U", "$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"));
  EXPECT_TRUE(BcryptVerify("U*U", "$2b$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"));
  EXPECT_FALSE(BcryptVerify("U*V", "$2y$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW"));
}

TEST(Bcrypt, GeneratedCost10Hash) {
  const std::string hash = testing::BcryptHash("s3cret pass", "$2y$", 10);
  ASSERT_EQ(hash.rfind("$2y$10$", 0), 0u);
  EXPECT_TRUE(IsBcryptHash(hash));
  EXPECT_TRUE(BcryptVerify("s3cret pass", hash));
  EXPECT_FALSE(BcryptVerify("s3cret pas", hash));
  EXPECT_FALSE(BcryptVerify("", hash));
}

TEST(Bcrypt, RejectsNonBcrypt) {
  EXPECT_FALSE(BcryptVerify("x", ""));
  EXPECT_FALSE(BcryptVerify("x", "plaintext"));
  EXPECT_FALSE(BcryptVerify("x", "$6$salt$hash"));  // sha512crypt is not accepted
}

TEST(BasicAuthHeader, Parses) {
  std::string user, pass;
  ASSERT_TRUE(ParseBasicAuthorization("Basic YWxpY2U6cGE6c3M=", user, pass));  // alice:pa:ss
  EXPECT_EQ(user, "alice");
  EXPECT_EQ(pass, "pa:ss");
  ASSERT_TRUE(ParseBasicAuthorization("basic Ym9iOg==", user, pass));  // bob:
  EXPECT_EQ(user, "bob");
  EXPECT_EQ(pass, "");
  ASSERT_TRUE(ParseBasicAuthorization("Basic YWI6Yw==", user, pass));  // ab:c
  EXPECT_EQ(user, "ab");
  EXPECT_EQ(pass, "c");
}

TEST(BasicAuthHeader, RejectsMalformed) {
  std::string user, pass;
  EXPECT_FALSE(ParseBasicAuthorization("", user, pass));
  EXPECT_FALSE(ParseBasicAuthorization("Bearer abc", user, pass));
  EXPECT_FALSE(ParseBasicAuthorization("Basic ", user, pass));
  EXPECT_FALSE(ParseBasicAuthorization("Basic !!!!", user, pass));
  EXPECT_FALSE(ParseBasicAuthorization("Basic YWxpY2U=", user, pass));  // "alice": no colon
  EXPECT_FALSE(ParseBasicAuthorization("Basic YWxpY2U", user, pass));   // bad length
}

TEST(BasicAuth, ChecksAndCachesSuccess) {
  BasicAuth auth({{"alice", testing::BcryptHash("wonderland")}});
  ASSERT_TRUE(auth.enabled());
  EXPECT_TRUE(auth.Check("alice", "wonderland"));
  EXPECT_EQ(auth.bcrypt_calls(), 1u);
  EXPECT_TRUE(auth.Check("alice", "wonderland"));
  EXPECT_TRUE(auth.CheckHeader("Basic YWxpY2U6d29uZGVybGFuZA=="));  // alice:wonderland
  EXPECT_EQ(auth.bcrypt_calls(), 1u) << "successful checks must be cached";

  EXPECT_FALSE(auth.Check("alice", "wrong"));
  EXPECT_FALSE(auth.Check("alice", "wrong"));
  EXPECT_EQ(auth.bcrypt_calls(), 3u) << "failures are never cached";
  EXPECT_FALSE(auth.Check("mallory", "wonderland"));
  EXPECT_EQ(auth.bcrypt_calls(), 4u) << "unknown users cost one bcrypt too";
  EXPECT_FALSE(auth.CheckHeader(""));
}

TEST(BasicAuth, DisabledWithoutUsers) {
  BasicAuth auth({});
  EXPECT_FALSE(auth.enabled());
}

}  // namespace
}  // namespace rxe::exporter
