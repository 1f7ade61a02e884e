#include "common/result.h"

#include <gtest/gtest.h>

namespace rxe {
namespace {

TEST(ResultTest, CarriesValueOrError) {
  Result<int> ok = 5;
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 5);
  Result<int> bad = Error::FromErrno(ENOENT, "open /sys/x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(bad.error().sys_errno, ENOENT);
  EXPECT_EQ(bad.error().message, "open /sys/x: No such file or directory");
}

TEST(ResultTest, WrapKeepsCodeAndErrno) {
  Error e = Error::FromErrno(ETIMEDOUT, "connect").Wrap("peer b");
  EXPECT_EQ(e.code, ErrorCode::kDeadlineExceeded);
  EXPECT_EQ(e.sys_errno, ETIMEDOUT);
  EXPECT_EQ(e.message, "peer b: connect: Connection timed out");
}

Status FailsWith(int err) {
  if (err) return Error::FromErrno(err, "step");
  return Status::Ok();
}

Status Chain(int err) {
  RXE_RETURN_IF_ERROR(FailsWith(err));
  return Status::Ok();
}

TEST(ResultTest, ReturnIfErrorPropagates) {
  EXPECT_TRUE(Chain(0).ok());
  Status s = Chain(EACCES);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kPermissionDenied);
}

TEST(ResultTest, ErrnoMapping) {
  EXPECT_EQ(ErrnoToCode(EPROTONOSUPPORT), ErrorCode::kUnavailable);
  EXPECT_EQ(ErrnoToCode(ENOMEM), ErrorCode::kResourceExhausted);
  EXPECT_STREQ(ErrorCodeName(ErrorCode::kNoData), "no_data");
}

}  // namespace
}  // namespace rxe
