#include "probes/control_protocol.h"

#include <gtest/gtest.h>

namespace rxe::probes::control {
namespace {

constexpr uint32_t kMax = kDefaultMaxMessageBytes;

Hello SampleHello() {
  Hello h;
  for (size_t i = 0; i < h.client_nonce.size(); ++i) h.client_nonce[i] = static_cast<uint8_t>(i);
  h.params.type = config::ProbeType::kSendLat;
  h.params.size = 2;
  h.params.qps = 3;
  h.params.post_list = 4;
  h.params.cq_moderation = 5;
  h.params.tx_depth = 6;
  h.params.inline_size = 7;
  h.params.iterations = 8;
  h.params.duration = std::chrono::milliseconds(900);
  h.params.mtu = 1024;
  return h;
}

Endpoint SampleEndpoint(size_t nqps = 2) {
  Endpoint e;
  for (size_t i = 0; i < 16; ++i) e.info.gid[i] = static_cast<uint8_t>(0xf0 + i);
  e.info.addr = 0x1122334455667788ull;
  e.info.rkey = 0xdeadbeef;
  e.info.buffer_bytes = 131072;
  e.info.active_mtu = 4096;
  for (size_t i = 0; i < nqps; ++i) {
    e.info.qps.push_back({static_cast<uint32_t>(0x11 + i), static_cast<uint32_t>(0xabcdef - i)});
  }
  return e;
}

WireErrorCode CodeOf(const WireResult<Message>& r) {
  EXPECT_TRUE(std::holds_alternative<WireError>(r));
  return std::holds_alternative<WireError>(r) ? std::get<WireError>(r).code
                                              : WireErrorCode::kTruncated;
}

template <typename T>
T RoundTrip(const T& in) {
  auto bytes = Encode(Message{in});
  auto out = DecodeFrame(bytes, kMax);
  EXPECT_TRUE(std::holds_alternative<Message>(out))
      << (std::holds_alternative<WireError>(out) ? std::get<WireError>(out).detail : "");
  EXPECT_TRUE(std::holds_alternative<T>(std::get<Message>(out)));
  return std::get<T>(std::get<Message>(out));
}

TEST(ControlProtocolTest, HeaderLayout) {
  auto b = Encode(Message{Ready{}});
  ASSERT_EQ(b.size(), kHeaderBytes);
  EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.end()),
            (std::vector<uint8_t>{'R', 'X', 'E', 'P', 1, 7, 0, 0, 0, 0, 0, 0}));
  auto a = Encode(Message{Accept{0x0102030405060708ull}});
  ASSERT_EQ(a.size(), kHeaderBytes + 8);
  EXPECT_EQ(a[11], 8);
  EXPECT_EQ(a[12], 1);
  EXPECT_EQ(a[19], 8);
}

