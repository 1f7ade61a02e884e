// Helpers for the config tests: fixture paths and messages without the
// checkout-specific fixture directory.
#pragma once

#include <string>
#include <vector>

#include "config/loader.h"

namespace rxe::config::testing {

inline std::string FixtureDir() { return std::string(RXE_FIXTURES_DIR) + "/config"; }
inline std::string Fixture(const std::string& name) { return FixtureDir() + "/" + name; }

/// The names of `peers`, in order.
inline std::vector<std::string> PeerNames(const std::vector<Peer>& peers) {
  std::vector<std::string> out;
  for (const Peer& p : peers) out.push_back(p.name);
  return out;
}

/// "OK" if `yaml` loads as the config file `source_name`, else the loader's error message
/// (which starts with `source_name`).
inline std::string ErrorOf(const std::string& yaml, const std::string& source_name = "t.yml") {
  auto cfg = LoadString(yaml, source_name);
  return cfg.ok() ? "OK" : cfg.error().message;
}

/// `text` with every "<fixture dir>/" removed.
inline std::string StripFixtureDir(std::string text) {
  const std::string prefix = FixtureDir() + "/";
  for (size_t pos; (pos = text.find(prefix)) != std::string::npos;) text.erase(pos, prefix.size());
  return text;
}

}  // namespace rxe::config::testing
