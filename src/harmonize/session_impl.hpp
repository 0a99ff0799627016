#pragma once
// The measuring session: world clock, per-communicator states, barriers.
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "harmonize/clock_setup.hpp"
#include "harmonize/comm_state.hpp"
#include "harmonize/session.hpp"
#include "sync/layout.hpp"
#include "sync/mpi/topology.hpp"

namespace harmonize {

class SessionImpl final : public Session {
 public:
  SessionImpl(const config::PolicyResult& configuration, MPI_Comm private_world);
  ~SessionImpl() override;

  int barrier(MPI_Comm comm) override;
  int harmonize(MPI_Comm comm, int* flag) override;
  int last_flag(MPI_Comm comm, int* flag) override;
  void finish() override;

  // Called from the attribute delete callback when a user frees a communicator.
  void retire(CommState* state);

 private:
  bool affects(MPI_Comm comm) const;
  // Every int-returning member returns an MPI status for the user's call.
  int state_for(MPI_Comm comm, CommState*& state);
  int create_state(MPI_Comm comm, std::unique_ptr<CommState>& state);
  int measure_slack(CommState& state);
  int prepare_first_harmonized_call(CommState& state);

  int harmonized_barrier(CommState& state, int* flag);
  int observed_barrier(CommState& state);
  int passed_through(CommState& state);
  int native_barrier(CommState& state, int* flag);     // a communicator given up on
  int unharmonized_call(CommState& state, int* flag);  // given up on within the call
  int flush_log(CommState& state);
  // Members learn together whether any of them failed (`failure` not empty);
  // if one did, the communicator's barriers are native from then on.
  int agree_on_failure(CommState& state, const std::string& failure);
  int resync_agreed(CommState& state);
  // Throws (MpiError, or why the group cannot be synchronized).
  void resync(CommState& state);
  std::unique_ptr<sync::CommClockSync> group_sync(const CommState& state,
                                                  clock::GlobalClock base) const;
  double resync_interval(const CommState& state) const;
  void mark_synced(CommState& state) const;
  clock::GlobalClock world_clock(std::uint64_t* version, double* synced_at = nullptr);

  int reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op, int root,
             MPI_Comm comm) const;
  int bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm) const;
  int wait(MPI_Request& request, int status) const;

  void stop_on_error(const std::string& error);
  void sync_world_clock();
  void write_report(const std::vector<double>& encoded_records);

  config::PolicyResult configuration_;
  const config::Policy& policy_;
  MPI_Comm world_;       // owned by the lifecycle; MPI_COMM_NULL in mode off
  sync::Layout layout_;  // node and socket of every world rank
  int world_rank_ = 0;
  int world_size_ = 1;
  std::string started_;
  ClockSetup clocks_;

  std::mutex world_mutex_;  // world clock: read by sub-communicators' resyncs
  std::unique_ptr<sync::CommClockSync> world_sync_;
  std::optional<clock::GlobalClock> world_clock_;
  std::uint64_t world_version_ = 0;
  double world_synced_at_ = 0;  // on the world clock
  double initial_sync_seconds_ = 0;
  std::atomic<std::uint64_t> world_syncs_{0};  // read by sub-communicators' ramps
  bool has_world_clock_ = false;               // set once, in the constructor
  double world_sync_seconds_ = 0;

  bool oversubscribed_ = false;  // yield while spinning towards a deadline
  sync::NodeCrowding crowding_;  // for the warning when harmonization failed
  int keyval_ = MPI_KEYVAL_INVALID;
  std::atomic<std::uint64_t> serial_{0};
  std::mutex registry_mutex_;
  std::set<CommState*> live_;
  // Records of freed communicators, encoded at once: the encoding is sparse,
  // so a create/free loop costs bytes per communicator, not histograms.
  std::vector<double> retired_{0.0};
  // Beyond the first communicators of each root, freed ones are folded into
  // one record per (root, size), so memory stays bounded in a create/free loop.
  std::map<CommKey, CommRecord> folded_;
  bool finishing_ = false;  // communicators retired now were not freed by the user
};

}  // namespace harmonize
