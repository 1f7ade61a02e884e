#include "collectors/collector.h"

namespace rxe::collectors {

DeviceMatcher::DeviceMatcher() : include_(".*") {}

DeviceMatcher::DeviceMatcher(const std::string& include, const std::string& exclude)
    : include_(include.empty() ? std::string(".*") : include),
      has_exclude_(!exclude.empty()) {
  if (has_exclude_) exclude_ = std::regex(exclude);
}

bool DeviceMatcher::Matches(const std::string& device) const {
  if (!std::regex_match(device, include_)) return false;
  return !(has_exclude_ && std::regex_match(device, exclude_));
}

}  // namespace rxe::collectors
