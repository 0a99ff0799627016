#include <catch2/catch.hpp>

#include "config/policy.hpp"
#include "config/variables.hpp"

using namespace harmonize::config;

namespace {

FileReader no_files() {
  return [](const std::string&, std::string& why) -> std::optional<std::string> {
    why = "No such file or directory";
    return std::nullopt;
  };
}

FileReader one_file(std::string path, std::string text) {
  return [path, text](const std::string& asked, std::string& why) -> std::optional<std::string> {
    if (asked == path) return text;
    why = "No such file or directory";
    return std::nullopt;
  };
}

}  // namespace

TEST_CASE("defaults make a valid off policy", "[config]") {
  const PolicyResult result = build_policy({}, no_files());
  REQUIRE(result.ok());
  CHECK(result.policy.mode == Mode::off);
  CHECK_FALSE(result.policy.slack);
  CHECK(result.policy.slack_growth == 1.1);
  CHECK(result.policy.resync_interval == 1.0);
  CHECK(result.policy.sync == SyncScheme::h2hca);
  CHECK(result.policy.report == "harmonize-%j.json");
  CHECK_FALSE(result.policy.test_clock_active());
  // Every variable has an effective value and an origin.
  for (const Variable& variable : all_variables()) {
    CHECK(result.effective.count(std::string(variable.name)) == 1);
    CHECK(result.origin.at(std::string(variable.name)) == "default");
  }
}

TEST_CASE("every table default passes its own validation", "[config]") {
  for (const Variable& variable : all_variables()) {
    Environment environment{{std::string(variable.name), std::string(variable.default_value)}};
    if (variable.name == "HARMONIZE_CONFIG") continue;
    INFO(variable.name);
    CHECK(build_policy(environment, no_files()).ok());
  }
}

TEST_CASE("values are typed", "[config]") {
  const PolicyResult result = build_policy({{"HARMONIZE_MODE", "harmonize"},
                                            {"HARMONIZE_SLACK", "20us"},
                                            {"HARMONIZE_SLACK_GROWTH", "2"},
                                            {"HARMONIZE_SYNC", "hca3"},
                                            {"HARMONIZE_TEST_CLOCK_OFFSET", "1ms"},
                                            {"HARMONIZE_TEST_CLOCK_DRIFT", "50ppm"},
                                            {"HARMONIZE_TEST_NODE_SIZE", "2"},
                                            {"HARMONIZE_QUIET", "1"}},
                                           no_files());
  REQUIRE(result.ok());
  CHECK(result.policy.mode == Mode::harmonize);
  CHECK(*result.policy.slack == Approx(20e-6));
  CHECK(result.policy.slack_growth == 2.0);
  CHECK(result.policy.sync == SyncScheme::hca3);
  CHECK(result.policy.test_clock_offset == Approx(1e-3));
  CHECK(result.policy.test_clock_drift == Approx(50e-6));
  CHECK(result.policy.test_node_size == 2);
  CHECK(result.policy.quiet);
  CHECK(result.policy.test_clock_active());
  CHECK(result.origin.at("HARMONIZE_SLACK") == "environment");
}

TEST_CASE("a bad value names the variable, the value and what is accepted", "[config]") {
  struct Case {
    const char* name;
    const char* value;
    const char* message;
  };
  const Case cases[] = {
      {"HARMONIZE_MODE", "fast",
       "HARMONIZE_MODE='fast' is not valid: expected one of off, observe, harmonize"},
      {"HARMONIZE_SLACK", "20",
       "HARMONIZE_SLACK='20' is not valid: expected 'auto' or a duration with unit ns, us, ms or "
       "s, from 1ns to 10s (e.g. 20us)"},
      {"HARMONIZE_SLACK", "0", nullptr},
      {"HARMONIZE_SLACK_GROWTH", "1", nullptr},
      {"HARMONIZE_SLACK_GROWTH", "abc", nullptr},
      {"HARMONIZE_RESYNC_INTERVAL", "10us", nullptr},
      {"HARMONIZE_FITPOINTS", "0",
       "HARMONIZE_FITPOINTS='0' is not valid: expected a whole number from 1 to 100000"},
      {"HARMONIZE_PINGPONGS", "1.5", nullptr},
      {"HARMONIZE_QUIET", "yes", "HARMONIZE_QUIET='yes' is not valid: expected 0 or 1"},
      {"HARMONIZE_TEST_CLOCK_DRIFT", "50", nullptr},
      {"HARMONIZE_TEST_CLOCK_OFFSET", "-1ms", nullptr},
      {"HARMONIZE_TIMESOURCE", "rdtsc", nullptr},
      {"HARMONIZE_COMMS", "", nullptr},
  };
  for (const Case& c : cases) {
    INFO(c.name << "=" << c.value);
    const PolicyResult result = build_policy({{c.name, c.value}}, no_files());
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0].rfind(std::string(c.name) + "='" + c.value + "' is not valid: expected",
                                 0) == 0);
    if (c.message) CHECK(result.errors[0] == c.message);
  }
}

