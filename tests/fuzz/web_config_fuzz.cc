// The web config (--web.config.file): TLS and basic-auth YAML. Errors, never crashes.
#include <cstdint>
#include <string>

#include "exporter/web_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  (void)rxe::exporter::ParseWebConfig(text, "web.yml", "/nonexistent");
  return 0;
}