TEST(ControlProtocolTest, RoundTripsEveryType) {
  Hello h = RoundTrip(SampleHello());
  EXPECT_EQ(h.client_nonce, SampleHello().client_nonce);
  EXPECT_EQ(h.params.type, config::ProbeType::kSendLat);
  EXPECT_EQ(h.params.size, 2u);
  EXPECT_EQ(h.params.qps, 3u);
  EXPECT_EQ(h.params.post_list, 4u);
  EXPECT_EQ(h.params.cq_moderation, 5u);
  EXPECT_EQ(h.params.tx_depth, 6u);
  EXPECT_EQ(h.params.inline_size, 7u);
  EXPECT_EQ(h.params.iterations, 8u);
  EXPECT_EQ(h.params.duration, std::chrono::milliseconds(900));
  EXPECT_EQ(h.params.mtu, 1024u);

  Challenge c;
  c.responder_nonce.fill(0x5a);
  c.responder_proof.fill(0xa5);
  Challenge c2 = RoundTrip(c);
  EXPECT_EQ(c2.responder_nonce, c.responder_nonce);
  EXPECT_EQ(c2.responder_proof, c.responder_proof);

  Auth a;
  a.client_proof.fill(7);
  EXPECT_EQ(RoundTrip(a).client_proof, a.client_proof);
  EXPECT_EQ(RoundTrip(Accept{42}).session_id, 42u);

  Reject r = RoundTrip(Reject{RejectReason::kBusy, "too many sessions"});
  EXPECT_EQ(r.reason, RejectReason::kBusy);
  EXPECT_EQ(r.text, "too many sessions");

  Endpoint e = RoundTrip(SampleEndpoint(3));
  Endpoint want = SampleEndpoint(3);
  EXPECT_EQ(e.info.gid, want.info.gid);
  EXPECT_EQ(e.info.addr, want.info.addr);
  EXPECT_EQ(e.info.rkey, want.info.rkey);
  EXPECT_EQ(e.info.buffer_bytes, want.info.buffer_bytes);
  EXPECT_EQ(e.info.active_mtu, want.info.active_mtu);
  ASSERT_EQ(e.info.qps.size(), 3u);
  EXPECT_EQ(e.info.qps[2].qpn, want.info.qps[2].qpn);
  EXPECT_EQ(e.info.qps[2].psn, want.info.qps[2].psn);

  RoundTrip(Ready{});
  Done d = RoundTrip(Done{false, 1ull << 40, 77, "wc error"});
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.bytes, 1ull << 40);
  EXPECT_EQ(d.messages, 77u);
  EXPECT_EQ(d.text, "wc error");
  RoundTrip(Bye{});
}

TEST(ControlProtocolTest, EveryProbeTypeRoundTrips) {
  for (auto t : {config::ProbeType::kWriteBw, config::ProbeType::kSendBw,
                 config::ProbeType::kSendLat, config::ProbeType::kWriteLat,
                 config::ProbeType::kUdPing}) {
    Hello h = SampleHello();
    h.params.type = t;
    EXPECT_EQ(RoundTrip(h).params.type, t);
  }
}

TEST(ControlProtocolTest, HelloUseEventRoundTripsAsAnOptionalOptionsByte) {
  Hello h = SampleHello();
  const auto plain = EncodeBody(Message{h});
  EXPECT_FALSE(RoundTrip(h).params.use_event);
  h.params.use_event = true;
  const auto with = EncodeBody(Message{h});
  // The options byte is appended only when set: a busy-polling HELLO keeps the original layout.
  ASSERT_EQ(with.size(), plain.size() + 1);
  EXPECT_TRUE(std::equal(plain.begin(), plain.end(), with.begin()));
  EXPECT_EQ(with.back(), kHelloOptionUseEvent);
  Hello back = RoundTrip(h);
  EXPECT_TRUE(back.params.use_event);
  EXPECT_EQ(back.params.iterations, 8u);
  EXPECT_EQ(back.params.mtu, 1024u);
}

TEST(ControlProtocolTest, HelloOptionsByteMustBeKnownAndNonZero) {
  const auto plain = EncodeBody(Message{SampleHello()});
  for (uint8_t bad : {uint8_t{0}, uint8_t{0x04}, uint8_t{0x81}, uint8_t{0xff}}) {
    auto body = plain;
    body.push_back(bad);
    auto r = DecodeBody(MessageType::kHello, body);
    EXPECT_EQ(CodeOf(r), WireErrorCode::kOutOfRange) << int{bad};
    if (auto* e = std::get_if<WireError>(&r)) {
      EXPECT_EQ(e->detail, "HELLO options out of range: " + std::to_string(bad));
    }
  }
  auto two = plain;
  two.push_back(kHelloOptionUseEvent);
  two.push_back(kHelloOptionUseEvent);
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kHello, two)), WireErrorCode::kTrailingBytes);
}

