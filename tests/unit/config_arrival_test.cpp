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
  CHECK(refused("rank:-1:1us") == "rank '-1' is not a whole number from 0 to 2147483647");
  CHECK(refused("rank:x:1us") == "rank 'x' is not a whole number from 0 to 2147483647");
  CHECK(refused("rank:0:10") ==
        "delay '10' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("rank:0:11s") ==
        "delay '11s' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("rank:0:-1us") ==
        "delay '-1us' is not a duration with unit ns, us, ms or s from 0 to 10s");
  CHECK(refused("ranks:0,,2:1us") == "rank '' is not a whole number from 0 to 2147483647");
  CHECK(refused("node:1") == "expected node:N:DELAY");
  CHECK(refused("linear:1us:2") == "expected linear:MAX");
  CHECK(refused("random:1us:2:3") == "expected random:MAX[:SEED]");
  CHECK(refused("random:1us:-2") ==
        "seed '-2' is not a whole number from 0 to 9223372036854775807");
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
        "HARMONIZE_ARRIVAL='rank:one:5us' is not valid: rank 'one' is not a whole number from 0 to "
        "2147483647; "
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

// Issue 25, D3: a delay file is user input shown in an error line like any
// other value: escaped and cut (README, "Environment variables").
TEST_CASE("a bad delay is shown escaped and cut, never raw", "[config][arrival]") {
  std::string why;
  // Escape codes that would clear the screen.
  CHECK_FALSE(parse_delay_list("0us \x1b[2J\x1b[H1us\n", why));
  CHECK(why ==
        "line 1: delay '\\x1b[2J\\x1b[H1us' is not a duration with unit ns, us, ms or s from 0 "
        "to 10s");
  // A binary file: its bytes escaped, the token cut after 80 characters.
  std::string binary(
      "\x7f"
      "ELF\x02\x01\x01",
      7);
  binary += std::string(200, '\x01') + std::string(1, '\0') + "\xff\xfe";
  CHECK_FALSE(parse_delay_list(binary, why));
  CHECK(why.find('\x1b') == std::string::npos);
  CHECK(why.find('\x7f') == std::string::npos);
  CHECK(why.find('\x01') == std::string::npos);
  CHECK(why.find('\0') == std::string::npos);
  CHECK(why.rfind("line 1: delay '\\x7fELF\\x02\\x01\\x01\\x01", 0) == 0);
  CHECK(why.find("\xe2\x80\xa6'") != std::string::npos);  // cut, with an ellipsis
  CHECK(why.size() < 200);
  // Invisible characters are shown, not hidden.
  CHECK_FALSE(parse_delay_list("0us 1\xe2\x80\x8bus\n", why));
  CHECK(why.find("'1\\u200Bus'") != std::string::npos);
  // In the pattern itself too.
  CHECK(refused("rank:\x1b[31m:1us") ==
        "rank '\\x1b[31m' is not a whole number from 0 to 2147483647");
  CHECK(refused("\x1b]0;x\x07:1us") == "unknown pattern '\\x1b]0;x\\x07'");
}

TEST_CASE("a delay file may start with a byte order mark", "[config][arrival]") {
  std::string why;
  const auto delays = parse_delay_list(
      "\xef\xbb\xbf"
      "0us 20us\n",
      why);
  INFO(why);
  REQUIRE(delays);
  CHECK(*delays == std::vector<double>{0.0, 20e-6});
  // Only at the start: anywhere else it is a character of a token, shown.
  CHECK_FALSE(
      parse_delay_list("0us \xef\xbb\xbf"
                       "20us\n",
                       why));
  CHECK(why.find("'\\uFEFF20us'") != std::string::npos);
}

TEST_CASE("a number out of range says the range, upper limit included", "[config][arrival]") {
  CHECK(refused("rank:3000000000:1us") ==
        "rank '3000000000' is not a whole number from 0 to 2147483647");
  CHECK(refused("ranks:0,99999999999:1us") ==
        "rank '99999999999' is not a whole number from 0 to 2147483647");
  CHECK(refused("node:2147483648:1us") ==
        "node '2147483648' is not a whole number from 0 to 2147483647");
  CHECK(refused("random:1us:99999999999999999999") ==
        "seed '99999999999999999999' is not a whole number from 0 to 9223372036854775807");
  CHECK(parsed("rank:2147483647:1us").late == std::vector<int>{2147483647});
}

TEST_CASE("a non-zero delay below 1ns is refused; delays are spelled in their own unit",
          "[config][arrival]") {
  CHECK(refused("linear:1e-9us") == "MAX '1e-9us' is below 1ns: a delay is 0 or from 1ns to 10s");
  CHECK(refused("rank:0:0.5ns") == "delay '0.5ns' is below 1ns: a delay is 0 or from 1ns to 10s");
  std::string why;
  CHECK_FALSE(parse_delay_list("0us 0.1ns\n", why));
  CHECK(why == "line 1: delay '0.1ns' is below 1ns: a delay is 0 or from 1ns to 10s");
  CHECK(arrival_text(parsed("linear:1ns")) == "linear:1ns");
  CHECK(arrival_text(parsed("linear:0.001us")) == "linear:1ns");
  CHECK(arrival_text(parsed("linear:1.5ns")) == "linear:1.5ns");
  CHECK(arrival_text(parsed("linear:0ns")) == "linear:0ns");
  CHECK(arrival_text(parsed("linear:10s")) == "linear:10s");
  // Every duration a user can write comes back in a unit, without an
  // exponent, and parses back to itself (the ranks compare these texts).
  const char* units[] = {"ns", "us", "ms", "s"};
  unsigned state = 12345;
  for (int i = 0; i < 20000; ++i) {
    state = state * 1103515245u + 12345u;
    const unsigned digits = state % 1000000000u;
    const int decimals = static_cast<int>((state >> 8) % 10);
    std::string number = std::to_string(digits);
    if (decimals > 0 && number.size() > static_cast<std::size_t>(decimals))
      number.insert(number.size() - static_cast<std::size_t>(decimals), ".");
    const std::string text = "linear:" + number + units[(state >> 16) % 4];
    std::string error;
    const auto pattern = parse_arrival(text, error);
    if (!pattern) continue;  // above 10s, or below 1ns
    const std::string canonical = arrival_text(*pattern);
    INFO(text << " -> " << canonical);
    CHECK(canonical.substr(7).find('e') == std::string::npos);  // after "linear:"
    CHECK(arrival_text(parsed(canonical)) == canonical);
    CHECK(parsed(canonical).delay == pattern->delay);
  }
}
