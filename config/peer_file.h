// File-based peer discovery. A peer file is a YAML list of peers with the same
// schema as the `peers:` section:
//   - {name: host-c, address: 10.0.0.3, labels: {rack: r2}}
// or a Prometheus file_sd list (JSON or YAML; config/file_sd.h), detected per file:
//   [{"targets": ["host-c", "host-d:19800"], "labels": {"rack": "r2"}}]
// LoadFile()/LoadString() read the peer files once (into Config::file_peers);
// the daemon re-reads them when their mtimes change, with the functions below.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "config/model.h"

namespace rxe::config {

/// Reads and validates one peer file. Errors name that file with line:column;
/// an empty file is an empty list.
Result<std::vector<Peer>> LoadPeerFile(const std::string& path);

/// The files matched by cfg.peer_files right now: each glob resolved relative to
/// the directory of cfg.source_file (absolute patterns as is), matches sorted per
/// pattern, duplicates removed. A pattern matching nothing contributes nothing
/// (files may appear later). Pure with respect to cfg; touches only the file system.
std::vector<std::string> ResolvePeerFiles(const Config& cfg);

/// Reads all files of ResolvePeerFiles(cfg). Peer names must be unique across
/// cfg.peers and all the files. All errors are reported, one per line.
Result<std::vector<Peer>> LoadPeerFiles(const Config& cfg);

/// cfg.peers followed by cfg.file_peers.
std::vector<Peer> AllPeers(const Config& cfg);

}  // namespace rxe::config
