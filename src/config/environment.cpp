// The impure edge of the config layer: environ and the file system.
#include "config/policy.hpp"
#include "config/preset_file.hpp"
#include "config/report_target.hpp"

extern char** environ;

namespace harmonize::config {

PolicyResult load_policy_from_environment(bool writes_report) {
  Environment environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (text.rfind("HARMONIZE_", 0) != 0) continue;
    const auto equals = text.find('=');
    if (equals == std::string_view::npos) continue;
    environment.emplace(std::string(text.substr(0, equals)), std::string(text.substr(equals + 1)));
  }
  PolicyResult result = build_policy(environment, read_preset_file);
  if (result.ok() && writes_report) check_report_target(result);
  return result;
}

}  // namespace harmonize::config
