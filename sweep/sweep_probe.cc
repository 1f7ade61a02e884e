#include "sweep/sweep_probe.h"

#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <memory>

#include "probes/control_session.h"
#include "probes/stats.h"

namespace rxe::sweep {

static_assert(sizeof(cpu_set_t) <= 128, "ScopedPin::saved_ too small");

config::Module ModuleFor(const probes::SessionParams& p, const ProbeTarget& target) {
  config::Module m;
  m.name = "sweep";
  m.type = p.type;
  m.size = p.size;
  if (p.mtu != 0) m.mtu = p.mtu;
  m.qps = p.qps;
  m.post_list = p.post_list;
  m.cq_moderation = p.cq_moderation;
  m.tx_depth = p.tx_depth;
  m.inline_size = p.inline_size;
  m.duration = p.duration;
  m.iterations = p.iterations;
  m.device = target.device;
  m.gid_index = target.gid_index;
  m.timeout =
      (config::IsBandwidth(p.type) ? p.duration : std::chrono::milliseconds(0)) + target.slack;
  m.interval = m.timeout;
  return m;
}

PointOutcome ToPointOutcome(const probes::ProbeOutcome& o) {
  PointOutcome out;
  out.cancelled = o.cancelled;
  if (o.failure || !o.measurement) {
    if (o.failure) {
      out.error =
          std::string(probes::FailureReasonName(o.failure->reason)) + ": " + o.failure->detail;
      if (!o.failure->wc_status.empty()) out.error += " (" + o.failure->wc_status + ")";
    } else {
      out.error = "internal: probe returned no measurement";
    }
    return out;
  }
  if (const auto* bw = std::get_if<probes::BandwidthMeasurement>(&*o.measurement)) {
    auto stats = probes::ComputeBandwidth(bw->bytes, bw->messages, bw->elapsed);
    out.value = stats.bits_per_second / 1e9;
  } else if (const auto* lat = std::get_if<probes::LatencyMeasurement>(&*o.measurement)) {
    if (lat->rtt_seconds.empty()) {
      out.error = "internal: latency probe without samples";
      return out;
    }
    out.value = probes::ComputeLatency(lat->rtt_seconds).median * 1e6;
  }
  return out;
}

ScopedPin::ScopedPin(const PinSpec& pin) {
  if (pin.none()) return;
  cpu_set_t saved;
  CPU_ZERO(&saved);
  if (int err = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved); err != 0) {
    error_ = "read CPU affinity: " + std::string(std::strerror(err));
    return;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : pin.cpus) {
    if (c >= 0 && c < CPU_SETSIZE) CPU_SET(c, &set);
  }
  if (int err = pthread_setaffinity_np(pthread_self(), sizeof set, &set); err != 0) {
    error_ = "pin to CPU " + pin.Label() + ": " + std::strerror(err);
    return;
  }
  std::memcpy(saved_, &saved, sizeof saved);
  restore_ = true;
}

ScopedPin::~ScopedPin() {
  if (!restore_) return;
  cpu_set_t saved;
  std::memcpy(&saved, saved_, sizeof saved);
  pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

PointFn MakeProbePointFn(ProbeTarget target, const std::atomic<bool>& cancel) {
  auto env = std::make_shared<probes::ProberEnv>();
  env->factory = probes::DefaultSessionFactory();
  env->sysfs_root = target.sysfs_root;
  env->psk = target.psk;
  env->max_buffer_bytes = target.max_buffer_bytes;
  return [target = std::move(target), env, &cancel](const probes::SessionParams& params,
                                                    const PinSpec& pin) -> PointOutcome {
    ScopedPin scoped(pin);
    if (!scoped.ok()) return PointOutcome{std::nullopt, "pin: " + scoped.error(), false};
    const config::Module module = ModuleFor(params, target);
    return ToPointOutcome(probes::RunProbe(module, target.peer, *env, cancel));
  };
}

}  // namespace rxe::sweep
