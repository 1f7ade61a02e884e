#include "probes/verbs_raii.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/log.h"

namespace rxe::probes::verbs {
namespace {

// ibv_destroy_* / ibv_dereg_mr / ibv_close_device return 0 or an errno value
// (rdma-core >= 17; older versions returned -1 and set errno).
void LogIfFailed(int ret, const char* what) {
  if (ret == 0) return;
  const int err = ret > 0 ? ret : errno;
  log::Warn("verbs teardown failed", {{"call", what}, {"error", std::strerror(err)}});
}

}  // namespace

void DeviceListDeleter::operator()(ibv_device** list) const noexcept {
  if (list != nullptr) ibv_free_device_list(list);
}
void ContextDeleter::operator()(ibv_context* ctx) const noexcept {
  if (ctx != nullptr) LogIfFailed(ibv_close_device(ctx), "ibv_close_device");
}
void PdDeleter::operator()(ibv_pd* pd) const noexcept {
  if (pd != nullptr) LogIfFailed(ibv_dealloc_pd(pd), "ibv_dealloc_pd");
}
void MrDeleter::operator()(ibv_mr* mr) const noexcept {
  if (mr != nullptr) LogIfFailed(ibv_dereg_mr(mr), "ibv_dereg_mr");
}
void CqDeleter::operator()(ibv_cq* cq) const noexcept {
  if (cq != nullptr) LogIfFailed(ibv_destroy_cq(cq), "ibv_destroy_cq");
}
void QpDeleter::operator()(ibv_qp* qp) const noexcept {
  if (qp != nullptr) LogIfFailed(ibv_destroy_qp(qp), "ibv_destroy_qp");
}
void CompChannelDeleter::operator()(ibv_comp_channel* ch) const noexcept {
  if (ch != nullptr) LogIfFailed(ibv_destroy_comp_channel(ch), "ibv_destroy_comp_channel");
}
void BufferDeleter::operator()(uint8_t* p) const noexcept { std::free(p); }

CompChannelPtr CreateNonBlockingCompChannel(ibv_context* ctx) {
  CompChannelPtr ch(ibv_create_comp_channel(ctx));
  if (!ch) return nullptr;
  const int flags = fcntl(ch->fd, F_GETFL);
  if (flags < 0 || fcntl(ch->fd, F_SETFL, flags | O_NONBLOCK) < 0) {
    const int err = errno;
    ch.reset();
    errno = err;
    return nullptr;
  }
  return ch;
}

BufferPtr AllocateBuffer(size_t bytes) {
  long page = sysconf(_SC_PAGESIZE);
  const size_t align = page > 0 ? static_cast<size_t>(page) : 4096;
  const size_t rounded = (bytes + align - 1) / align * align;
  if (rounded == 0) {
    errno = EINVAL;
    return nullptr;
  }
  void* p = std::aligned_alloc(align, rounded);
  if (p == nullptr) return nullptr;
  std::memset(p, 0, rounded);
  return BufferPtr(static_cast<uint8_t*>(p));
}

}  // namespace rxe::probes::verbs
