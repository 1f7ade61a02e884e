#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "probes/auth.h"

namespace rxe::probes::auth {
namespace {

std::string WriteTemp(const std::string& name, const std::string& content) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << content;
  ::chmod(path.c_str(), 0600);
  return path;
}

control::Nonce N(uint8_t v) {
  control::Nonce n;
  n.fill(v);
  return n;
}

TEST(AuthPskTest, LoadStripsTrailingNewlinesOnly) {
  auto k = LoadPsk(WriteTemp("k1", "  s3cret \r\n\n"));
  ASSERT_TRUE(k.ok()) << k.error().message;
  EXPECT_EQ(*k, "  s3cret ");
  std::string binary("a\0b\n\x01", 5);
  auto b = LoadPsk(WriteTemp("k2", binary));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, std::string("a\0b\n\x01", 5));
}

TEST(AuthPskTest, LoadErrors) {
  EXPECT_FALSE(LoadPsk(::testing::TempDir() + "/does-not-exist").ok());
  auto empty = LoadPsk(WriteTemp("k3", "\n"));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);
  EXPECT_FALSE(LoadPsk(WriteTemp("k4", std::string(70000, 'x'))).ok());
  EXPECT_FALSE(LoadPsk(::testing::TempDir()).ok());  // a directory
}

// Before: a FIFO blocked open() until a writer came (the daemon never started), and a
// world-readable key only logged a warning.
TEST(AuthPskTest, FifoAndWorldReadableKeysAreErrorsLinksAreFollowed) {
  const std::string fifo = ::testing::TempDir() + "/psk.fifo";
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto f = LoadPsk(fifo);  // returns at once: no writer needed
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().message,
            "psk_file " + fifo + " is not a regular file (a FIFO, device or directory)");

  const std::string target = WriteTemp("k5", "s3cret\n");
  const std::string link = ::testing::TempDir() + "/psk.link";
  ::unlink(link.c_str());
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  // A link is followed (Kubernetes mounts secrets as links into ..data/): the checks apply
  // to the file it resolves to.
  auto l = LoadPsk(link);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(*l, "s3cret");
  const std::string fifo_link = ::testing::TempDir() + "/psk.fifo.link";
  ::unlink(fifo_link.c_str());
  ASSERT_EQ(::symlink(fifo.c_str(), fifo_link.c_str()), 0);
  EXPECT_FALSE(LoadPsk(fifo_link).ok());
  ::unlink(fifo_link.c_str());
  ASSERT_EQ(::chmod(target.c_str(), 0644), 0);
  auto w = LoadPsk(target);
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            "psk_file " + target +
                " is accessible by others (mode 0644); chmod 600 it (Kubernetes secret volume: "
                "defaultMode: 0400)");
  auto wl = LoadPsk(link);  // through the link: the target's mode counts
  ASSERT_FALSE(wl.ok());
  EXPECT_NE(wl.error().message.find("mode 0644"), std::string::npos);
  ASSERT_EQ(::chmod(target.c_str(), 0604), 0);
  EXPECT_FALSE(LoadPsk(target).ok());
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);  // group only: a warning
  auto g = LoadPsk(target);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(*g, "s3cret");
  ::unlink(fifo.c_str());
  ::unlink(link.c_str());
}

TEST(AuthPskTest, ProofIsHmacSha256OverContextAndNonces) {
  control::Nonce c = N(1), r = N(2);
  std::string data(ContextString(Direction::kClientToResponder));
  data.push_back('\0');
  data.append(c.begin(), c.end());
  data.append(r.begin(), r.end());
  unsigned char want[32];
  unsigned int len = 32;
  HMAC(EVP_sha256(), "key", 3, reinterpret_cast<const unsigned char*>(data.data()), data.size(), want, &len);
  auto got = ComputeProof("key", Direction::kClientToResponder, c, r);
  EXPECT_EQ(0, std::memcmp(got.data(), want, 32));
}

TEST(AuthPskTest, VerifyBindsKeyDirectionAndBothNonces) {
  control::Nonce c = N(1), r = N(2);
  auto p = ComputeProof("key", Direction::kResponderToClient, c, r);
  EXPECT_TRUE(VerifyProof("key", Direction::kResponderToClient, c, r, p));
  EXPECT_FALSE(VerifyProof("kez", Direction::kResponderToClient, c, r, p));
  EXPECT_FALSE(VerifyProof("key", Direction::kClientToResponder, c, r, p));  // no reflection
  EXPECT_FALSE(VerifyProof("key", Direction::kResponderToClient, N(3), r, p));
  EXPECT_FALSE(VerifyProof("key", Direction::kResponderToClient, c, N(3), p));
  EXPECT_FALSE(VerifyProof("", Direction::kResponderToClient, c, r, p));
  auto flipped = p;
  flipped[31] ^= 1;
  EXPECT_FALSE(VerifyProof("key", Direction::kResponderToClient, c, r, flipped));
  EXPECT_FALSE(VerifyProof("key", Direction::kResponderToClient, c, r, control::Proof{}));
}

TEST(AuthPskTest, NoncesAreRandom) {
  auto a = RandomNonce();
  auto b = RandomNonce();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

}  // namespace
}  // namespace rxe::probes::auth
