// The variables table binds each variable to its Policy field and default:
// build_policy is a loop over it, so these tests check the table itself.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "common/choices.hpp"
#include "config/kinds.hpp"
#include "config/policy.hpp"
#include "config/values.hpp"
#include "config/variables.hpp"
#include "harmonize/startup/clock_setup.hpp"
#include "policy_readers.hpp"
#include "sync/settings.hpp"

using namespace harmonize::config;
namespace choices = harmonize::choices;

using harmonize::config::testing::no_files;
using harmonize::config::testing::only_error_of;

namespace {

// What a value needs beside it to be valid: an arrival pattern or
// interleaved sides, the mode that applies them; the global MPI_Wtime and the timeline, a mode with
// a global clock.
Environment with_requirements(Environment environment) {
  const auto arrival = environment.find("HARMONIZE_ARRIVAL");
  const auto alternate = environment.find("HARMONIZE_ALTERNATE");
  const auto wtime = environment.find("HARMONIZE_WTIME");
  const auto trace = environment.find("HARMONIZE_TRACE");
  const auto interleave = environment.find("HARMONIZE_INTERLEAVE");
  if ((arrival != environment.end() && arrival->second != "none") ||
      (alternate != environment.end() && alternate->second == "1") ||
      (interleave != environment.end() && interleave->second != "none"))
    environment["HARMONIZE_MODE"] = "harmonize";
  else if ((wtime != environment.end() && wtime->second == "global") ||
           (trace != environment.end() && trace->second != "none"))
    environment["HARMONIZE_MODE"] = "observe";
  return environment;
}

Policy built(const Environment& environment) {
  const PolicyResult result = build_policy(with_requirements(environment), no_files());
  INFO(result.errors.size() << " errors, first: " << (result.ok() ? "" : result.errors[0]));
  REQUIRE(result.ok());
  return result.policy;
}

// A valid value other than the default, derived from the entry alone (so a
// new variable is covered without editing this file).
std::string other_value(const Variable& v) {
  switch (v.kind) {
    case Kind::choice:
      for (std::string_view name : v.choices) {
        if (name != v.default_value) return std::string(name);
      }
      break;
    case Kind::duration:
    case Kind::duration_or_auto:
      return format_seconds(v.max);
    case Kind::number:
      return format_number(v.max);
    case Kind::integer: {
      const long long next = *parse_integer(v.default_value) + 1;
      return std::to_string(next <= v.max ? next : static_cast<long long>(v.min));
    }
    case Kind::flag:
      return v.default_value == "1" ? "0" : "1";
    case Kind::ppm:
      return format_number(v.max) + "ppm";
    case Kind::percent:
      return format_number(v.max) + "%";
    case Kind::report:
      return "other-%j.json";
    case Kind::text:
      return "other";
    case Kind::collectives:
      return v.default_value == "none" ? "all" : "none";
    case Kind::arrival:
      return v.default_value == "none" ? "rank:0:10us" : "none";
    case Kind::window:
      return v.default_value == "all" ? "10:20" : "all";
    case Kind::interleave:
      return v.default_value == "none" ? "A B" : "none";
  }
  FAIL("no other value for " << v.name);
  return "";
}

}  // namespace

TEST_CASE("every variable has exactly one entry, and every entry but the preset binds a field",
          "[config]") {
  std::set<std::string_view> names;
  for (const Variable& variable : all_variables()) {
    INFO(variable.name);
    CHECK(names.insert(variable.name).second);
    CHECK(find_variable(variable.name) == &variable);
    CHECK((variable.store == nullptr) == (variable.name == "HARMONIZE_CONFIG"));
    CHECK((variable.kind == Kind::choice) == !variable.choices.empty());
    if (variable.kind == Kind::choice) {
      CHECK(std::find(variable.choices.begin(), variable.choices.end(), variable.default_value) !=
            variable.choices.end());
    }
  }
}

