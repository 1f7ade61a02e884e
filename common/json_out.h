// Appending JSON values to a string, shared by the hand-written JSON documents
// (/debug/probes, /debug/ud_mesh): a string literal, a number (null when not finite)
// and an object key.
#pragma once

#include <string>
#include <string_view>

namespace rxe {

/// `s` quoted and escaped.
void JsonString(std::string& out, std::string_view s);
/// `v` with printf format `fmt` (default: 9 significant digits); `null` for NaN/inf.
void JsonNumber(std::string& out, double v, const char* fmt = "%.9g");
/// `"k":`
void JsonKey(std::string& out, std::string_view k);

}  // namespace rxe
