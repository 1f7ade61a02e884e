// ReadRegularFile: only regular files are read, and a FIFO, directory or device never blocks
// (a FIFO given as --config.file used to hang the daemon's reload thread in open()).
#include "common/file_read.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace rxe {
namespace {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/rxe_file_read_test.XXXXXX";
    path_ = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf " + path_).c_str()); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(ReadRegularFile, ReadsARegularFile) {
  TempDir d;
  std::ofstream(d.File("a.yml")) << "x: 1\n";
  auto r = ReadRegularFile(d.File("a.yml"), 100);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(*r, "x: 1\n");
}

TEST(ReadRegularFile, FifoIsRejectedWithoutBlocking) {
  TempDir d;
  ASSERT_EQ(::mkfifo(d.File("fifo").c_str(), 0600), 0);
  auto r = ReadRegularFile(d.File("fifo"), 100);  // no writer: a plain open() would block
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, d.File("fifo") + ": is a FIFO, not a regular file; give the path of a file");
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
}

TEST(ReadRegularFile, DirectoryAndDeviceAreRejected) {
  TempDir d;
  auto dir = ReadRegularFile(d.path(), 100);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.error().message, d.path() + ": is a directory, not a regular file; give the path of a file");
  auto dev = ReadRegularFile("/dev/zero", 100);  // would never end
  ASSERT_FALSE(dev.ok());
  EXPECT_EQ(dev.error().message, "/dev/zero: is a character device, not a regular file; give the path of a file");
}

TEST(ReadRegularFile, MissingFileKeepsErrno) {
  auto r = ReadRegularFile("/nonexistent/x.yml", 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().sys_errno, ENOENT);
  EXPECT_EQ(r.error().message, "open /nonexistent/x.yml: No such file or directory");
}

TEST(ReadRegularFile, TooLargeNamesTheLimitAndTheHint) {
  TempDir d;
  std::ofstream(d.File("big")) << std::string(101, 'a');
  auto r = ReadRegularFile(d.File("big"), 100, "; split it");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, d.File("big") + ": file is larger than 100 bytes; split it");
  std::ofstream(d.File("ok")) << std::string(100, 'a');
  EXPECT_TRUE(ReadRegularFile(d.File("ok"), 100).ok());
}

}  // namespace
}  // namespace rxe
