// HARMONIZE_TEST_CLOCK_SCOPE: which processes read one test clock, and what
// the sync then takes for nodes. The skews are the ground truth of the MPI
// tests, so they must be exact in both scopes.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "clock/test_clock.hpp"
#include "harmonize/startup/clock_setup.hpp"

using namespace harmonize::clock;

TEST_CASE("scope node: one skew per virtual node, and virtual nodes replace shared memory",
          "[clock][shared-clock]") {
  const TestClockSpec spec = test_clocks(1e-3, 50e-6, 7, 2, false);
  CHECK(uses_virtual_nodes(spec));
  CHECK(skew_of_rank(spec, 2).offset == skew_for_node(spec, 1).offset);
  CHECK(skew_of_rank(spec, 3).offset == skew_of_rank(spec, 2).offset);
  CHECK(skew_of_rank(spec, 3).drift == skew_of_rank(spec, 2).drift);
  // Without a node size every rank is its own virtual node.
  const TestClockSpec alone = test_clocks(1e-3, 50e-6, 7, 0, false);
  CHECK(uses_virtual_nodes(alone));
  CHECK(skew_of_rank(alone, 3).offset == skew_for_node(alone, 3).offset);
  // No test clocks, no node size: the shared-memory nodes.
  CHECK_FALSE(uses_virtual_nodes(TestClockSpec{}));
}

TEST_CASE("scope process: a skew per rank, nodes stay what the library finds",
          "[clock][shared-clock]") {
  const TestClockSpec spec = test_clocks(1e-3, 50e-6, 7, 2, true);
  CHECK(uses_virtual_nodes(spec));  // HARMONIZE_TEST_NODE_SIZE still groups ranks
  CHECK(skew_of_rank(spec, 3).offset == skew_for_node(spec, 3).offset);
  CHECK(skew_of_rank(spec, 3).offset != skew_of_rank(spec, 2).offset);
  const TestClockSpec shared_memory = test_clocks(1e-3, 50e-6, 7, 0, true);
  CHECK_FALSE(uses_virtual_nodes(shared_memory));
  // Same skews as scope node without a node size: only the nodes differ.
  for (int rank = 0; rank < 8; ++rank) {
    CHECK(skew_of_rank(shared_memory, rank).offset ==
          skew_of_rank(test_clocks(1e-3, 50e-6, 7, 0, false), rank).offset);
  }
  // The session's and the tool's ground truth goes through ClockSetup.
  harmonize::ClockSetup setup;
  setup.test_clock = spec;
  CHECK(setup.skew_of_rank(5).drift == skew_for_node(spec, 5).drift);
  CHECK(setup.skew_of_rank(0).offset == skew_for_node(spec, 0).offset);
}

TEST_CASE("scope host: one skew per shared-memory node MPI found, nodes stay real",
          "[clock][shared-clock]") {
  TestClockSpec spec = test_clocks(1e-3, 50e-6, 7, 0, false);
  spec.per_host = true;
  spec.host_of_rank = {0, 0, 1, 2, 1};  // an uneven job: ranks 2 and 4 share host 1
  CHECK_FALSE(uses_virtual_nodes(spec));
  CHECK(skew_of_rank(spec, 1).offset == skew_for_node(spec, 0).offset);
  CHECK(skew_of_rank(spec, 4).offset == skew_for_node(spec, 1).offset);
  CHECK(skew_of_rank(spec, 4).drift == skew_of_rank(spec, 2).drift);
  CHECK(skew_of_rank(spec, 3).offset == skew_for_node(spec, 2).offset);
  CHECK(skew_of_rank(spec, 3).offset != skew_of_rank(spec, 2).offset);
  // A rank the table lacks is a programming error, not a made-up skew.
  CHECK_THROWS_AS(skew_of_rank(spec, 5), std::out_of_range);
}
