#include <catch2/catch.hpp>

#include <string>

#include "config/arrival.hpp"
#include "config/policy.hpp"
#include "policy_readers.hpp"

using harmonize::ArrivalKind;
using harmonize::ArrivalPattern;
using namespace harmonize::config;
using harmonize::config::testing::no_files;
using harmonize::config::testing::one_file;

namespace {

ArrivalPattern parsed(const std::string& text) {
  std::string why;
  const auto pattern = parse_arrival(text, why);
  INFO(text << ": " << why);
  REQUIRE(pattern);
  CHECK(why.empty());
  return *pattern;
}

std::string refused(const std::string& text) {
  std::string why;
  CHECK_FALSE(parse_arrival(text, why));
  CHECK_FALSE(why.empty());
  return why;
}

}  // namespace

TEST_CASE("arrival patterns parse to exactly what they say", "[config][arrival]") {
  CHECK(parsed("none") == ArrivalPattern{});
  CHECK(parsed(" none ") == ArrivalPattern{});

  const ArrivalPattern one = parsed("rank:3:20us");
  CHECK(one.kind == ArrivalKind::rank);
  CHECK(one.late == std::vector<int>{3});
  CHECK(one.delay == 20e-6);  // the double nearest 2e-05, as "20us" is everywhere

  const ArrivalPattern some = parsed("ranks:5,0,3,0:1ms");
  CHECK(some.kind == ArrivalKind::ranks);
  CHECK(some.late == std::vector<int>{0, 3, 5});  // sorted, once each
  CHECK(some.delay == 1e-3);

  const ArrivalPattern node = parsed("node:1:0us");
  CHECK(node.kind == ArrivalKind::node);
  CHECK(node.late == std::vector<int>{1});
  CHECK(node.delay == 0.0);

  const ArrivalPattern linear = parsed("linear:100us");
  CHECK(linear.kind == ArrivalKind::linear);
  CHECK(linear.delay == 100e-6);

  CHECK(parsed("random:50us").seed == 1);  // the documented default
  const ArrivalPattern random = parsed("random:50us:42");
  CHECK(random.kind == ArrivalKind::random);
  CHECK(random.delay == 50e-6);
  CHECK(random.seed == 42);

  const ArrivalPattern file = parsed("file:/a:b/delays.txt");  // colons belong to the path
  CHECK(file.kind == ArrivalKind::file);
  CHECK(file.path == "/a:b/delays.txt");
  CHECK(file.per_rank.empty());  // read by build_policy
}

