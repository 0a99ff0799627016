#include <catch2/catch.hpp>
#include <vector>

#include "tools/common/machine_floor.hpp"

using harmonize::tools::MachineFloor;
using harmonize::tools::summarize_gaps;

TEST_CASE("the machine's floor counts the gaps per spinner and the time in them", "[tools]") {
  // Two spinners, 2 s each: 10 gaps in all, 1 + 2 + ... + 10 us of them.
  std::vector<double> gaps;
  for (int us = 10; us >= 1; --us) gaps.push_back(us * 1e-6);
  const MachineFloor floor = summarize_gaps(gaps, 2.0, 2);
  CHECK(floor.seconds == 2.0);
  CHECK(floor.per_second == Approx(2.5));          // 10 gaps over 4 spinner-seconds
  CHECK(floor.away_share == Approx(55e-6 / 4.0));  // 55 us of 4 s
  CHECK(floor.gap_p50 == Approx(5e-6));            // the 5th smallest of 10
  CHECK(floor.gap_p90 == Approx(9e-6));            // the 9th
}

TEST_CASE("a machine without gaps has a floor of zero", "[tools]") {
  const MachineFloor floor = summarize_gaps({}, 1.0, 1);
  CHECK(floor.per_second == 0.0);
  CHECK(floor.away_share == 0.0);
  CHECK(floor.gap_p50 == 0.0);
  CHECK(summarize_gaps({1e-6}, 0.0, 1).per_second == 0.0);  // nothing spun: nothing known
}
