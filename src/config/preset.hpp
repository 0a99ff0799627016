#pragma once
// Preset files: KEY=VALUE lines, '#' comments, blank lines. Pure.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace harmonize::config {

struct PresetEntry {
  std::string key;
  std::string value;
  int line = 0;
};

struct Preset {
  std::vector<PresetEntry> entries;
  std::vector<std::string> errors;  // "line N: ..." each
};

Preset parse_preset(std::string_view text);

}  // namespace harmonize::config
