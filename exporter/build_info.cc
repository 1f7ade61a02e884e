#include "exporter/version.h"
namespace rxe::exporter {
const char* Version() { return RXE_EXPORTER_VERSION; }
}  // namespace rxe::exporter
