// HARMONIZE_INTERLEAVE's syntax (config/interleave.hpp) and its place in the
// policy: the sides exactly, one canonical text, and every refusal a clear
// line naming the side.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "config/interleave.hpp"
#include "config/policy.hpp"
#include "policy_readers.hpp"

using namespace harmonize::config;
using harmonize::config::testing::no_files;

namespace {

InterleaveSides parsed(const std::string& text) {
  std::string why;
  const auto sides = parse_interleave(text, why);
  INFO(text << ": " << why);
  REQUIRE(sides);
  return *sides;
}

std::string refused(const std::string& text) {
  std::string why;
  CHECK_FALSE(parse_interleave(text, why));
  return why;
}

}  // namespace

TEST_CASE("interleaved sides parse to what they say, in one canonical text",
          "[config][interleave]") {
  CHECK(parsed("none").sides.empty());
  const InterleaveSides ab = parsed("A B");
  REQUIRE(ab.sides.size() == 2);
  CHECK(ab.sides[0] == InterleaveSide{"A", false, {}, {}});
  CHECK(ab.sides[1] == InterleaveSide{"B", true, {}, {}});
  CHECK(interleave_text(ab) == "A:MODE=observe;B:MODE=harmonize");
  CHECK(parsed(" A;B:harmonize_mode=harmonize ") == ab);
  const InterleaveSides aa = parsed("one:MODE=harmonize;two:mode=harmonize\tthree:MODE=observe");
  REQUIRE(aa.sides.size() == 3);
  CHECK(aa.sides[0] == InterleaveSide{"one", true, {}, {}});
  CHECK(aa.sides[2] == InterleaveSide{"three", false, {}, {}});
  // An arrival pattern per side: a whole b(delta) sweep in one run; its
  // commas stay in the value, as in harmonize-ab's --side.
  const InterleaveSides sweep =
      parsed("B late:ARRIVAL=rank:1:10000ns both:arrival=ranks:0,1:100us,MODE=harmonize");
  REQUIRE(sweep.sides.size() == 3);
  CHECK(sweep.sides[1].harmonized);
  CHECK(sweep.sides[1].arrival.kind == harmonize::ArrivalKind::rank);
  CHECK(sweep.sides[2].arrival.late == std::vector<int>{0, 1});
  CHECK(interleave_text(sweep) ==
        "B:MODE=harmonize;late:MODE=harmonize,ARRIVAL=rank:1:10us;"
        "both:MODE=harmonize,ARRIVAL=ranks:0,1:100us");
}

TEST_CASE("a side sets collectives' algorithms by the MPI's name or number",
          "[config][interleave]") {
  const InterleaveSides sides =
      parsed("B rd:allreduce=Recursive_Doubling,BCAST=2 smp:MODE=observe,ALLREDUCE=smp");
  REQUIRE(sides.sides.size() == 3);
  CHECK(sides.sides[1].algorithms ==
        std::vector<AlgorithmChoice>{{"allreduce", "recursive_doubling"}, {"bcast", "2"}});
  CHECK_FALSE(sides.sides[2].harmonized);
  CHECK(interleave_text(sides) ==
        "B:MODE=harmonize;rd:MODE=harmonize,ALLREDUCE=recursive_doubling,BCAST=2;"
        "smp:MODE=observe,ALLREDUCE=smp");
  // Whether the MPI has it is asked at MPI_Init (interleave/mpi/algorithm_switch).
  CHECK(refused("B x:ALLREDUCE=") ==
        "side 'x': ALLREDUCE= is not an algorithm's name or number (letters, digits, _)");
  CHECK(refused("B x:ALLREDUCE=a-b") ==
        "side 'x': ALLREDUCE=a-b is not an algorithm's name or number (letters, digits, _)");
  CHECK(refused("B x:ALLREDUCE=1,allreduce=2") == "side 'x' sets ALLREDUCE twice");
  // The barrier is the instrument: its algorithm is not a side's.
  CHECK(refused("A x:BARRIER=1").rfind("side 'x': 'BARRIER' cannot be switched per call", 0) == 0);
}

