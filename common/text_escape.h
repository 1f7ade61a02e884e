// String escaping shared by every text format the project writes: JSON string
// literals (logs, /debug/probes, sweep and doctor JSON) and markup character
// data / attribute values (the landing page's HTML, the sweep's SVG).
#pragma once

#include <string>
#include <string_view>

namespace rxe {

/// Appends `s` escaped for the inside of a JSON string literal: `"`, `\` and
/// control characters (\n \r \t by name, the rest as \u00XX). No quotes.
void AppendJsonEscaped(std::string& out, std::string_view s);

/// `s` as a JSON string literal, quotes included.
std::string JsonQuoted(std::string_view s);

/// `s` escaped for HTML and XML text and attribute values: & < > " ' become
/// entities; control characters other than \n and \t (which XML 1.0 forbids
/// even as character references) become spaces.
std::string MarkupEscape(std::string_view s);

}  // namespace rxe
