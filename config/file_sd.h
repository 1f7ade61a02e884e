// Peer files in Prometheus file_sd format (the file a `file_sd_configs` job reads), so one
// generated file feeds both Prometheus and the mesh:
//   [{"targets": ["host-a", "host-b:19800", "[fd00::3]"], "labels": {"rack": "r1"}}]
// or the same as a YAML list. Each target becomes a config::Peer: name = the target string as
// written, address/port from "host", "host:port" or "[ipv6]:port" (port = the responder's
// control port, default 19792), labels = the group's labels minus those starting with "__"
// and those the exporter or Prometheus set (peer, module, instance, job, ...), which stay
// Prometheus' business. Internal to config/ (peer_file.cc picks the format per file).
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/parse_internal.h"

namespace rxe::config {

/// True if `list` (a YAML sequence) is a file_sd list: its first entry that has `targets`,
/// `name` or `address` has `targets` (and neither of the others).
bool IsFileSdList(const YAML::Node& list);

/// Parses a file_sd list into *out. `json`: the file is JSON (*.json), where Prometheus
/// requires targets and label values to be strings, so unquoted scalars are errors. `names`
/// receives, per parsed peer, where its target was given. A target given twice is an error.
void ParseFileSdList(const YAML::Node& list, bool json, const Sink& sink, std::vector<Peer>* out,
                     std::vector<PeerName>* names);

}  // namespace rxe::config
