// The sysfs parsers (port state, phys_state, node_type, rate, counters, GIDs, GID types) and the
// /proc parsers of the host collector: any file content is a value or an error.
#include <cstdint>
#include <string_view>

#include "collectors/host_parse.h"
#include "collectors/sysfs_parse.h"

using namespace rxe::collectors;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)TrimSysfsValue(text);
  (void)ParseState(text);
  (void)ParsePhysState(text);
  (void)ParseNodeType(text);
  (void)ParseRate(text);
  (void)ParseCounter(text);
  (void)ParseGid(text);
  (void)ParseGidType(text);
  auto stat = ParseProcStat(text);
  (void)ParseSoftirqs(text);
  if (stat) (void)BusiestSoftirqCpu(*stat, *stat);
  return 0;
}