TEST(ControlProtocolTest, HelloQpTimeoutIsSentOnlyWhenNotTheDefault) {
  Hello h = SampleHello();
  const auto plain = EncodeBody(Message{h});
  EXPECT_EQ(RoundTrip(h).params.qp_timeout, kDefaultQpTimeout);
  h.params.qp_timeout = 18;
  const auto with = EncodeBody(Message{h});
  // options byte (bit 1) + the value; the rest keeps the original layout.
  ASSERT_EQ(with.size(), plain.size() + 2);
  EXPECT_TRUE(std::equal(plain.begin(), plain.end(), with.begin()));
  EXPECT_EQ(with[plain.size()], kHelloOptionQpTimeout);
  EXPECT_EQ(with.back(), 18);
  EXPECT_EQ(RoundTrip(h).params.qp_timeout, 18);
  EXPECT_FALSE(RoundTrip(h).params.use_event);
  // Both options: one byte with both bits, then qp_timeout.
  h.params.use_event = true;
  h.params.qp_timeout = 0;  // 0 = never retransmit, a valid value
  const auto both = EncodeBody(Message{h});
  ASSERT_EQ(both.size(), plain.size() + 2);
  EXPECT_EQ(both[plain.size()], kHelloOptionUseEvent | kHelloOptionQpTimeout);
  Hello back = RoundTrip(h);
  EXPECT_TRUE(back.params.use_event);
  EXPECT_EQ(back.params.qp_timeout, 0);
}

TEST(ControlProtocolTest, HelloQpTimeoutMustBePresentInRangeAndNotTheDefault) {
  const auto plain = EncodeBody(Message{SampleHello()});
  auto missing = plain;
  missing.push_back(kHelloOptionQpTimeout);
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kHello, missing)), WireErrorCode::kTruncated);
  for (uint8_t bad : {uint8_t{14}, uint8_t{32}, uint8_t{0xff}}) {
    auto body = plain;
    body.push_back(kHelloOptionQpTimeout);
    body.push_back(bad);
    auto r = DecodeBody(MessageType::kHello, body);
    EXPECT_EQ(CodeOf(r), WireErrorCode::kOutOfRange) << int{bad};
    if (auto* e = std::get_if<WireError>(&r)) {
      EXPECT_EQ(e->detail, "qp_timeout out of range: " + std::to_string(bad));
    }
  }
  auto extra = plain;
  extra.push_back(kHelloOptionQpTimeout);
  extra.push_back(31);
  auto ok = DecodeBody(MessageType::kHello, extra);
  ASSERT_TRUE(std::holds_alternative<Message>(ok)) << "31 is the largest valid value";
  EXPECT_EQ(std::get<Hello>(std::get<Message>(ok)).params.qp_timeout, 31);
  extra.push_back(1);
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kHello, extra)), WireErrorCode::kTrailingBytes);
}

TEST(ControlProtocolTest, EncoderTruncatesLongText) {
  Reject r = RoundTrip(Reject{RejectReason::kSetupFailed, std::string(1000, 'x')});
  EXPECT_EQ(r.text.size(), kMaxTextBytes);
}

TEST(ControlProtocolTest, TypeOfMatchesVariantOrder) {
  EXPECT_EQ(TypeOf(Message{Hello{}}), MessageType::kHello);
  EXPECT_EQ(TypeOf(Message{Bye{}}), MessageType::kBye);
  EXPECT_EQ(TypeOf(Message{Endpoint{}}), MessageType::kEndpoint);
  EXPECT_EQ(MessageTypeName(MessageType::kDone), "DONE");
  EXPECT_EQ(RejectReasonName(RejectReason::kBadVersion), "bad_version");
}

