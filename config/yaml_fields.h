// Strict reading of YAML maps and typed scalars with positioned errors.
// yaml-cpp has no strict mode, so MapReader walks every map and reports
// duplicate keys, non-string keys and unknown keys; the Get* helpers convert
// one value and report wrong types and out-of-range values. A null value
// (`key:` or `key: ~`) means "not given" (the default applies), as in Go YAML.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/diagnostics.h"
#include "config/model.h"

namespace rxe::config {

/// Outcome of reading one field: not given (default kept), read, or invalid (reported).
enum class Got { kAbsent, kOk, kBad };

/// How a node is named in "got ..." messages: a map, a list, null, or the quoted scalar.
std::string Describe(const YAML::Node& node);

class MapReader {
 public:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };

  /// `allowed` = the known keys (nullptr: any key, for free-form maps like
  /// labels and modules). A null node reads as an empty map. Any other non-map
  /// is reported as "must be <what>, got ..." and ok() is false.
  MapReader(const YAML::Node& node, std::string path, const Sink& sink,
            const std::vector<std::string>* allowed, std::string_view what = "a map");

  bool ok() const { return ok_; }
  const std::string& path() const { return path_; }
  const Sink& sink() const { return sink_; }
  const YAML::Node& node() const { return node_; }
  /// Accepted entries in file order (first occurrence of each known key; null values included).
  const std::vector<Entry>& entries() const { return entries_; }
  /// The entry for `key` if given with a non-null value, else nullptr.
  const Entry* Find(std::string_view key) const;
  std::string PathOf(std::string_view key) const { return JoinPath(path_, key); }
  /// Reports "<path>.<key>: required key is missing; <allowed>" at the map's position.
  void Missing(std::string_view key, std::string_view allowed) const;

 private:
  YAML::Node node_;
  std::string path_;
  Sink sink_;
  bool ok_ = true;
  std::vector<Entry> entries_;
};

Got GetBool(const MapReader& r, std::string_view key, bool* out);
Got GetString(const MapReader& r, std::string_view key, std::string* out);
/// Decimal integer in [lo, hi].
Got GetUint(const MapReader& r, std::string_view key, uint64_t lo, uint64_t hi, uint64_t* out);
/// Byte size (integer or B/KiB/MiB/GiB suffix) in [lo, hi].
Got GetBytes(const MapReader& r, std::string_view key, uint64_t lo, uint64_t hi, uint64_t* out);
Got GetDuration(const MapReader& r, std::string_view key, Duration lo, Duration hi,
                Duration* out);
/// One of `allowed` (exact match).
Got GetEnum(const MapReader& r, std::string_view key, const std::vector<std::string>& allowed,
            std::string* out);
/// A list of strings; `nodes` (optional) receives the element nodes for positioned errors.
Got GetStringList(const MapReader& r, std::string_view key, std::vector<std::string>* out,
                  std::vector<YAML::Node>* nodes = nullptr);

/// Node-level: a scalar's text, or reports "must be <what>, got ..." and returns false.
bool ScalarText(const YAML::Node& node, std::string_view path, const Sink& sink,
                std::string_view what, std::string* out);
/// Node-level decimal integer in [lo, hi].
Got ParseUintNode(const YAML::Node& node, std::string_view path, const Sink& sink, uint64_t lo,
                  uint64_t hi, uint64_t* out);

template <typename T>
Got GetUintAs(const MapReader& r, std::string_view key, uint64_t lo, uint64_t hi, T* out) {
  uint64_t v = 0;
  const Got g = GetUint(r, key, lo, hi, &v);
  if (g == Got::kOk) *out = static_cast<T>(v);
  return g;
}

template <typename T>
Got GetBytesAs(const MapReader& r, std::string_view key, uint64_t lo, uint64_t hi, T* out) {
  uint64_t v = 0;
  const Got g = GetBytes(r, key, lo, hi, &v);
  if (g == Got::kOk) *out = static_cast<T>(v);
  return g;
}

}  // namespace rxe::config
