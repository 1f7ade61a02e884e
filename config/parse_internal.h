// Internal parsing steps shared by loader.cc, sections.cc, module_parse.cc,
// peer_parse.cc and peer_file.cc. Not part of the config API.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/result.h"
#include "config/diagnostics.h"
#include "config/model.h"
#include "config/yaml_fields.h"

namespace rxe::config {

/// A module's reference to a peer by name, checked once peer files are read.
struct PeerRef {
  std::string name;
  YAML::Node node;
  std::string path;
};

/// Largest config or peer file read (1 MiB: about 20,000 peers of a peer file; yaml-cpp
/// parses it in well under a second, so a reload never holds up the daemon's main loop).
inline constexpr size_t kMaxYamlFileBytes = 1u << 20;

/// Reads a whole file of at most kMaxYamlFileBytes; "open PATH: <strerror>" /
/// "read PATH: <strerror>" / "PATH: file is larger than ..." on failure.
Result<std::string> ReadTextFile(const std::string& path);
/// Parses one YAML document (empty text = null node). Syntax errors, text above
/// kMaxYamlFileBytes and extra documents are reported to `sink`; returns false then.
/// Never calls YAML::LoadAll, which loops forever on some invalid input (yaml-cpp 0.7, e.g. ",").
bool ParseYamlText(const std::string& text, const Sink& sink, YAML::Node* out);
/// Directory of `file` ("" when it has none); `p` made relative to `dir` unless absolute.
std::string DirName(const std::string& file);
std::string ResolveAgainst(const std::string& dir, const std::string& p);

/// Where a parsed peer's name was given (for clash errors).
struct PeerName {
  YAML::Node node;
  std::string path;
};

/// A YAML list of peers at `path` ("peers", or "" for a peer file). `names`
/// receives, per parsed peer, where its name was given.
void ParsePeerList(const YAML::Node& list, const std::string& path, const Sink& sink,
                   std::vector<Peer>* out, std::vector<PeerName>* names);

/// `owner`'s `labels` key: a map of valid, non-reserved label names to strings, into *out.
/// False when the key is absent (or null) or not a map.
bool ParseLabelMap(const MapReader& owner, std::map<std::string, std::string>* out);

void ParseDevices(const YAML::Node& node, const Sink& sink, DeviceFilter* out);
void ParseCollectors(const YAML::Node& node, const Sink& sink, CollectorsConfig* out);
void ParseResponder(const YAML::Node& node, const Sink& sink, ResponderConfig* out);
void ParseProber(const YAML::Node& node, const Sink& sink, ProberConfig* out);
/// `peer_files` patterns (syntax only; resolution happens in peer_file.cc).
void ParsePeerFilePatterns(const YAML::Node& node, const Sink& sink,
                           std::vector<std::string>* out);
void ParseModules(const YAML::Node& node, const Sink& sink, std::map<std::string, Module>* out,
                  std::vector<PeerRef>* refs);

/// Resolves and reads cfg.peer_files; each file registers itself in `diag`.
/// Peer names must not clash with cfg.peers nor across files.
void ReadPeerFiles(const Config& cfg, Diagnostics* diag, std::vector<Peer>* out);

}  // namespace rxe::config