TEST(ControlProtocolTest, HeaderErrors) {
  auto good = Encode(Message{SampleHello()});
  EXPECT_EQ(CodeOf(DecodeFrame(std::span(good).first(5), kMax)), WireErrorCode::kTruncated);
  EXPECT_EQ(CodeOf(DecodeFrame({}, kMax)), WireErrorCode::kTruncated);

  auto bad = good;
  bad[0] = 'X';
  EXPECT_EQ(CodeOf(DecodeFrame(bad, kMax)), WireErrorCode::kBadMagic);
  bad = good;
  bad[4] = 2;
  EXPECT_EQ(CodeOf(DecodeFrame(bad, kMax)), WireErrorCode::kBadVersion);
  bad = good;
  bad[5] = 0;
  EXPECT_EQ(CodeOf(DecodeFrame(bad, kMax)), WireErrorCode::kUnknownType);
  bad[5] = 11;
  EXPECT_EQ(CodeOf(DecodeFrame(bad, kMax)), WireErrorCode::kUnknownType);
  bad = good;
  bad[7] = 1;
  EXPECT_EQ(CodeOf(DecodeFrame(bad, kMax)), WireErrorCode::kReservedNonZero);
}

TEST(ControlProtocolTest, OversizedLengthRejectedFromHeaderAlone) {
  // Only the header is present: the length is refused before any body exists.
  std::vector<uint8_t> hdr{'R', 'X', 'E', 'P', 1, 1, 0, 0, 0x7f, 0xff, 0xff, 0xff};
  auto h = DecodeHeader(hdr, kMax);
  ASSERT_TRUE(std::holds_alternative<WireError>(h));
  EXPECT_EQ(std::get<WireError>(h).code, WireErrorCode::kOversized);
  hdr[8] = 0;
  hdr[9] = 0;
  hdr[10] = 0x10;
  hdr[11] = 0x01;  // 4097
  EXPECT_EQ(std::get<WireError>(DecodeHeader(hdr, 4096)).code, WireErrorCode::kOversized);
  EXPECT_TRUE(std::holds_alternative<Header>(DecodeHeader(hdr, 4097)));
}

TEST(ControlProtocolTest, TruncatedBodyAtEveryLength) {
  for (const Message& m : {Message{SampleHello()}, Message{SampleEndpoint(4)},
                           Message{Done{true, 1, 2, "abc"}}, Message{Reject{RejectReason::kBusy, "x"}},
                           Message{Challenge{}}, Message{Auth{}}, Message{Accept{}}}) {
    auto body = EncodeBody(m);
    for (size_t n = 0; n < body.size(); ++n) {
      auto r = DecodeBody(TypeOf(m), std::span(body).first(n));
      ASSERT_TRUE(std::holds_alternative<WireError>(r)) << MessageTypeName(TypeOf(m)) << " n=" << n;
      EXPECT_EQ(std::get<WireError>(r).code, WireErrorCode::kTruncated);
    }
  }
  // A frame whose header promises more than is present.
  auto frame = Encode(Message{SampleHello()});
  frame.pop_back();
  EXPECT_EQ(CodeOf(DecodeFrame(frame, kMax)), WireErrorCode::kTruncated);
}

TEST(ControlProtocolTest, TrailingGarbage) {
  // (HELLO's one optional byte: HelloOptionsByteMustBeKnownAndNonZero.)
  for (const Message& m : {Message{Ready{}}, Message{Bye{}}, Message{SampleEndpoint()},
                           Message{Done{}}}) {
    auto body = EncodeBody(m);
    body.push_back(0);
    EXPECT_EQ(CodeOf(DecodeBody(TypeOf(m), body)), WireErrorCode::kTrailingBytes);
  }
  auto frame = Encode(Message{Ready{}});
  frame.push_back(1);  // bytes after the frame the header describes
  EXPECT_EQ(CodeOf(DecodeFrame(frame, kMax)), WireErrorCode::kTrailingBytes);
}

void ExpectHelloOutOfRange(void (*mutate)(SessionParams&)) {
  Hello h = SampleHello();
  mutate(h.params);
  EXPECT_EQ(CodeOf(DecodeFrame(Encode(Message{h}), kMax)), WireErrorCode::kOutOfRange);
}

