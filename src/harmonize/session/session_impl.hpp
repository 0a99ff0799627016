#pragma once
// The measuring session: wires the world clock, the registry of
// communicators, their barrier protocols, the record store and the rooms of
// the features (arrival/, collectives/) together. session.cpp dispatches the
// barriers, session_comms.cpp makes a communicator's state,
// session_report.cpp ends the session with the report.
#include <atomic>
#include <memory>
#include <optional>
#include <vector>

#include "harmonize/arrival/job_arrival.hpp"
#include "harmonize/startup/clock_setup.hpp"
#include "harmonize/collectives/mpi/timed_collectives.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/protocol/world_clock.hpp"
#include "harmonize/session/registry.hpp"
#include "harmonize/session.hpp"
#include "harmonize/session/shared_clock_notice.hpp"
#include "harmonize/session/thread_census.hpp"
#include "harmonize/trace/mpi/timeline_writer.hpp"
#include "sync/layout.hpp"
#include "sync/mpi/comm_clock_sync.hpp"
#include "sync/mpi/topology.hpp"

namespace harmonize {

class SessionImpl final : public Session {
 public:
  SessionImpl(const config::PolicyResult& configuration, MPI_Comm private_world);

  int barrier(MPI_Comm comm) override;
  int harmonize(MPI_Comm comm, int* flag) override;
  int last_flag(MPI_Comm comm, int* flag) override;
  bool global_time(double& time, double& bound) const override;
  void finish() override;
  collectives::CollectiveTimer* collective_timer() override {
    return timed_ ? &timed_->timer() : nullptr;
  }
  void comm_freeing(MPI_Comm comm) override;

 private:
  bool affects(MPI_Comm comm) const;
  CommState& state_for(MPI_Comm comm);  // throws MpiError
  std::unique_ptr<CommState> create_state(MPI_Comm comm);
  std::unique_ptr<sync::ClockSync> group_sync(MPI_Comm comm, const logic::CommKey& key,
                                              clock::GlobalClock base);
  protocol::ProtocolSettings protocol_settings(const std::string& name) const;
  void stop_on_error(const std::string& error);
  void write_report();
  // Every process's part of the report, merged up a tree to world rank 0
  // (complete there only).
  logic::JobRecords merge_records_up_tree();
  // The collective calls of `state`'s communicator: matched when due (every
  // kMatchBatch calls, at a barrier), or all that are left (MPI_Finalize).
  void match_timed_calls(CommState& state, bool all_left);
  void match_left_at_finish();
  // protocol.harmonized(), counting the threads inside one at once.
  int harmonized(protocol::BarrierProtocol& protocol);
  // The start-up's world clock; `find_hosts` etc. were set up before.
  void synchronize_world_clock();

  config::PolicyResult configuration_;
  const config::Policy& policy_;
  MPI_Comm world_;  // owned by the lifecycle; MPI_COMM_NULL in mode off
  int world_rank_ = 0;
  int world_size_ = 1;
  std::string started_;
  ClockSetup clocks_;
  sync::NodeCrowding crowding_;  // yield while waiting; the warning's cause
  sync::Layout layout_;          // node and socket of every world rank
  sync::NodeNumber node_;        // this process's node and how many (HARMONIZE_ARRIVAL's node:N)
  std::optional<arrival::JobArrival> arrival_;
  // Before the clocks whose syncs it hears of.
  SharedClockNotice shared_clock_notice_{world_rank_, layout_};
  bool shared_clock_checked_ = false;  // some node copies models, so syncs check it
  std::unique_ptr<protocol::WorldClock> world_clock_;
  logic::RecordStore records_;
  std::atomic<std::uint64_t> serial_{0};
  std::unique_ptr<collectives::TimedCollectives> timed_;  // null: nothing timed
  std::unique_ptr<trace::TimelineWriter> timeline_;       // null: no HARMONIZE_TRACE
  // Collective calls of intercommunicators no barrier ever took (MPI_Finalize).
  std::uint64_t inter_calls_left_ = 0;
  bool thread_multiple_ = false;
  ThreadCensus barrier_threads_;  // MPI_THREAD_MULTIPLE only
  // Last: its destructor must not outlive what the retire callback uses.
  std::unique_ptr<Registry> registry_;
};

}  // namespace harmonize
