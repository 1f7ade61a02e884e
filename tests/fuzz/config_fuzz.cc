// The config loader: the main YAML file (every section, peer_files globs included) and a peer
// file (the same peer schema, read from disk). Bad input must be an error, never a crash.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "config/loader.h"
#include "config/peer_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)rxe::config::LoadString(text, "fuzz.yml");
  // The same bytes as a peer file.
  static const std::string path = "/tmp/rxe-config-fuzz-" + std::to_string(::getpid()) + ".yml";
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(data, 1, size, f);
    std::fclose(f);
    (void)rxe::config::LoadPeerFile(path);
  }
  return 0;
}