TEST(ControlProtocolTest, HelloFieldsOutOfRange) {
  ExpectHelloOutOfRange([](SessionParams& p) { p.qps = 0; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.qps = kMaxQps + 1; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.size = 0; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.size = kMaxProbeSize + 1; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.post_list = 0; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.cq_moderation = kMaxCqModeration + 1; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.tx_depth = 0; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.inline_size = kMaxInline + 1; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.iterations = 0; });
  ExpectHelloOutOfRange([](SessionParams& p) { p.duration = std::chrono::milliseconds(0); });
  ExpectHelloOutOfRange([](SessionParams& p) { p.duration = std::chrono::hours(1); });
  ExpectHelloOutOfRange([](SessionParams& p) { p.mtu = 1500; });
  // Unknown probe type byte (offset 32 in the HELLO body).
  auto body = EncodeBody(Message{SampleHello()});
  body[kNonceBytes] = 9;
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kHello, body)), WireErrorCode::kOutOfRange);
}

TEST(ControlProtocolTest, EndpointFieldsOutOfRange) {
  Endpoint e = SampleEndpoint();
  e.info.active_mtu = 1500;
  EXPECT_EQ(CodeOf(DecodeFrame(Encode(Message{e}), kMax)), WireErrorCode::kOutOfRange);
  e = SampleEndpoint(0);
  EXPECT_EQ(CodeOf(DecodeFrame(Encode(Message{e}), kMax)), WireErrorCode::kOutOfRange);
  e = SampleEndpoint(kMaxQps + 1);
  EXPECT_EQ(CodeOf(DecodeFrame(Encode(Message{e}), kMax)), WireErrorCode::kOutOfRange);
  e = SampleEndpoint();
  e.info.qps[1].qpn = 0x1000000;
  EXPECT_EQ(CodeOf(DecodeFrame(Encode(Message{e}), kMax)), WireErrorCode::kOutOfRange);
  e = SampleEndpoint();
  e.info.qps[0].psn = 0x1000000;
  EXPECT_EQ(CodeOf(DecodeFrame(Encode(Message{e}), kMax)), WireErrorCode::kOutOfRange);
}

TEST(ControlProtocolTest, EndpointCountLargerThanPayload) {
  // Declares 40 QPs but carries 2: truncated, and nothing is allocated from the count.
  auto body = EncodeBody(Message{SampleEndpoint(2)});
  size_t count_off = 16 + 8 + 4 + 4 + 4;
  body[count_off] = 0;
  body[count_off + 1] = 40;
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kEndpoint, body)), WireErrorCode::kTruncated);
  // Declares 1 QP but carries 2: trailing bytes.
  body[count_off + 1] = 1;
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kEndpoint, body)), WireErrorCode::kTrailingBytes);
}

TEST(ControlProtocolTest, RejectAndDoneFieldErrors) {
  auto rej = EncodeBody(Message{Reject{RejectReason::kBusy, "x"}});
  rej[0] = 0;
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kReject, rej)), WireErrorCode::kOutOfRange);
  rej[0] = 200;
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kReject, rej)), WireErrorCode::kOutOfRange);
  // Text length above the cap (even if the bytes are there).
  std::vector<uint8_t> long_text{3, 0x01, 0x01};
  long_text.resize(3 + 257, 'a');
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kReject, long_text)), WireErrorCode::kOutOfRange);
  auto done = EncodeBody(Message{Done{}});
  done[0] = 2;
  EXPECT_EQ(CodeOf(DecodeBody(MessageType::kDone, done)), WireErrorCode::kOutOfRange);
}

TEST(ControlProtocolTest, MtuValues) {
  for (uint32_t m : {256u, 512u, 1024u, 2048u, 4096u}) EXPECT_TRUE(IsIbMtu(m));
  for (uint32_t m : {0u, 1u, 1500u, 8192u, 9000u}) EXPECT_FALSE(IsIbMtu(m));
}

}  // namespace
}  // namespace rxe::probes::control
