#include "config/loader.h"

#include <set>

#include "config/diagnostics.h"
#include "config/mesh_parse.h"
#include "config/module_peers.h"
#include "config/parse_internal.h"
#include "config/peer_file.h"
#include "config/rules.h"
#include "config/yaml_fields.h"

namespace rxe::config {
namespace {

const std::vector<std::string> kTopKeys{"devices", "collectors", "responder", "prober",
                                        "peers",   "peer_files", "modules"};

void CheckPeerRefs(const Config& cfg, const std::vector<PeerRef>& refs, const Sink& sink) {
  std::set<std::string> known;
  for (const Peer& p : AllPeers(cfg)) known.insert(p.name);
  const std::string names = known.empty()
                                ? "no peers are defined"
                                : "known peers: " + JoinList({known.begin(), known.end()});
  for (const PeerRef& ref : refs) {
    if (known.count(ref.name)) continue;
    sink.Error(ref.node, ref.path,
               "unknown peer \"" + ref.name + "\"; must name a peer from peers or peer_files (" +
                   names + ")");
  }
}

// Every (module, peer) pair is scheduled and exported (PairsFrom in probes/): cap them.
// A module pairs with ModulePeers (prober.self removed, subset applied).
void CheckPairCount(const Config& cfg, const YAML::Node& modules, const Sink& sink) {
  std::set<std::string> all;
  for (const Peer& p : AllPeers(cfg)) all.insert(p.name);
  uint64_t pairs = 0;
  for (const auto& [name, m] : cfg.modules) pairs += ModulePeers(cfg, m).size();
  if (pairs <= cfg.prober.max_pairs) return;
  sink.Error(modules, "modules",
             std::to_string(cfg.modules.size()) + " modules x " + std::to_string(all.size()) +
                 " peers make " + std::to_string(pairs) +
                 " (module, peer) pairs, above prober.max_pairs " +
                 std::to_string(cfg.prober.max_pairs) +
                 "; each pair exports about 42 series (~3.2 KB per scrape): list fewer peers in "
                 "the modules' peers or raise prober.max_pairs (at most " +
                 std::to_string(kMaxMaxPairs) + ")");
}

void ResolvePsk(const std::string& dir, std::string* psk_file) {
  if (!psk_file->empty()) *psk_file = ResolveAgainst(dir, *psk_file);
}

void Parse(const std::string& yaml, const Sink& sink, Config* cfg) {
  YAML::Node root;
  if (!ParseYamlText(yaml, sink, &root)) return;
  MapReader top(root, "", sink, &kTopKeys, "a map of sections (" + JoinList(kTopKeys) + ")");
  if (!top.ok()) return;
  const auto section = [&](std::string_view key) {
    const auto* e = top.Find(key);
    return e ? e->value : YAML::Node();
  };
  ParseDevices(section("devices"), sink, &cfg->devices);
  ParseCollectors(section("collectors"), sink, &cfg->collectors);
  ParseResponder(section("responder"), sink, &cfg->responder);
  ParseProber(section("prober"), sink, &cfg->prober);
  std::vector<PeerName> names;
  ParsePeerList(section("peers"), "peers", sink, &cfg->peers, &names);
  ParsePeerFilePatterns(section("peer_files"), sink, &cfg->peer_files);
  std::vector<PeerRef> refs;
  ParseModules(section("modules"), sink, &cfg->modules, &refs);

  ReadPeerFiles(*cfg, sink.diag, &cfg->file_peers);
  CheckPeerRefs(*cfg, refs, sink);
  CheckSubsetsHaveSelf(*cfg, section("modules"), sink);
  CheckPairCount(*cfg, section("modules"), sink);
  const std::string dir = DirName(cfg->source_file);
  ResolvePsk(dir, &cfg->responder.psk_file);
  ResolvePsk(dir, &cfg->prober.psk_file);
}

}  // namespace

std::string DirName(const std::string& file) {
  const size_t slash = file.rfind('/');
  if (slash == std::string::npos) return "";
  return slash == 0 ? "/" : file.substr(0, slash);
}

std::string ResolveAgainst(const std::string& dir, const std::string& p) {
  if (dir.empty() || p.empty() || p.front() == '/') return p;
  return dir.back() == '/' ? dir + p : dir + "/" + p;
}

Result<Config> LoadString(const std::string& yaml, const std::string& source_name) {
  Diagnostics diag;
  const Sink sink{&diag, diag.AddFile(source_name)};
  Config cfg;
  cfg.source_file = source_name;
  try {
    Parse(yaml, sink, &cfg);
  } catch (const YAML::Exception& e) {
    return Error::Make(ErrorCode::kInvalidArgument, source_name + ": " + e.what());
  } catch (const std::exception& e) {
    return Error::Make(ErrorCode::kInternal, source_name + ": " + e.what());
  }
  if (!diag.empty()) return diag.ToError();
  return cfg;
}

Result<Config> LoadFile(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text.ok()) return text.error();
  return LoadString(*text, path);
}

}  // namespace rxe::config
