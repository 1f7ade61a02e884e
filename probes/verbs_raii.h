// RAII owners for libibverbs handles: std::unique_ptr with stateless,
// null-safe deleters. A failing destroy call is logged (common/log.h) and
// never aborts: teardown always continues with the next resource.
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>

namespace rxe::probes::verbs {

/// ibv_free_device_list (the list, not the devices).
struct DeviceListDeleter {
  void operator()(ibv_device** list) const noexcept;
};
struct ContextDeleter {
  void operator()(ibv_context* ctx) const noexcept;
};
struct PdDeleter {
  void operator()(ibv_pd* pd) const noexcept;
};
struct MrDeleter {
  void operator()(ibv_mr* mr) const noexcept;
};
struct CqDeleter {
  void operator()(ibv_cq* cq) const noexcept;
};
struct QpDeleter {
  void operator()(ibv_qp* qp) const noexcept;
};
struct CompChannelDeleter {
  void operator()(ibv_comp_channel* ch) const noexcept;
};
/// Page-aligned heap memory from AllocateBuffer().
struct BufferDeleter {
  void operator()(uint8_t* p) const noexcept;
};

using DeviceListPtr = std::unique_ptr<ibv_device*, DeviceListDeleter>;
using ContextPtr = std::unique_ptr<ibv_context, ContextDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using QpPtr = std::unique_ptr<ibv_qp, QpDeleter>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;
using BufferPtr = std::unique_ptr<uint8_t, BufferDeleter>;

/// A completion channel whose fd is non-blocking (waiters poll(2) it and then read the event,
/// so a spurious wake-up never blocks them); null (errno set) on failure.
CompChannelPtr CreateNonBlockingCompChannel(ibv_context* ctx);

/// Zeroed, page-aligned buffer of `bytes` (rounded up to the page size);
/// null (errno set) on failure.
BufferPtr AllocateBuffer(size_t bytes);

}  // namespace rxe::probes::verbs
