#include "probes/control_session.h"

namespace rxe::probes {

SessionFactory DefaultSessionFactory() {
  return [](const SessionParams& params, Role role, const LocalTarget& where,
            uint64_t max_buffer_bytes) {
    return RdmaSession::Create(params, role, where, max_buffer_bytes);
  };
}

}  // namespace rxe::probes