TEST_CASE("each entry writes a field of its own", "[config]") {
  const Policy defaults = built({});
  std::vector<const Variable*> bound;
  for (const Variable& variable : all_variables()) {
    if (variable.store != nullptr) bound.push_back(&variable);
  }
  std::vector<Policy> alone;
  for (const Variable* v : bound) {
    INFO(v->name << "=" << other_value(*v));
    alone.push_back(built({{std::string(v->name), other_value(*v)}}));
    CHECK(alone.back() != defaults);  // the value reaches the policy
  }
  // Two entries writing one field: setting both equals setting one of them
  // (the later write wins); two fields: differs from either.
  const auto needs = [](const Variable* a, const Variable* b) {
    return (a->name == "HARMONIZE_ARRIVAL" || a->name == "HARMONIZE_ALTERNATE" ||
            a->name == "HARMONIZE_WTIME" || a->name == "HARMONIZE_TRACE" ||
            a->name == "HARMONIZE_INTERLEAVE") &&
           b->name == "HARMONIZE_MODE";
  };
  // Pairs the policy refuses together (each test of its own says why).
  const auto excludes = [](const Variable* a, const Variable* b) {
    return a->name == "HARMONIZE_INTERLEAVE" &&
           (b->name == "HARMONIZE_ALTERNATE" || b->name == "HARMONIZE_COLLECTIVES");
  };
  for (std::size_t i = 0; i < bound.size(); ++i) {
    for (std::size_t j = i + 1; j < bound.size(); ++j) {
      // The pattern alone already sets the mode it needs.
      if (needs(bound[i], bound[j]) || needs(bound[j], bound[i])) continue;
      if (excludes(bound[i], bound[j]) || excludes(bound[j], bound[i])) continue;
      INFO(bound[i]->name << " and " << bound[j]->name);
      const Policy both = built({{std::string(bound[i]->name), other_value(*bound[i])},
                                 {std::string(bound[j]->name), other_value(*bound[j])}});
      CHECK(both != alone[i]);
      CHECK(both != alone[j]);
    }
  }
}

TEST_CASE("the policy of an empty environment holds the table's defaults", "[config]") {
  Policy expected{};  // zeroed: the fields carry no defaults of their own
  for (const Variable& variable : all_variables()) {
    if (variable.store != nullptr) variable.store(expected, variable.default_value);
  }
  const Policy defaults = built({});
  CHECK(defaults == expected);
  CHECK(defaults != Policy{});
  // Each default spelled out in the environment changes nothing.
  for (const Variable& variable : all_variables()) {
    if (variable.name == "HARMONIZE_CONFIG") continue;
    INFO(variable.name);
    CHECK(built({{std::string(variable.name), std::string(variable.default_value)}}) == defaults);
  }
  // The shared constants are the table's defaults of the sync variables.
  CHECK(defaults.sync == choices::kDefaultScheme);
  CHECK(defaults.clock_model == choices::kDefaultModelKind);
  CHECK(defaults.offset_algorithm == choices::kDefaultOffsetAlgorithm);
  CHECK(defaults.time_source == choices::kDefaultTimeSource);
  CHECK(defaults.fitpoints == choices::kDefaultFitpoints);
  CHECK(defaults.pingpongs == choices::kDefaultPingpongs);
  CHECK(defaults.minrtt_patience == choices::kDefaultMinRttPatience);
  CHECK(defaults.path_asymmetry == choices::kDefaultPathAsymmetry);
  CHECK(find_variable("HARMONIZE_FITPOINTS")->default_value == "8");
  CHECK(find_variable("HARMONIZE_PINGPONGS")->default_value == "10");
  CHECK(find_variable("HARMONIZE_SYNC")->default_value == "h2hca");
}

TEST_CASE("sync settings from the default policy are the tuned defaults", "[config]") {
  CHECK(harmonize::sync_settings_from(built({})) == harmonize::sync::Settings{});
  const harmonize::sync::Settings chosen =
      harmonize::sync_settings_from(built({{"HARMONIZE_SYNC", "hca3"},
                                           {"HARMONIZE_CLOCK_MODEL", "linear"},
                                           {"HARMONIZE_OFFSET_ALG", "meanrtt"},
                                           {"HARMONIZE_FITPOINTS", "3"},
                                           {"HARMONIZE_PINGPONGS", "4"},
                                           {"HARMONIZE_MINRTT_PATIENCE", "2"},
                                           {"HARMONIZE_PATH_ASYMMETRY", "0%"}}));
  CHECK(chosen.scheme == harmonize::sync::Scheme::hca3);
  CHECK(chosen.model == harmonize::sync::ModelKind::linear);
  CHECK(chosen.offset == harmonize::sync::OffsetAlgorithm::mean_rtt);
  CHECK(chosen.fitpoints == 3);
  CHECK(chosen.pingpongs == 4);
  CHECK(chosen.min_rtt_patience == 2);
  CHECK(chosen.path_asymmetry == 0.0);
}

