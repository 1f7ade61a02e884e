#include "config/diagnostics.h"

#include <algorithm>

namespace rxe::config {

int Diagnostics::AddFile(std::string name) {
  files_.push_back(std::move(name));
  return static_cast<int>(files_.size()) - 1;
}

void Diagnostics::Add(int file, const YAML::Mark& mark, std::string_view path,
                      std::string_view msg) {
  std::string text = files_[file];
  const bool has_pos = mark.pos >= 0 && mark.line >= 0 && mark.column >= 0;
  if (has_pos) {
    text += ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1);
  }
  text += ": ";
  if (!path.empty()) {
    text += path;
    text += ": ";
  }
  text += msg;
  entries_.push_back({file, has_pos ? mark.line : -1, has_pos ? mark.column : -1,
                      std::move(text)});
}

void Diagnostics::AddRaw(int file, std::string text) {
  entries_.push_back({file, -1, -1, std::move(text)});
}

std::string Diagnostics::Render() const {
  std::vector<const Entry*> sorted;
  sorted.reserve(entries_.size());
  for (const Entry& e : entries_) sorted.push_back(&e);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
    if (a->file != b->file) return a->file < b->file;
    if (a->line != b->line) return a->line < b->line;
    return a->column < b->column;
  });
  std::string out;
  for (const Entry* e : sorted) {
    if (!out.empty()) out += '\n';
    out += e->text;
  }
  return out;
}

Error Diagnostics::ToError() const {
  return Error::Make(ErrorCode::kInvalidArgument, Render());
}

std::string JoinPath(std::string_view path, std::string_view key) {
  std::string out(path);
  if (!out.empty()) out += '.';
  out += key;
  return out;
}

std::string IndexPath(std::string_view path, size_t index) {
  std::string out(path);
  out += '[' + std::to_string(index) + ']';
  return out;
}

}  // namespace rxe::config
