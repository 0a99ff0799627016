#pragma once
// Reading the preset named by HARMONIZE_CONFIG from the file system.
#include <cstddef>
#include <optional>
#include <string>

namespace harmonize::config {

// A preset is a handful of KEY=VALUE lines; anything larger is a mistake
// (a log, a core file, /dev/zero), and reading it whole would exhaust memory.
inline constexpr std::size_t kMaxPresetBytes = std::size_t{1} << 20;

// The contents of `path` when it is a regular file of at most
// kMaxPresetBytes; otherwise nullopt and `why` (one phrase). Never blocks on
// a FIFO or a device, never reads more than kMaxPresetBytes + 1 bytes, never
// throws.
std::optional<std::string> read_preset_file(const std::string& path, std::string& why);

}  // namespace harmonize::config
