// Pathological YAML: every input here must give a clear error at once. Before the single-
// document check, a file holding just "," made YAML::LoadAll loop forever, allocating
// ~200 MB/s (yaml-cpp 0.7, upstream issue 1040): these tests then hung until ctest's timeout.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "config/loader.h"
#include "tests/config/fixture_util.h"
#include "config/parse_internal.h"
#include "config/peer_file.h"

namespace rxe::config {
namespace {

using testing::ErrorOf;

TEST(YamlTextTest, CommaAloneIsAnErrorNotAnEndlessLoop) {
  EXPECT_EQ(ErrorOf(","), "t.yml:1:1: invalid YAML: unexpected \",\"");
  EXPECT_EQ(ErrorOf(",\n"), "t.yml:1:1: invalid YAML: unexpected \",\"");
}

TEST(YamlTextTest, StrayTokenAfterADocumentIsAnError) {
  // YAML::Load alone would return the map and ignore the ",".
  EXPECT_EQ(ErrorOf("devices: {}\n,\n"), "t.yml:2:1: invalid YAML: end of map not found");
  EXPECT_EQ(ErrorOf("- x\n,\n"), "t.yml:2:1: invalid YAML: unexpected \",\"");
  EXPECT_EQ(ErrorOf("- !+(.,.)\n"), "t.yml:1:7: invalid YAML: end of sequence not found");
}

TEST(YamlTextTest, MoreThanOneDocumentIsStillAnError) {
  EXPECT_EQ(ErrorOf("devices: {}\n---\ndevices: {}\n---\n,\n"),
            "t.yml:2:1: more than one YAML document; the file must hold a single document");
}

TEST(YamlTextTest, DeepNestingIsAnError) {
  EXPECT_EQ(ErrorOf(std::string(100000, '[')),
            "t.yml:1:1: invalid YAML: nested more than 2000 levels deep");
  std::string maps;
  for (int i = 0; i < 50000; ++i) maps += "{a: ";
  EXPECT_NE(ErrorOf(maps).find("invalid YAML: nested more than 2000 levels deep"),
            std::string::npos);
}

TEST(YamlTextTest, TextAboveTheSizeLimitIsAnError) {
  std::string big = "# " + std::string(kMaxYamlFileBytes, 'x') + "\n";
  EXPECT_EQ(ErrorOf(big),
            "t.yml: file is larger than 1048576 bytes (1 MiB), the limit for config and peer "
            "files; split peers over several peer_files");
  std::string fits = "# " + std::string(kMaxYamlFileBytes - 3, 'x') + "\n";
  EXPECT_EQ(ErrorOf(fits), "OK");
}

class YamlFileTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/yaml_text_test_" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
};

TEST_F(YamlFileTest, PeerFileHoldingACommaIsAnError) {
  const std::string path = Write("comma_peers.yml", ",");
  auto peers = LoadPeerFile(path);
  ASSERT_FALSE(peers.ok());
  EXPECT_EQ(peers.error().message, path + ":1:1: invalid YAML: unexpected \",\"");
}

TEST_F(YamlFileTest, ConfigFileHoldingACommaIsAnError) {
  const std::string path = Write("comma.yml", ",");
  auto cfg = LoadFile(path);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message, path + ":1:1: invalid YAML: unexpected \",\"");
}

TEST_F(YamlFileTest, OversizedFileIsNotReadWhole) {
  const std::string path = Write("big.yml", std::string(3 * kMaxYamlFileBytes, '#'));
  auto cfg = LoadFile(path);
  ASSERT_FALSE(cfg.ok());
  EXPECT_EQ(cfg.error().message,
            path + ": file is larger than 1048576 bytes (1 MiB), the limit for config and peer "
                   "files; split peers over several peer_files");
}

}  // namespace
}  // namespace rxe::config