TEST_CASE("an unknown HARMONIZE_ name is an error with a suggestion", "[config]") {
  const PolicyResult result =
      build_policy({{"HARMONIZE_SLAK", "20us"}, {"OTHER", "x"}}, no_files());
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0] ==
        "unknown variable HARMONIZE_SLAK='20us'; did you mean HARMONIZE_SLACK?");
}

TEST_CASE("all errors are collected, not just the first", "[config]") {
  const PolicyResult result =
      build_policy({{"HARMONIZE_MODE", "x"}, {"HARMONIZE_SYNC", "y"}}, no_files());
  CHECK(result.errors.size() == 2);
}

TEST_CASE("slack bounds must be ordered and contain the slack", "[config]") {
  CHECK(build_policy({{"HARMONIZE_SLACK_MIN", "10us"}, {"HARMONIZE_SLACK_MAX", "5us"}}, no_files())
            .errors.size() == 1);
  CHECK(build_policy({{"HARMONIZE_SLACK", "1us"}, {"HARMONIZE_SLACK_MIN", "5us"}}, no_files())
            .errors.size() == 1);
  CHECK(
      build_policy({{"HARMONIZE_SLACK", "6us"}, {"HARMONIZE_SLACK_MIN", "5us"}}, no_files()).ok());
}

TEST_CASE("a preset is loaded and the environment overrides it", "[config]") {
  const auto reader =
      one_file("/p.env", "# precise\nHARMONIZE_MODE=harmonize\nHARMONIZE_FITPOINTS=50\n");
  const PolicyResult result =
      build_policy({{"HARMONIZE_CONFIG", "/p.env"}, {"HARMONIZE_FITPOINTS", "7"}}, reader);
  REQUIRE(result.ok());
  CHECK(result.policy.mode == Mode::harmonize);
  CHECK(result.policy.fitpoints == 7);
  CHECK(result.origin.at("HARMONIZE_MODE") == "preset /p.env");
  CHECK(result.origin.at("HARMONIZE_FITPOINTS") == "environment");
}

TEST_CASE("preset problems are reported with file and line", "[config]") {
  SECTION("unreadable") {
    const PolicyResult result = build_policy({{"HARMONIZE_CONFIG", "/missing.env"}}, no_files());
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0] ==
          "HARMONIZE_CONFIG='/missing.env' cannot be read: No such file or directory");
  }
  SECTION("malformed line") {
    const PolicyResult result =
        build_policy({{"HARMONIZE_CONFIG", "/p.env"}}, one_file("/p.env", "\nnonsense\n"));
    REQUIRE(result.errors.size() == 1);
    CHECK(result.errors[0] ==
          "HARMONIZE_CONFIG=/p.env: line 2: expected KEY=VALUE, got 'nonsense'");
  }
  SECTION("bad value and unknown name") {
    const PolicyResult result =
        build_policy({{"HARMONIZE_CONFIG", "/p.env"}},
                     one_file("/p.env", "HARMONIZE_MODE=on\nHARMONIZE_SLAK=1us\n"));
    REQUIRE(result.errors.size() == 2);
    CHECK(result.errors[0] ==
          "HARMONIZE_CONFIG=/p.env: line 1: HARMONIZE_MODE='on' is not valid: expected one of off, "
          "observe, harmonize");
    CHECK(result.errors[1] ==
          "HARMONIZE_CONFIG=/p.env: line 2: unknown variable HARMONIZE_SLAK='1us'; did you mean "
          "HARMONIZE_SLACK?");
  }
  SECTION("no nesting") {
    const PolicyResult result = build_policy({{"HARMONIZE_CONFIG", "/p.env"}},
                                             one_file("/p.env", "HARMONIZE_CONFIG=/q.env\n"));
    CHECK(result.errors.size() == 1);
  }
}