TEST_CASE("a bad arrival pattern says what is wrong with it", "[config][arrival]") {
  CHECK(refused("") == "unknown pattern ''");
  CHECK(refused("late:0:1us") == "unknown pattern 'late'");
  CHECK(refused("rank:0") == "expected rank:R:DELAY");
  CHECK(refused("rank:0:1us:2") == "expected rank:R:DELAY");
  CHECK(refused("rank:-1:1us") == "rank '-1' is not a whole number from 0");
  CHECK(refused("rank:x:1us") == "rank 'x' is not a whole number from 0");
  CHECK(refused("rank:0:10") ==
        "delay '10' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("rank:0:11s") ==
        "delay '11s' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("rank:0:-1us") ==
        "delay '-1us' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("ranks:0,,2:1us") == "rank '' is not a whole number from 0");
  CHECK(refused("node:1") == "expected node:N:DELAY");
  CHECK(refused("linear:1us:2") == "expected linear:MAX");
  CHECK(refused("random:1us:2:3") == "expected random:MAX[:SEED]");
  CHECK(refused("random:1us:-2") == "seed '-2' is not a whole number from 0");
  CHECK(refused("random:fast") ==
        "MAX 'fast' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("file:") == "file: needs the path of the delay file");
}

TEST_CASE("every spelling of a pattern has one canonical text", "[config][arrival]") {
  CHECK(arrival_text(parsed("none")) == "none");
  CHECK(arrival_text(parsed("rank:0:10000ns")) == "rank:0:10us");
  CHECK(arrival_text(parsed("ranks:3,1,3:0.5ms")) == "ranks:1,3:500us");
  CHECK(arrival_text(parsed("node:2:1s")) == "node:2:1s");
  CHECK(arrival_text(parsed("linear:0.1ms")) == "linear:100us");
  CHECK(arrival_text(parsed("random:5us")) == "random:5us:1");
  CHECK(arrival_text(parsed("file:d.txt")) == "file:d.txt");
  // Exact: what the ranks compare must not round two delays into one.
  CHECK(arrival_text(parsed("rank:0:1234567ns")) == "rank:0:1234567ns");
  CHECK(arrival_text(parsed("rank:0:1234568ns")) != arrival_text(parsed("rank:0:1234567ns")));
  CHECK(arrival_text(parsed("rank:0:1.5us")) == "rank:0:1500ns");
  CHECK(arrival_text(parsed("rank:0:0us")) == "rank:0:0ns");
  // Canonical texts parse back to the same pattern.
  for (const char* text : {"rank:0:10us", "ranks:1,3:500us", "linear:100us", "random:5us:7"})
    CHECK(arrival_text(parsed(arrival_text(parsed(text)))) == text);
}

TEST_CASE("a delay file holds one duration per rank, comments allowed", "[config][arrival]") {
  std::string why;
  const auto delays = parse_delay_list("# rank 0 late\n10us 0us\n\t0 # rank 2\r\n1ms\n", why);
  REQUIRE(delays);
  CHECK(*delays == std::vector<double>{10e-6, 0.0, 0.0, 1e-3});
  CHECK_FALSE(parse_delay_list("0us\n5 us\n", why));
  CHECK(why == "line 2: delay '5' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK_FALSE(parse_delay_list("# nothing\n\n", why));
  CHECK(why == "no delay in it: expected one duration per rank (e.g. 0us 10us 0us 0us)");
}

TEST_CASE("HARMONIZE_ARRIVAL is validated like every variable", "[config][arrival]") {
  const Environment harmonized = {{"HARMONIZE_MODE", "harmonize"}};
  const auto with = [&](const std::string& value, const FileReader& reader) {
    Environment environment = harmonized;
    environment["HARMONIZE_ARRIVAL"] = value;
    return build_policy(environment, reader);
  };
  const FileReader nothing = no_files();

  const PolicyResult ok = with("rank:1:5us", nothing);
  REQUIRE(ok.ok());
  CHECK(ok.policy.arrival.kind == ArrivalKind::rank);
  CHECK(ok.canonical.at("HARMONIZE_ARRIVAL") == "rank:1:5us");

  const PolicyResult bad = with("rank:one:5us", nothing);
  REQUIRE(bad.errors.size() == 1);
  CHECK(bad.errors[0] ==
        "HARMONIZE_ARRIVAL='rank:one:5us' is not valid: rank 'one' is not a whole number from 0; "
        "expected " +
            std::string(kArrivalSyntax));

  // Only a harmonized barrier leaves at an instant a delay can follow.
  for (const char* mode : {"off", "observe"}) {
    const PolicyResult wrong =
        build_policy({{"HARMONIZE_MODE", mode}, {"HARMONIZE_ARRIVAL", "linear:1us"}}, nothing);
    REQUIRE(wrong.errors.size() == 1);
    CHECK(wrong.errors[0] ==
          "HARMONIZE_ARRIVAL='linear:1us' needs HARMONIZE_MODE=harmonize: only a harmonized "
          "barrier leaves at a known instant to delay from (the mode is " +
              std::string(mode) + ")");
  }
  CHECK(build_policy({{"HARMONIZE_MODE", "observe"}, {"HARMONIZE_ARRIVAL", "none"}}, nothing).ok());
  const PolicyResult alternate =
      build_policy({{"HARMONIZE_MODE", "off"}, {"HARMONIZE_ALTERNATE", "1"}}, nothing);
  REQUIRE(alternate.errors.size() == 1);
  CHECK(alternate.errors[0] ==
        "HARMONIZE_ALTERNATE='1' needs HARMONIZE_MODE=harmonize: it alternates harmonized and "
        "native barriers (the mode is off)");

  // The file is read with the preset's reader, its errors named.
  const PolicyResult from_file = with("file:/d.txt", one_file("/d.txt", "0us 20us\n"));
  REQUIRE(from_file.ok());
  CHECK(from_file.policy.arrival.per_rank == std::vector<double>{0.0, 20e-6});
  // Ranks compare canonical texts: one path, other delays (a node-local
  // copy) must not agree; the same delays spelled otherwise must.
  const std::string canonical = from_file.canonical.at("HARMONIZE_ARRIVAL");
  CHECK(canonical.rfind("file:/d.txt#", 0) == 0);
  CHECK(with("file:/d.txt", one_file("/d.txt", "0us 21us\n")).canonical.at("HARMONIZE_ARRIVAL") !=
        canonical);
  CHECK(with("file:/d.txt", one_file("/d.txt", "# same\n0 20000ns"))
            .canonical.at("HARMONIZE_ARRIVAL") == canonical);
  const PolicyResult missing = with("file:/e.txt", one_file("/d.txt", ""));
  REQUIRE(missing.errors.size() == 1);
  CHECK(missing.errors[0] ==
        "HARMONIZE_ARRIVAL='file:/e.txt': the delay file cannot be read: No such file or "
        "directory");
  const PolicyResult broken = with("file:/d.txt", one_file("/d.txt", "0us fast\n"));
  REQUIRE(broken.errors.size() == 1);
  CHECK(broken.errors[0] ==
        "HARMONIZE_ARRIVAL='file:/d.txt': the delay file is not valid: line 1: delay 'fast' is "
        "not a duration with unit ns, us, ms or s from 0 to 10s");
}