TEST_CASE("a side the library cannot switch per call is refused by name", "[config][interleave]") {
  CHECK(refused("A") == "'A' names 1 side(s): a comparison needs two to eight");
  CHECK(refused("A A") == "side 'A' is named twice");
  CHECK(refused("A C") == "side 'C' sets nothing: only A and B are predefined, write C:MODE=...");
  CHECK(refused("A fast:MODE=off") ==
        "side 'fast': MODE=off cannot be interleaved: the barrier of a side is observe (native) "
        "or harmonize");
  CHECK(refused("A fast:OMPI_MCA_coll_tuned_allreduce_algorithm=4")
            .rfind("side 'fast': 'OMPI_MCA_COLL_TUNED_ALLREDUCE_ALGORITHM' cannot be switched "
                   "per call",
                   0) == 0);
  CHECK(refused("A late:ARRIVAL=rank:0:10us,MODE=observe") ==
        "side 'late': ARRIVAL needs MODE=harmonize: only a harmonized barrier leaves at a known "
        "instant to delay from");
  CHECK(refused("B late:ARRIVAL=file:/tmp/d") ==
        "side 'late': ARRIVAL cannot be a file (read for HARMONIZE_ARRIVAL only)");
  CHECK(refused("B late:ARRIVAL=rank:x:1us")
            .rfind("side 'late': ARRIVAL is not valid: rank 'x'", 0) == 0);
  CHECK(refused("A x:MODE") == "side 'x': 'MODE' is not KEY=VALUE");
  CHECK(refused("A b\x1b[2J:MODE=harmonize").find('\x1b') == std::string::npos);
  CHECK(refused("A B C:MODE=observe D:MODE=observe E:MODE=observe F:MODE=observe "
                "G:MODE=observe H:MODE=observe I:MODE=observe") ==
        "'A B C:MODE=observe D:MODE=observe E:MODE=observe F:MODE=observe G:MODE=observe H\u2026' "
        "names 9 side(s): a comparison needs two to eight");
}

TEST_CASE("HARMONIZE_INTERLEAVE needs mode harmonize and timed collectives, and no alternation",
          "[config][interleave]") {
  const PolicyResult ok =
      build_policy({{"HARMONIZE_MODE", "harmonize"}, {"HARMONIZE_INTERLEAVE", "A B"}}, no_files());
  REQUIRE(ok.ok());
  CHECK(ok.policy.interleave.sides.size() == 2);
  CHECK(ok.policy.interleave_run == 1);
  CHECK(ok.canonical.at("HARMONIZE_INTERLEAVE") == "A:MODE=observe;B:MODE=harmonize");

  const PolicyResult observe =
      build_policy({{"HARMONIZE_MODE", "observe"}, {"HARMONIZE_INTERLEAVE", "A B"}}, no_files());
  REQUIRE(observe.errors.size() == 1);
  CHECK(observe.errors[0].rfind("HARMONIZE_INTERLEAVE='A B' needs HARMONIZE_MODE=harmonize", 0) ==
        0);
  const PolicyResult both = build_policy({{"HARMONIZE_MODE", "harmonize"},
                                          {"HARMONIZE_INTERLEAVE", "A B"},
                                          {"HARMONIZE_ALTERNATE", "1"}},
                                         no_files());
  REQUIRE(both.errors.size() == 1);
  CHECK(both.errors[0] ==
        "HARMONIZE_INTERLEAVE='A B' and HARMONIZE_ALTERNATE='1' both choose how each barrier "
        "runs: set one of them");
  const PolicyResult untimed = build_policy({{"HARMONIZE_MODE", "harmonize"},
                                             {"HARMONIZE_INTERLEAVE", "A B"},
                                             {"HARMONIZE_COLLECTIVES", "none"}},
                                            no_files());
  REQUIRE(untimed.errors.size() == 1);
  const PolicyResult bad_run = build_policy({{"HARMONIZE_MODE", "harmonize"},
                                             {"HARMONIZE_INTERLEAVE", "A B"},
                                             {"HARMONIZE_INTERLEAVE_RUN", "0"}},
                                            no_files());
  REQUIRE(bad_run.errors.size() == 1);
}
