// `rxe_exporter sweep --vary NAME=ITEMS` and `--pin`: any spec is a plan or an error.
#include <cstdint>
#include <string_view>

#include "sweep/sweep_plan.h"

using namespace rxe::sweep;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view spec(reinterpret_cast<const char*>(data), size);
  Base base;
  if (auto plan = ExpandVary(spec, base); plan.ok()) (void)ValidatePlan(*plan, 4u << 20);
  (void)ParsePinSpec(spec);
  return 0;
}
