// Parsing of the mesh options of issue 15: `prober.self` and a module's `subset`.
// Internal to config/ (called from sections.cc and module_parse.cc).
#pragma once

#include "config/model.h"
#include "config/yaml_fields.h"

namespace rxe::config {

/// Largest `subset.per_other_group`.
inline constexpr uint32_t kMaxPerOtherGroup = 1000;

/// `prober.self: {name, labels}` from the prober section's reader, into *out.
void ParseSelf(const MapReader& prober, SelfConfig* out);

/// `subset: {group_label, per_other_group, seed}` from a module's reader, into m->subset.
/// A subset next to a non-empty `peers` list is an error.
void ParseSubset(const MapReader& module, Module* m);

/// A module with a subset needs prober.self.name (each host's sample is hashed from its
/// name; without it every host would pick the same peers): reported at the subset key.
/// `modules` is the modules section node.
void CheckSubsetsHaveSelf(const Config& cfg, const YAML::Node& modules, const Sink& sink);

}  // namespace rxe::config