TEST_CASE("every name of a choice reaches its field and reads back the same", "[config]") {
  for (std::string_view name : choices::kSchemeNames)
    CHECK(to_string(built({{"HARMONIZE_SYNC", std::string(name)}}).sync) == name);
  for (std::string_view name : choices::kModelKindNames)
    CHECK(to_string(built({{"HARMONIZE_CLOCK_MODEL", std::string(name)}}).clock_model) == name);
  for (std::string_view name : choices::kOffsetAlgorithmNames)
    CHECK(to_string(built({{"HARMONIZE_OFFSET_ALG", std::string(name)}}).offset_algorithm) == name);
  for (std::string_view name : choices::kTimeSourceKindNames)
    CHECK(to_string(built({{"HARMONIZE_TIMESOURCE", std::string(name)}}).time_source) == name);
  for (std::string_view name : kModeNames)
    CHECK(to_string(built({{"HARMONIZE_MODE", std::string(name)}}).mode) == name);
  for (std::string_view name : kCommScopeNames)
    CHECK(to_string(built({{"HARMONIZE_COMMS", std::string(name)}}).comms) == name);
  for (std::string_view name : kTestClockScopeNames) {
    CHECK(to_string(built({{"HARMONIZE_TEST_CLOCK_SCOPE", std::string(name)}}).test_clock_scope) ==
          name);
  }
  // The table accepts exactly the enum's names.
  CHECK(find_variable("HARMONIZE_SYNC")->choices.size() == choices::kSchemeNames.size());
  CHECK_FALSE(build_policy({{"HARMONIZE_OFFSET_ALG", "mean_rtt"}}, no_files()).ok());
}

TEST_CASE("the test clock scope is node unless asked, and nothing else is accepted", "[config]") {
  CHECK(built({}).test_clock_scope == TestClockScope::node);
  CHECK(built({{"HARMONIZE_TEST_CLOCK_SCOPE", "process"}}).test_clock_scope ==
        TestClockScope::process);
  CHECK(built({{"HARMONIZE_TEST_CLOCK_SCOPE", "host"}}).test_clock_scope == TestClockScope::host);
  CHECK(
      only_error_of({{"HARMONIZE_TEST_CLOCK_SCOPE", "host"}, {"HARMONIZE_TEST_NODE_SIZE", "2"}}) ==
      "HARMONIZE_TEST_CLOCK_SCOPE='host' contradicts HARMONIZE_TEST_NODE_SIZE='2': host clocks "
      "follow the nodes MPI finds, virtual nodes replace them; expected one of the two");
  CHECK(only_error_of(
            {{"HARMONIZE_TEST_CLOCK_SCOPE", "host"}, {"HARMONIZE_TEST_CLOCK_OFFSET", "1ms"}}) ==
        "HARMONIZE_TEST_CLOCK_SCOPE='host' needs HARMONIZE_MODE observe or harmonize: mode off "
        "makes no communicator to find the hosts on (the mode is off)");
  CHECK(build_policy({{"HARMONIZE_TEST_CLOCK_SCOPE", "host"}}, no_files()).ok());  // no test clock
  CHECK(only_error_of({{"HARMONIZE_WTIME", "global"}}) ==
        "HARMONIZE_WTIME='global' needs HARMONIZE_MODE observe or harmonize: mode off builds no "
        "global clock (the mode is off)");
  const std::string refused = only_error_of({{"HARMONIZE_TEST_CLOCK_SCOPE", "socket"}});
  CHECK(refused.find("HARMONIZE_TEST_CLOCK_SCOPE='socket' is not valid") != std::string::npos);
  CHECK(refused.find("one of node, process") != std::string::npos);
}

TEST_CASE("a refused value keeps its default, the valid ones reach the policy", "[config]") {
  const PolicyResult result =
      build_policy({{"HARMONIZE_MODE", "fast"}, {"HARMONIZE_STARTUP_TIMEOUT", "5s"}}, no_files());
  REQUIRE_FALSE(result.ok());
  // MPI_Init joins the job with this timeout before it stops it.
  CHECK(result.policy.startup_timeout == 5.0);
  CHECK(result.policy.mode == built({}).mode);
  CHECK(build_policy({{"HARMONIZE_MODE", "fast"}}, no_files()).policy == built({}));
}

TEST_CASE("every kind's row accepts its variables' defaults and names what it accepts",
          "[config][table]") {
  for (const Variable& variable : all_variables()) {
    INFO(variable.name);
    CHECK(value_problem(variable, variable.default_value).empty());
    const std::string canonical = canonical_value(variable, variable.default_value);
    // Canonical text is a fixed point: a canonical value is valid and its
    // own canonical text.
    CHECK(value_problem(variable, canonical).empty());
    CHECK(canonical_value(variable, canonical) == canonical);
    CHECK_FALSE(accepted_values(variable).empty());
    if (variable.kind != Kind::text) {
      const std::string problem = value_problem(variable, "no/such value/");
      CHECK(problem.find(" is not valid: ") == 0);
      CHECK(problem.find(accepted_values(variable)) != std::string::npos);
    }
  }
}
