// The responder's message handling: a real Responder (fake RDMA session) on 127.0.0.1 gets the
// input as the bytes of one control connection (HELLO, AUTH, ENDPOINT, READY, DONE, BYE ... in
// any order or form), then EOF. It must answer or close, never crash, and leave no session.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <memory>

#include "probes/control_io.h"
#include "probes/responder.h"
#include "tests/probes/prober_test_fakes.h"

using namespace rxe::probes;

namespace {

struct Server {
  std::shared_ptr<testing::FakeBehavior> fake = std::make_shared<testing::FakeBehavior>();
  DeviceActivity activity;
  Responder responder{testing::FakeFactory(fake), &activity};
  uint16_t port = 0;
  Server() {
    ResponderSettings s;
    s.listen_addresses = {"127.0.0.1:0"};
    s.acl = *SourceAcl::Make({"127.0.0.0/8"}, {});
    s.io_timeout = std::chrono::milliseconds(200);
    s.max_session_duration = std::chrono::seconds(2);
    if (!responder.Start(std::move(s)).ok()) std::abort();
    port = responder.BoundPorts().at(0);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Server* server = new Server();  // one responder for the whole run
  auto conn = control::ConnectTcp("127.0.0.1", server->port, Clock::now() + std::chrono::seconds(2));
  auto* fd = std::get_if<control::Fd>(&conn);
  if (fd == nullptr) std::abort();  // the responder stopped accepting
  size_t off = 0;
  while (off < size) {
    ssize_t n = ::send(fd->get(), data + off, size - off, MSG_NOSIGNAL);
    if (n <= 0) break;  // the responder closed early (REJECT): fine
    off += static_cast<size_t>(n);
  }
  ::shutdown(fd->get(), SHUT_WR);
  // Read the answers until the responder closes (bounded: io_timeout and the session cap).
  auto deadline = Clock::now() + std::chrono::seconds(10);
  char buf[4096];
  for (;;) {
    if (Clock::now() > deadline) std::abort();  // the responder hangs on this input
    pollfd p{fd->get(), POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    if (::recv(fd->get(), buf, sizeof buf, 0) <= 0) break;
  }
  return 0;
}
