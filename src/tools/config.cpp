// harmonize-config: check a policy before launching a job, and print the
// table of variables (the README's table is generated from it, and a test
// keeps the two equal).
//   harmonize-config              validate the HARMONIZE_* environment (and preset)
//   harmonize-config --markdown   the variable table as Markdown
#include <cstdio>
#include <cstring>
#include <string>

#include "config/display.hpp"
#include "config/kinds.hpp"
#include "config/policy.hpp"
#include "config/variables.hpp"

namespace {

std::string escape_pipes(std::string_view text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

void print_markdown() {
  std::printf("| variable | default | accepted values | meaning |\n|---|---|---|---|\n");
  for (const harmonize::config::Variable& v : harmonize::config::all_variables()) {
    const std::string name(v.name);
    const std::string accepted = harmonize::config::accepted_values(v);
    const std::string default_text =
        v.default_value.empty() ? "(none)" : "`" + std::string(v.default_value) + "`";
    std::printf("| `%s` | %s | %s | %s |\n", name.c_str(), default_text.c_str(),
                escape_pipes(accepted).c_str(), escape_pipes(v.help).c_str());
  }
  // Read by the scripts; listed so that the table names every HARMONIZE_* a
  // user may meet.
  for (const harmonize::config::ScriptVariable& v : harmonize::config::script_variables()) {
    const std::string name(v.name);
    std::printf("| `%s` | (none) | any text | %s |\n", name.c_str(), escape_pipes(v.help).c_str());
  }
}

int check_environment() {
  const harmonize::config::PolicyResult result =
      harmonize::config::load_policy_from_environment(true);
  if (!result.ok()) {
    for (const std::string& error : result.errors)
      std::fprintf(stderr, "harmonize: error: %s\n", error.c_str());
    return 2;
  }
  for (const harmonize::config::Variable& v : harmonize::config::all_variables()) {
    const std::string name(v.name);
    // Values as the error lines show them: one line each, whatever they hold.
    const std::string value = harmonize::config::display_value(result.effective.at(name));
    std::printf("%-28s = %-18s (%s)\n", name.c_str(), value.c_str(),
                harmonize::config::display_value(result.origin.at(name)).c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    print_markdown();
    return 0;
  }
  if (argc == 1) return check_environment();
  std::fprintf(stderr,
               "usage: harmonize-config [--markdown]\n"
               "  without arguments: validate the HARMONIZE_* environment (and the preset named\n"
               "  by HARMONIZE_CONFIG) and print the effective configuration; exit 2 on errors\n"
               "  --markdown: print the table of variables\n");
  return argc == 2 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) ? 0
                                                                                               : 2;
}
