#pragma once
// HARMONIZE_INTERLEAVE as a feature of the session (docs/interleave.md): the
// seed agreed at MPI_Init, each communicator's schedule (which side each of
// its barriers runs, a lookup), rank 0's tagged calls kept per communicator,
// and at MPI_Finalize the sides paired block by block, the comparisons of
// every communicator merged to world rank 0 for the report's "interleave".
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/policy.hpp"
#include "harmonize/arrival/job_arrival.hpp"
#include "harmonize/feature/feature.hpp"
#include "harmonize/interleave/mpi/algorithm_switch.hpp"
#include "harmonize/interleave/schedule.hpp"

namespace harmonize::interleave {

// What the feature keeps of one communicator.
struct CommSides {
  std::string name;
  int size = 0;
  Schedule schedule;
  std::vector<report::MatchedCall> calls;  // rank 0's, tagged
  // Each side's own arrival pattern for this member, if it sets one.
  std::vector<std::optional<arrival::ArrivalDelays>> arrivals;
  // Per side, the communicator its calls run on where the MPI fixes the
  // algorithm per communicator (Open MPI); MPI_COMM_NULL until its first
  // barrier, and for a side that sets no algorithm.
  std::vector<MPI_Comm> side_comms;
};

class InterleaveFeature final : public feature::Feature {
 public:
  // The family-wise level of the report's comparisons: the chance that any
  // of them decides when no side differs.
  static constexpr double kFamilyLevel = 0.05;

  // Null without HARMONIZE_INTERLEAVE.
  static std::unique_ptr<feature::Feature> make(const feature::JobContext& job);
  explicit InterleaveFeature(const feature::JobContext& job);

  // A side's arrival pattern that does not fit the job (a rank it has not),
  // or an algorithm this MPI cannot switch per call.
  std::optional<std::string> misfit() const override;

  // Every rank draws the same schedule: world rank 0's seed.
  void started(const protocol::WorldClock&) override;
  void comm_made(feature::CommSetup& comm) override;
  std::optional<feature::BarrierSide> barrier_side(const feature::CommView& comm,
                                                   std::uint64_t index) override;
  void comm_freeing(MPI_Comm comm, feature::CommView* view) override;
  void finish(MPI_Comm world, const sync::Layout&) override;
  void contribute(report::JobReport& job, const logic::JobRecords&) const override;
  // The sides' delays are imposed on purpose, not slack run away.
  void explain(report::RunConditions& conditions, const report::CommSummary& comm) const override;
  void say_at_end(const report::JobReport& job) const override;

 private:
  static void free_side_comms(CommSides& comm);
  const config::InterleaveSides sides_;
  const int run_;
  std::uint64_t seed_;
  MPI_Comm world_;
  int world_rank_;
  int world_size_;
  std::vector<arrival::JobArrival> arrivals_;  // per side: its pattern in this job
  std::string algorithm_error_;
  std::unique_ptr<AlgorithmSwitch> algorithms_;  // null: no side sets an algorithm
  std::mutex comms_lock_;                        // communicators may be made in several threads
  std::list<CommSides> comms_;
  report::InterleaveInfo info_;  // world rank 0's, after finish()
};

}  // namespace harmonize::interleave
