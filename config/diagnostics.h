// Collects validation errors from one or more YAML files and renders them as
//   FILE:LINE:COLUMN: KEY.PATH: what was wrong; what is allowed
// one per line, sorted by (file, line, column). Internal to config/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/result.h"

namespace rxe::config {

class Diagnostics {
 public:
  /// Registers a file name; returns its index (order of registration = sort order).
  int AddFile(std::string name);
  const std::string& FileName(int file) const { return files_[file]; }

  /// Adds an error at `mark` (0-based, as yaml-cpp reports it). A null mark
  /// (pos < 0) renders as "FILE: PATH: msg". An empty path is omitted.
  void Add(int file, const YAML::Mark& mark, std::string_view path, std::string_view msg);
  /// Adds a pre-formatted line (e.g. "open FILE: No such file or directory").
  void AddRaw(int file, std::string text);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  /// All errors sorted by position, joined with '\n'.
  std::string Render() const;
  /// kInvalidArgument error with Render() as message.
  Error ToError() const;

 private:
  struct Entry {
    int file;
    int line;    // -1 for raw / position-less entries (sort first)
    int column;
    std::string text;
  };
  std::vector<std::string> files_;
  std::vector<Entry> entries_;
};

/// Where errors of the file being parsed go.
struct Sink {
  Diagnostics* diag;
  int file;

  void Error(const YAML::Mark& mark, std::string_view path, std::string_view msg) const {
    diag->Add(file, mark, path, msg);
  }
  void Error(const YAML::Node& node, std::string_view path, std::string_view msg) const {
    diag->Add(file, node.Mark(), path, msg);
  }
};

/// "a.b" (or "b" when `path` is empty).
std::string JoinPath(std::string_view path, std::string_view key);
/// "a[3]" (or "[3]" when `path` is empty).
std::string IndexPath(std::string_view path, size_t index);

}  // namespace rxe::config
