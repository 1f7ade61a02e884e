// Placeholder until the probe engine lands (issue 3): starts nothing.
#include "probes/probe_service.h"

namespace rxe::probes {

struct ProbeService::Impl {};

ProbeService::ProbeService() : impl_(std::make_unique<Impl>()) {}
ProbeService::~ProbeService() = default;
Status ProbeService::Start(const config::Config&) { return Status::Ok(); }
Status ProbeService::ApplyConfig(const config::Config&) { return Status::Ok(); }
void ProbeService::Stop() {}
std::vector<prometheus::MetricFamily> ProbeService::Collect() const { return {}; }
std::string ProbeService::DebugJson() const { return "{\"results\":[]}"; }

}  // namespace rxe::probes
