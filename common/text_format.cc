#include "common/text_format.h"

#include <cmath>
#include <cstdio>

#include "common/text_escape.h"

namespace rxe::textfmt {

std::string JsonString(std::string_view s) { return JsonQuoted(s); }

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == 0) v = 0;  // no "-0"
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string JsonNumber(const std::optional<double>& v) { return v ? JsonNumber(*v) : "null"; }

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string XmlEscape(std::string_view s) { return MarkupEscape(s); }

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string PadRight(std::string_view s, size_t width) {
  std::string out(s);
  for (size_t w = DisplayWidth(s); w < width; ++w) out += ' ';
  return out;
}

std::string PadLeft(std::string_view s, size_t width) {
  std::string out;
  for (size_t w = DisplayWidth(s); w < width; ++w) out += ' ';
  return out + std::string(s);
}

}  // namespace rxe::textfmt
