// The /debug/probes document (ProbeService::DebugJson):
//   {"pairs":[{"module","peer","type","probes","results":[newest first:
//     {"started_at","duration_seconds","success","device","path_mtu","params":{...},
//      "failure":{"reason","detail","wc_status"}|null, "bandwidth":{...}|"latency":{...},
//      "counters_attributed","counter_deltas":{...},"responder_detail"}]}]}
#pragma once

#include <string>

namespace rxe::probes {

class ResultStore;
std::string ResultsToJson(const ResultStore& store);

}  // namespace rxe::probes
