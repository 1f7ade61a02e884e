#include "config/peer_file.h"

#include <glob.h>

#include <algorithm>
#include <map>

#include "config/diagnostics.h"
#include "config/file_sd.h"
#include "config/parse_internal.h"

namespace rxe::config {
namespace {

// Parses one peer file into *peers (+ where names were given); registers it in `diag`.
int ParsePeerFile(const std::string& path, Diagnostics* diag, std::vector<Peer>* peers,
                  std::vector<PeerName>* names) {
  const int file = diag->AddFile(path);
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    diag->AddRaw(file, text.error().message);
    return file;
  }
  const Sink sink{diag, file};
  YAML::Node root;
  if (!ParseYamlText(*text, sink, &root)) return file;
  if (!root.IsNull() && !root.IsSequence()) {
    sink.Error(root, "",
               "a peer file must be a list of peers ({name, address, ...}) or of Prometheus "
               "file_sd target groups ({targets: [...], labels: {...}}), got " +
                   std::string(root.IsMap() ? "a map" : "a scalar"));
    return file;
  }
  if (IsFileSdList(root)) {
    const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
    ParseFileSdList(root, json, sink, peers, names);
  } else {
    ParsePeerList(root, "", sink, peers, names);
  }
  return file;
}

}  // namespace

Result<std::vector<Peer>> LoadPeerFile(const std::string& path) {
  Diagnostics diag;
  std::vector<Peer> peers;
  std::vector<PeerName> names;
  try {
    ParsePeerFile(path, &diag, &peers, &names);
  } catch (const std::exception& e) {
    return Error::Make(ErrorCode::kInternal, path + ": " + e.what());
  }
  if (!diag.empty()) return diag.ToError();
  return peers;
}

std::vector<std::string> ResolvePeerFiles(const Config& cfg) {
  const std::string dir = DirName(cfg.source_file);
  std::vector<std::string> out;
  for (const std::string& pattern : cfg.peer_files) {
    const std::string full = ResolveAgainst(dir, pattern);
    glob_t g{};
    if (glob(full.c_str(), 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) {
        std::string match = g.gl_pathv[i];
        if (std::find(out.begin(), out.end(), match) == out.end()) out.push_back(match);
      }
    }
    globfree(&g);
  }
  return out;
}

void ReadPeerFiles(const Config& cfg, Diagnostics* diag, std::vector<Peer>* out) {
  std::map<std::string, std::string> owner;  // peer name -> where it is defined
  const std::string static_owner =
      "the peers section" + (cfg.source_file.empty() ? "" : " of " + cfg.source_file);
  for (const Peer& p : cfg.peers) owner.emplace(p.name, static_owner);
  for (const std::string& path : ResolvePeerFiles(cfg)) {
    std::vector<Peer> peers;
    std::vector<PeerName> names;
    const int file = ParsePeerFile(path, diag, &peers, &names);
    const Sink sink{diag, file};
    for (size_t i = 0; i < peers.size(); ++i) {
      auto [it, inserted] = owner.emplace(peers[i].name, path);
      if (!inserted) {
        sink.Error(names[i].node, names[i].path,
                   "peer \"" + peers[i].name + "\" is already defined in " + it->second +
                       "; peer names must be unique across peers and all peer_files");
        continue;
      }
      out->push_back(std::move(peers[i]));
    }
  }
}

Result<std::vector<Peer>> LoadPeerFiles(const Config& cfg) {
  Diagnostics diag;
  std::vector<Peer> peers;
  try {
    ReadPeerFiles(cfg, &diag, &peers);
  } catch (const std::exception& e) {
    return Error::Make(ErrorCode::kInternal, std::string("peer_files: ") + e.what());
  }
  if (!diag.empty()) return diag.ToError();
  return peers;
}

std::vector<Peer> AllPeers(const Config& cfg) {
  std::vector<Peer> all = cfg.peers;
  all.insert(all.end(), cfg.file_peers.begin(), cfg.file_peers.end());
  return all;
}

}  // namespace rxe::config
