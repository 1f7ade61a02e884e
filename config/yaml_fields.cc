#include "config/yaml_fields.h"

#include <algorithm>

#include "config/rules.h"
#include "config/units.h"

namespace rxe::config {
namespace {

bool IsIntegerText(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string Range(uint64_t lo, uint64_t hi) {
  return "between " + std::to_string(lo) + " and " + std::to_string(hi);
}

std::string ByteRange(uint64_t lo, uint64_t hi) {
  return "between " + FormatBytes(lo) + " and " + FormatBytes(hi);
}

std::string DurationRange(Duration lo, Duration hi) {
  return "between " + FormatDuration(lo) + " and " + FormatDuration(hi);
}

}  // namespace

std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "\"" + node.Scalar() + "\"";
    default: return "null";
  }
}

MapReader::MapReader(const YAML::Node& node, std::string path, const Sink& sink,
                     const std::vector<std::string>* allowed, std::string_view what)
    : node_(node), path_(std::move(path)), sink_(sink) {
  if (node.IsNull() || !node.IsDefined()) return;
  if (!node.IsMap()) {
    sink_.Error(node, path_, "must be " + std::string(what) + ", got " + Describe(node));
    ok_ = false;
    return;
  }
  for (const auto& kv : node) {
    const YAML::Node k = kv.first;
    if (!k.IsScalar()) {
      sink_.Error(k, path_, "keys must be strings, got " + Describe(k));
      continue;
    }
    const std::string key = k.Scalar();
    auto prev = std::find_if(entries_.begin(), entries_.end(),
                             [&](const Entry& e) { return e.key == key; });
    if (prev != entries_.end()) {
      sink_.Error(k, PathOf(key),
                  "duplicate key, first given at line " +
                      std::to_string(prev->key_node.Mark().line + 1) +
                      "; each key may appear once");
      continue;
    }
    if (allowed && std::find(allowed->begin(), allowed->end(), key) == allowed->end()) {
      sink_.Error(k, PathOf(key), "unknown key; allowed keys: " + JoinList(*allowed));
      continue;
    }
    entries_.push_back({key, k, kv.second});
  }
}

const MapReader::Entry* MapReader::Find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.key == key) return e.value.IsNull() ? nullptr : &e;
  }
  return nullptr;
}

void MapReader::Missing(std::string_view key, std::string_view allowed) const {
  sink_.Error(node_, PathOf(key), "required key is missing; " + std::string(allowed));
}

bool ScalarText(const YAML::Node& node, std::string_view path, const Sink& sink,
                std::string_view what, std::string* out) {
  if (!node.IsScalar()) {
    sink.Error(node, path, "must be " + std::string(what) + ", got " + Describe(node));
    return false;
  }
  *out = node.Scalar();
  return true;
}

Got ParseUintNode(const YAML::Node& node, std::string_view path, const Sink& sink, uint64_t lo,
                  uint64_t hi, uint64_t* out) {
  std::string text;
  if (!ScalarText(node, path, sink, "an integer " + Range(lo, hi), &text)) return Got::kBad;
  if (!IsIntegerText(text)) {
    sink.Error(node, path, "must be an integer " + Range(lo, hi) + ", got \"" + text + "\"");
    return Got::kBad;
  }
  uint64_t v = 0;
  const bool fits = text.front() != '-' && text.size() <= 20 &&
                    (text.size() < 20 || text <= "18446744073709551615");
  if (fits) v = std::stoull(text);
  if (!fits || v < lo || v > hi) {
    sink.Error(node, path, "must be " + Range(lo, hi) + ", got " + text);
    return Got::kBad;
  }
  *out = v;
  return Got::kOk;
}

Got GetBool(const MapReader& r, std::string_view key, bool* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  const std::string path = r.PathOf(key);
  std::string text;
  if (!ScalarText(e->value, path, r.sink(), "true or false", &text)) return Got::kBad;
  if (text == "true" || text == "True" || text == "TRUE") {
    *out = true;
  } else if (text == "false" || text == "False" || text == "FALSE") {
    *out = false;
  } else {
    r.sink().Error(e->value, path, "must be true or false, got \"" + text + "\"");
    return Got::kBad;
  }
  return Got::kOk;
}

