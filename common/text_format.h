// Small text helpers shared by the sweep and doctor renderers (pure,
// locale-independent, deterministic so golden files compare byte for byte).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rxe::textfmt {

/// A JSON string literal with escapes ("\"", "\\", control characters).
std::string JsonString(std::string_view s);
/// A JSON number with up to 6 significant digits ("%.6g"), "null" if not finite.
std::string JsonNumber(double v);
std::string JsonNumber(const std::optional<double>& v);
/// A CSV field (RFC 4180: quoted when it contains , " or a line break).
std::string CsvField(std::string_view s);
/// Text for XML character data and attribute values (& < > " escaped).
std::string XmlEscape(std::string_view s);
/// printf("%.*f") with `decimals`; negative zero printed as zero.
std::string Fixed(double v, int decimals);
/// Display width in code points (UTF-8 continuation bytes do not count).
size_t DisplayWidth(std::string_view s);
/// Pads with spaces to `width` code points: on the right (left-aligned) or left.
std::string PadRight(std::string_view s, size_t width);
std::string PadLeft(std::string_view s, size_t width);

}  // namespace rxe::textfmt
