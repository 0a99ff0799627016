// HARMONIZE_SYNC=none on the simulator (sync/given_clock.hpp): the clocks are
// used as they are, and the checked disagreement is the bound, against the
// known truth.
#include <catch2/catch.hpp>

#include <cmath>
#include <mutex>
#include <vector>

#include "sync/given_clock.hpp"
#include "sync/hierarchical_sync.hpp"
#include "sync_sim_helpers.hpp"

using namespace harmonize::sync;
using testing::nodes_of;
using testing::spec_for;

TEST_CASE("clocks taken as global are left alone, and their measured disagreement is the bound",
          "[sync][sim][given]") {
  // The simulator's clocks are +-1 ms apart: far beyond the tolerance.
  const int p = 6;
  simulator::SimWorld world(spec_for(nodes_of(p, {1}), 23));
  std::vector<GivenClockReport> reports(p);
  std::vector<harmonize::clock::ModelStack> models(p);
  double checked_at = 0;  // true time, after rank 0's check
  std::mutex mutex;
  Settings none;
  none.scheme = Scheme::none;
  world.run([&](simulator::SimProcess& self, Transport& transport) {
    const int r = self.world_rank();
    HierarchicalSync sync(transport, none, Placement{r, -1});
    CHECK(sync.stats().levels == 0);
    const harmonize::clock::GlobalClock base(self, {});
    const auto clk = sync.synchronize(base);
    std::lock_guard lock(mutex);
    if (r == 0) checked_at = self.true_now();
    reports[static_cast<std::size_t>(r)] = sync.given_clock();
    models[static_cast<std::size_t>(r)] = clk.models();
  });
  // Nothing was synchronized: the models are the base's.
  for (const auto& stack : models) CHECK(stack.depth() == 0);
  // Every member heard the same check.
  for (const GivenClockReport& report : reports) {
    CHECK(report.active);
    CHECK(report.checked == p - 1);
    CHECK(report.bound == reports[0].bound);
    CHECK(report.beyond == reports[0].beyond);
  }
  const GivenClockReport& report = reports[0];
  CHECK(models[0].error_bound().value == 0);  // the reference
  // The bound covers every rank's true offset from rank 0 (the simulator
  // knows it), and is that offset within the measurement's few microseconds.
  double worst_truth = 0;
  for (int r = 1; r < p; ++r) {
    const double truth =
        std::abs(world.local_time(r, checked_at) - world.local_time(0, checked_at));
    worst_truth = std::max(worst_truth, truth);
    CHECK(models[static_cast<std::size_t>(r)].error_bound().value == report.bound);
    CHECK(truth <= report.bound);
  }
  CHECK(report.bound < worst_truth + 5e-6);
  CHECK(std::abs(std::abs(report.worst_offset) - worst_truth) < 5e-6);
  // Offsets of up to a millisecond are beyond the tolerance: named.
  CHECK(report.beyond >= 1);
  CHECK(report.beyond_ranks[0] >= 1);
}