Got GetString(const MapReader& r, std::string_view key, std::string* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  return ScalarText(e->value, r.PathOf(key), r.sink(), "a string", out) ? Got::kOk : Got::kBad;
}

Got GetUint(const MapReader& r, std::string_view key, uint64_t lo, uint64_t hi, uint64_t* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  return ParseUintNode(e->value, r.PathOf(key), r.sink(), lo, hi, out);
}

Got GetBytes(const MapReader& r, std::string_view key, uint64_t lo, uint64_t hi, uint64_t* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  const std::string path = r.PathOf(key);
  const std::string what = "a byte size " + ByteRange(lo, hi) +
                           " (an integer, optionally with a B, KiB, MiB or GiB suffix)";
  std::string text;
  if (!ScalarText(e->value, path, r.sink(), what, &text)) return Got::kBad;
  const auto v = ParseBytes(text);
  if (!v) {
    // A negative or huge plain integer is a range problem, not a syntax one.
    if (IsIntegerText(text)) {
      r.sink().Error(e->value, path, "must be " + ByteRange(lo, hi) + ", got " + text);
    } else {
      r.sink().Error(e->value, path, "must be " + what + ", got \"" + text + "\"");
    }
    return Got::kBad;
  }
  if (*v < lo || *v > hi) {
    r.sink().Error(e->value, path, "must be " + ByteRange(lo, hi) + ", got " + text);
    return Got::kBad;
  }
  *out = *v;
  return Got::kOk;
}

Got GetDuration(const MapReader& r, std::string_view key, Duration lo, Duration hi,
                Duration* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  const std::string path = r.PathOf(key);
  const std::string what = "a duration like 500ms, 10s or 1m30s";
  std::string text;
  if (!ScalarText(e->value, path, r.sink(), what, &text)) return Got::kBad;
  const auto d = ParseDuration(text);
  if (!d) {
    r.sink().Error(e->value, path, "must be " + what + ", got \"" + text + "\"");
    return Got::kBad;
  }
  if (*d < lo || *d > hi) {
    r.sink().Error(e->value, path, "must be " + DurationRange(lo, hi) + ", got " + text);
    return Got::kBad;
  }
  *out = *d;
  return Got::kOk;
}

Got GetEnum(const MapReader& r, std::string_view key, const std::vector<std::string>& allowed,
            std::string* out) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  const std::string path = r.PathOf(key);
  const std::string what = "one of " + JoinList(allowed);
  std::string text;
  if (!ScalarText(e->value, path, r.sink(), what, &text)) return Got::kBad;
  if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) {
    r.sink().Error(e->value, path, "must be " + what + ", got \"" + text + "\"");
    return Got::kBad;
  }
  *out = text;
  return Got::kOk;
}

Got GetStringList(const MapReader& r, std::string_view key, std::vector<std::string>* out,
                  std::vector<YAML::Node>* nodes) {
  const auto* e = r.Find(key);
  if (!e) return Got::kAbsent;
  const std::string path = r.PathOf(key);
  if (!e->value.IsSequence()) {
    r.sink().Error(e->value, path, "must be a list of strings, got " + Describe(e->value));
    return Got::kBad;
  }
  std::vector<std::string> items;
  std::vector<YAML::Node> item_nodes;
  bool ok = true;
  size_t i = 0;
  for (const YAML::Node& item : e->value) {
    std::string text;
    if (ScalarText(item, IndexPath(path, i), r.sink(), "a string", &text)) {
      items.push_back(std::move(text));
      item_nodes.push_back(item);
    } else {
      ok = false;
    }
    ++i;
  }
  if (!ok) return Got::kBad;
  *out = std::move(items);
  if (nodes) *nodes = std::move(item_nodes);
  return Got::kOk;
}

}  // namespace rxe::config
