// --web.listen-address / responder.listen_addresses: "[host]:port" forms.
#include <cstdint>
#include <string>

#include "exporter/listen_address.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)rxe::exporter::ParseListenAddress(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
