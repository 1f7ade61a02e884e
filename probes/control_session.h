// How the responder and the prober obtain an RdmaSession. Production code
// uses DefaultSessionFactory() (RdmaSession::Create); unit tests inject a
// fake so the control-protocol flows run without an RDMA device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "probes/engine.h"

namespace rxe::probes {

using SessionFactory = std::function<ProbeResult<std::unique_ptr<RdmaSession>>(
    const SessionParams& params, Role role, const LocalTarget& where, uint64_t max_buffer_bytes)>;

/// RdmaSession::Create.
SessionFactory DefaultSessionFactory();

}  // namespace rxe::probes
