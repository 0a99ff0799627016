#pragma once
// File readers for build_policy in unit tests (none, or one file by its
// path), and the one error a policy is refused with.
#include <catch2/catch.hpp>

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

// The one error `result` holds (a failed check when it holds another count).
inline std::string only_error(const PolicyResult& result) {
  REQUIRE(result.errors.size() == 1);
  return result.errors[0];
}

// The one error building a policy from `environment` (no files) gives.
inline std::string only_error_of(const Environment& environment) {
  return only_error(build_policy(environment, no_files()));
}

}  // namespace harmonize::config::testing
