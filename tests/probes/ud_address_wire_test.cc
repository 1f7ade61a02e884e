// The control protocol's UD_ADDRESS message (ud_ping address exchange).
#include <gtest/gtest.h>

#include "probes/control_protocol.h"

namespace rxe::probes::control {
namespace {

UdAddress Sample() {
  UdAddress u;
  for (size_t i = 0; i < 16; ++i) u.gid[i] = static_cast<uint8_t>(i * 7);
  u.qpn = 0x123456;
  u.qkey = 0x11111111;
  return u;
}

TEST(UdAddressWire, RoundTripsAndHasItsOwnType) {
  const auto frame = Encode(Message{Sample()});
  EXPECT_EQ(frame[5], 10) << "type byte";
  EXPECT_EQ(frame.size(), kHeaderBytes + 24);
  auto m = DecodeFrame(frame, kDefaultMaxMessageBytes);
  ASSERT_TRUE(std::holds_alternative<Message>(m));
  const auto* u = std::get_if<UdAddress>(&std::get<Message>(m));
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->gid, Sample().gid);
  EXPECT_EQ(u->qpn, 0x123456u);
  EXPECT_EQ(u->qkey, 0x11111111u);
  EXPECT_EQ(TypeOf(Message{UdAddress{}}), MessageType::kUdAddress);
  EXPECT_EQ(MessageTypeName(MessageType::kUdAddress), "UD_ADDRESS");
}

TEST(UdAddressWire, RejectsBadQpnTruncationAndTrailingBytes) {
  auto code = [](const WireResult<Message>& r) {
    return std::holds_alternative<WireError>(r) ? std::get<WireError>(r).code
                                                : WireErrorCode::kTruncated;
  };
  UdAddress u = Sample();
  u.qpn = 0;
  auto r = DecodeFrame(Encode(Message{u}), kDefaultMaxMessageBytes);
  ASSERT_TRUE(std::holds_alternative<WireError>(r));
  EXPECT_EQ(code(r), WireErrorCode::kOutOfRange);
  u.qpn = 0x1000000;
  EXPECT_EQ(code(DecodeFrame(Encode(Message{u}), kDefaultMaxMessageBytes)),
            WireErrorCode::kOutOfRange);
  auto body = EncodeBody(Message{Sample()});
  auto shorter = DecodeBody(MessageType::kUdAddress, std::span(body).first(body.size() - 1));
  ASSERT_TRUE(std::holds_alternative<WireError>(shorter));
  EXPECT_EQ(code(shorter), WireErrorCode::kTruncated);
  body.push_back(0);
  auto longer = DecodeBody(MessageType::kUdAddress, body);
  ASSERT_TRUE(std::holds_alternative<WireError>(longer));
  EXPECT_EQ(code(longer), WireErrorCode::kTrailingBytes);
}

}  // namespace
}  // namespace rxe::probes::control
