#include <catch2/catch.hpp>

#include "config/policy.hpp"
#include "config/variables.hpp"
#include "policy_readers.hpp"

using namespace harmonize::config;

using harmonize::config::testing::no_files;
using harmonize::config::testing::one_file;
using harmonize::config::testing::only_error_of;

TEST_CASE("defaults make a valid off policy", "[config]") {
  const PolicyResult result = build_policy({}, no_files());
  REQUIRE(result.ok());
  CHECK(result.policy.mode == Mode::off);
  CHECK_FALSE(result.policy.slack);
  CHECK(result.policy.miss_target == Approx(0.0025));
  CHECK(result.policy.resync_interval == 1.0);
  CHECK(result.policy.sync == Scheme::h2hca);
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
                                            {"HARMONIZE_MISS_TARGET", "2%"},
                                            {"HARMONIZE_SYNC", "hca3"},
                                            {"HARMONIZE_TEST_CLOCK_OFFSET", "1ms"},
                                            {"HARMONIZE_TEST_CLOCK_DRIFT", "50ppm"},
                                            {"HARMONIZE_TEST_NODE_SIZE", "2"},
                                            {"HARMONIZE_QUIET", "1"}},
                                           no_files());
  REQUIRE(result.ok());
  CHECK(result.policy.mode == Mode::harmonize);
  CHECK(*result.policy.slack == Approx(20e-6));
  CHECK(result.policy.miss_target == Approx(0.02));
  CHECK(result.policy.sync == Scheme::hca3);
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
      {"HARMONIZE_MISS_TARGET", "0.5", nullptr},  // a percentage needs its unit
      {"HARMONIZE_MISS_TARGET", "60%",
       "HARMONIZE_MISS_TARGET='60%' is not valid: expected a percentage, from 0.1% to 50% (e.g. "
       "0.25%)"},
      {"HARMONIZE_MISS_TARGET", "0%", nullptr},
      {"HARMONIZE_MISS_TARGET", "0.05%", nullptr},  // finer than the needs resolve
      {"HARMONIZE_RESYNC_INTERVAL", "10us", nullptr},
      {"HARMONIZE_FITPOINTS", "0",
       "HARMONIZE_FITPOINTS='0' is not valid: expected a whole number from 1 to 10000"},
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

