#pragma once
// File readers for build_policy in unit tests: none, or one file by its path.
#include <optional>
#include <string>

#include "config/policy.hpp"

namespace harmonize::config::testing {

inline FileReader no_files() {
  return [](const std::string&, std::string& why) -> std::optional<std::string> {
    why = "No such file or directory";
    return std::nullopt;
  };
}

inline FileReader one_file(std::string path, std::string text) {
  return [path, text](const std::string& asked, std::string& why) -> std::optional<std::string> {
    if (asked == path) return text;
    why = "No such file or directory";
    return std::nullopt;
  };
}

}  // namespace harmonize::config::testing
