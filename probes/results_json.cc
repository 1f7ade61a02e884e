// ResultStore -> JSON for /debug/probes: the last history_per_pair results of
// every pair with parameters, timestamps, numbers and failure details.
#include <cstdio>
#include <ctime>

#include "common/json_out.h"
#include "probes/results.h"
#include "probes/results_json.h"

namespace rxe::probes {
namespace {

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  return buf;
}

void Params(std::string& out, const SessionParams& p) {
  out += "{\"type\":";
  JsonString(out, config::ProbeTypeName(p.type));
  out += ",\"size\":" + std::to_string(p.size) + ",\"qps\":" + std::to_string(p.qps) +
         ",\"post_list\":" + std::to_string(p.post_list) +
         ",\"cq_moderation\":" + std::to_string(p.cq_moderation) +
         ",\"tx_depth\":" + std::to_string(p.tx_depth) + ",\"inline_size\":" + std::to_string(p.inline_size) +
         ",\"iterations\":" + std::to_string(p.iterations) +
         ",\"duration_ms\":" + std::to_string(p.duration.count()) + ",\"mtu\":" + std::to_string(p.mtu) +
         ",\"qp_timeout\":" + std::to_string(p.qp_timeout) +
         ",\"use_event\":" + (p.use_event ? "true" : "false") + "}";
}

void Entry(std::string& out, const HistoryEntry& e) {
  const ProbeOutcome& o = e.outcome;
  out += "{\"started_at\":";
  JsonString(out, Rfc3339(o.started_at));
  out += ",\"duration_seconds\":";
  JsonNumber(out, std::chrono::duration<double>(o.duration).count());
  out += std::string(",\"success\":") + (o.success ? "true" : "false") + ",\"device\":";
  JsonString(out, o.device);
  out += ",\"path_mtu\":" + std::to_string(o.path_mtu) + ",\"params\":";
  Params(out, o.params);
  out += ",\"failure\":";
  if (o.failure) {
    out += "{\"reason\":";
    JsonString(out, FailureReasonName(o.failure->reason));
    out += ",\"detail\":";
    JsonString(out, o.failure->detail);
    out += ",\"wc_status\":";
    JsonString(out, o.failure->wc_status);
    out += "}";
  } else {
    out += "null";
  }
  if (e.bandwidth && o.measurement) {
    const auto& m = std::get<BandwidthMeasurement>(*o.measurement);
    out += ",\"bandwidth\":{\"bytes\":" + std::to_string(m.bytes) +
           ",\"messages\":" + std::to_string(m.messages) + ",\"elapsed_seconds\":";
    JsonNumber(out, std::chrono::duration<double>(m.elapsed).count());
    out += ",\"bytes_per_second\":";
    JsonNumber(out, e.bandwidth->bytes_per_second);
    out += ",\"messages_per_second\":";
    JsonNumber(out, e.bandwidth->messages_per_second);
    out += "}";
  }
  if (e.latency) {
    const LatencyStats& l = *e.latency;
    out += ",\"latency\":{\"samples\":" + std::to_string(l.samples) + ",\"kept\":" + std::to_string(l.kept);
    std::pair<const char*, double> f[] = {{"min_seconds", l.min},   {"median_seconds", l.median},
                                          {"mean_seconds", l.mean}, {"p99_seconds", l.p99},
                                          {"p999_seconds", l.p999}, {"max_seconds", l.max},
                                          {"stddev_seconds", l.stdev}};
    for (const auto& [k, v] : f) {
      out += ',';
      JsonKey(out, k);
      JsonNumber(out, v);
    }
    out += "}";
  }
  out += std::string(",\"counters_attributed\":") + (o.counters_attributed ? "true" : "false");
  out += ",\"counter_deltas\":{";
  bool first = true;
  for (const auto& [name, v] : o.counter_deltas) {
    if (!first) out += ',';
    first = false;
    JsonKey(out, name);
    out += std::to_string(v);
  }
  out += "},\"data_phase\":";
  if (o.data_start && o.data_end) {
    out += "{\"start_seconds\":";
    JsonNumber(out, std::chrono::duration<double>(*o.data_start).count());
    out += ",\"end_seconds\":";
    JsonNumber(out, std::chrono::duration<double>(*o.data_end).count());
    out += "}";
  } else {
    out += "null";
  }
  out += ",\"responder_detail\":";
  JsonString(out, o.responder_detail);
  out += "}";
}

}  // namespace

std::string ResultsToJson(const ResultStore& store) {
  std::string out = "{\"pairs\":[";
  bool first_pair = true;
  store.ForEach([&](const PairState& s) {
    if (!first_pair) out += ',';
    first_pair = false;
    out += "{\"module\":";
    JsonString(out, s.info.key.module);
    out += ",\"peer\":";
    JsonString(out, s.info.key.peer);
    out += ",\"type\":";
    JsonString(out, config::ProbeTypeName(s.info.type));
    out += ",\"probes\":" + std::to_string(s.probes) + ",\"results\":[";
    bool first = true;
    for (auto it = s.history.rbegin(); it != s.history.rend(); ++it) {  // newest first
      if (!first) out += ',';
      first = false;
      Entry(out, *it);
    }
    out += "]}";
  });
  out += "]}";
  return out;
}

}  // namespace rxe::probes