TEST_CASE("a retired variable is an error naming what replaced it", "[config]") {
  const PolicyResult result = build_policy({{"HARMONIZE_SLACK_GROWTH", "1.1"}}, no_files());
  REQUIRE(result.errors.size() == 1);
  CHECK(result.errors[0] ==
        "HARMONIZE_SLACK_GROWTH='1.1' is no longer read: the slack is no longer grown by a factor "
        "after a miss but chosen by cost from the measured needs of the calls; bound its misses "
        "with HARMONIZE_MISS_TARGET instead (docs/barrier.md)");
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

TEST_CASE("the start-up timeout is a duration from 1s to 3600s, 30s by default", "[config]") {
  CHECK(build_policy({}, no_files()).policy.startup_timeout == 30.0);
  CHECK(only_error_of({{"HARMONIZE_STARTUP_TIMEOUT", "2min"}}) ==
        "HARMONIZE_STARTUP_TIMEOUT='2min' is not valid: expected a duration with unit ns, us, ms "
        "or s, from 1s to 3600s (e.g. 30s)");
  CHECK_FALSE(build_policy({{"HARMONIZE_STARTUP_TIMEOUT", "500ms"}}, no_files()).ok());
  CHECK_FALSE(build_policy({{"HARMONIZE_STARTUP_TIMEOUT", "3601s"}}, no_files()).ok());
  CHECK(build_policy({{"HARMONIZE_STARTUP_TIMEOUT", "1s"}}, no_files()).policy.startup_timeout ==
        1.0);
  CHECK(build_policy({{"HARMONIZE_STARTUP_TIMEOUT", "3600s"}}, no_files()).policy.startup_timeout ==
        3600.0);
}

TEST_CASE("the sync effort fitpoints x pingpongs is bounded", "[config]") {
  const PolicyResult huge = build_policy(
      {{"HARMONIZE_FITPOINTS", "100000"}, {"HARMONIZE_PINGPONGS", "100000"}}, no_files());
  CHECK_FALSE(huge.ok());
  const PolicyResult product =
      build_policy({{"HARMONIZE_FITPOINTS", "100"}, {"HARMONIZE_PINGPONGS", "101"}}, no_files());
  REQUIRE(product.errors.size() == 1);
  CHECK(product.errors[0] ==
        "HARMONIZE_FITPOINTS='100' x HARMONIZE_PINGPONGS='101' is not valid: 10100 ping-pongs per "
        "pair in each sync round, expected at most 10000 (at 20-60us a ping-pong, a round of "
        "10000 takes 0.2-0.6s)");
  // The environment is combined with a preset before the bound is checked.
  const PolicyResult mixed =
      build_policy({{"HARMONIZE_CONFIG", "/p.env"}, {"HARMONIZE_PINGPONGS", "2000"}},
                   one_file("/p.env", "HARMONIZE_FITPOINTS=32\n"));
  CHECK_FALSE(mixed.ok());
  CHECK(build_policy({{"HARMONIZE_FITPOINTS", "100"}, {"HARMONIZE_PINGPONGS", "100"}}, no_files())
            .ok());
  CHECK(build_policy({{"HARMONIZE_FITPOINTS", "10000"}, {"HARMONIZE_PINGPONGS", "1"}}, no_files())
            .ok());
  CHECK(build_policy({{"HARMONIZE_FITPOINTS", "1"}, {"HARMONIZE_PINGPONGS", "10000"}}, no_files())
            .ok());
}

TEST_CASE("variables of the scripts are accepted and ignored", "[config]") {
  const PolicyResult result =
      build_policy({{"HARMONIZE_LIBRARY", "/opt/harmonize/lib/libharmonize.so"}}, no_files());
  CHECK(result.ok());
  CHECK(result.effective.count("HARMONIZE_LIBRARY") == 0);
  for (const ScriptVariable& variable : script_variables()) {
    INFO(variable.name);
    CHECK(find_variable(variable.name) == nullptr);  // never both
    CHECK(build_policy({{std::string(variable.name), "anything"}}, no_files()).ok());
  }
  // A preset is read by the library only: there it would do nothing.
  const PolicyResult preset = build_policy({{"HARMONIZE_CONFIG", "/p.env"}},
                                           one_file("/p.env", "HARMONIZE_LIBRARY=/x.so\n"));
  REQUIRE(preset.errors.size() == 1);
  CHECK(preset.errors[0] ==
        "HARMONIZE_CONFIG=/p.env: line 1: HARMONIZE_LIBRARY='/x.so' is read by the scripts "
        "(harmonize-run) from the environment; a preset cannot set it");
}

TEST_CASE("blanks around every value are trimmed", "[config]") {
  const PolicyResult result = build_policy({{"HARMONIZE_MODE", " harmonize\t"},
                                            {"HARMONIZE_SLACK", " auto "},
                                            {"HARMONIZE_SLACK_MAX", "1ms "},
                                            {"HARMONIZE_QUIET", "1\r\n"},
                                            {"HARMONIZE_SYNC", " hca3"},
                                            {"HARMONIZE_REPORT", " r.json "}},
                                           no_files());
  REQUIRE(result.errors == std::vector<std::string>{});
  CHECK(result.policy.mode == Mode::harmonize);
  CHECK_FALSE(result.policy.slack);
  CHECK(result.policy.quiet);
  CHECK(result.policy.sync == Scheme::hca3);
  CHECK(result.policy.report == "r.json");
  CHECK(result.effective.at("HARMONIZE_MODE") == "harmonize");
  // A value of blanks only is still not a choice, and is shown as given.
  CHECK(only_error_of({{"HARMONIZE_COMMS", "  "}}) ==
        "HARMONIZE_COMMS='  ' is not valid: expected one of all, world");
}

TEST_CASE("the canonical text compares parsed values, not spellings", "[config]") {
  auto canonical = [](const char* name, const char* value) {
    const PolicyResult result = build_policy({{name, value}}, no_files());
    REQUIRE(result.ok());
    return result.canonical.at(name);
  };
  CHECK(canonical("HARMONIZE_SLACK", "20us") == canonical("HARMONIZE_SLACK", "20000ns"));
  CHECK(canonical("HARMONIZE_SLACK", "20us") == canonical("HARMONIZE_SLACK", "0.02ms"));
  CHECK(canonical("HARMONIZE_SLACK", "20us") == canonical("HARMONIZE_SLACK", " 20us "));
  CHECK(canonical("HARMONIZE_SLACK", "20us") != canonical("HARMONIZE_SLACK", "21us"));
  CHECK(canonical("HARMONIZE_SLACK", "auto") != canonical("HARMONIZE_SLACK", "20us"));
  CHECK(canonical("HARMONIZE_RESYNC_INTERVAL", "1s") ==
        canonical("HARMONIZE_RESYNC_INTERVAL", "1000ms"));
  CHECK(canonical("HARMONIZE_MISS_TARGET", "1%") == canonical("HARMONIZE_MISS_TARGET", "1.0%"));
  CHECK(canonical("HARMONIZE_FITPOINTS", "8") == canonical("HARMONIZE_FITPOINTS", "08"));
  CHECK(canonical("HARMONIZE_TEST_CLOCK_DRIFT", "0") ==
        canonical("HARMONIZE_TEST_CLOCK_DRIFT", "0ppm"));
  CHECK(canonical("HARMONIZE_TEST_CLOCK_OFFSET", "0") ==
        canonical("HARMONIZE_TEST_CLOCK_OFFSET", "0s"));
  CHECK(canonical("HARMONIZE_MODE", "observe") == canonical("HARMONIZE_MODE", " observe"));
  CHECK(canonical("HARMONIZE_MODE", "observe") != canonical("HARMONIZE_MODE", "off"));
  // Every variable has one, defaults included.
  const PolicyResult defaults = build_policy({}, no_files());
  for (const Variable& variable : all_variables())
    CHECK(defaults.canonical.count(std::string(variable.name)) == 1);
}

TEST_CASE("a report path that names no file is refused in any mode", "[config]") {
  CHECK(only_error_of({{"HARMONIZE_REPORT", ""}}) ==
        "HARMONIZE_REPORT='' is not valid: expected 'none' or a file name "
        "template (%j job id or pid of rank 0, %h host, %% percent)");
  CHECK_FALSE(build_policy({{"HARMONIZE_REPORT", "out/"}}, no_files()).ok());
  CHECK(build_policy({{"HARMONIZE_REPORT", "out/r.json"}}, no_files()).ok());
}

TEST_CASE("error lines show values escaped and cut, on one line", "[config]") {
  CHECK(only_error_of({{"HARMONIZE_MODE", "off\n\x1b[31mfast"}}) ==
        "HARMONIZE_MODE='off\\n\\x1b[31mfast' is not valid: expected one of off, observe, "
        "harmonize");
  CHECK(only_error_of({{"HARMONIZE_MODE", "\xef\xbb\xbfoff"}})
            .rfind("HARMONIZE_MODE='\\uFEFFoff' is not valid", 0) == 0);
  const PolicyResult huge =
      build_policy({{"HARMONIZE_SLACK", std::string(100000, '9')}}, no_files());
  REQUIRE(huge.errors.size() == 1);
  CHECK(huge.errors[0].size() < 250);
  CHECK(huge.errors[0].rfind("HARMONIZE_SLACK='" + std::string(80, '9') + "\xe2\x80\xa6' is not",
                             0) == 0);
  const PolicyResult name = build_policy({{"HARMONIZE_\x1b]0;x\x07", "1"}}, no_files());
  REQUIRE(name.errors.size() == 1);
  CHECK(name.errors[0].find('\x1b') == std::string::npos);
  CHECK(name.errors[0].find('\x07') == std::string::npos);
  // A NUL cannot be in the environment, but can be in a preset line.
  const PolicyResult nul =
      build_policy({{"HARMONIZE_CONFIG", "/p.env"}},
                   one_file("/p.env", std::string("HARMONIZE_MODE=of\0f\nHARMONIZE_\0X=1\n", 35)));
  REQUIRE(nul.errors.size() == 2);
  CHECK(nul.errors[0] ==
        "HARMONIZE_CONFIG=/p.env: line 2: expected KEY=VALUE, got 'HARMONIZE_\\x00X=1'");
  CHECK(nul.errors[1] ==
        "HARMONIZE_CONFIG=/p.env: line 1: HARMONIZE_MODE='of\\x00f' is not valid: expected one of "
        "off, observe, harmonize");
  for (const auto& error : nul.errors) CHECK(error.find('\0') == std::string::npos);
  const PolicyResult path = build_policy({{"HARMONIZE_CONFIG", "/p\n.env"}}, no_files());
  REQUIRE(path.errors.size() == 1);
  CHECK(path.errors[0] == "HARMONIZE_CONFIG='/p\\n.env' cannot be read: No such file or directory");
}
