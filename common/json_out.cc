#include "common/json_out.h"

#include <cmath>
#include <cstdio>

#include "common/text_escape.h"

namespace rxe {

void JsonString(std::string& out, std::string_view s) {
  out += '"';
  AppendJsonEscaped(out, s);
  out += '"';
}

void JsonNumber(std::string& out, double v, const char* fmt) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, v);
  out += buf;
}

void JsonKey(std::string& out, std::string_view k) {
  JsonString(out, k);
  out += ':';
}

}  // namespace rxe
