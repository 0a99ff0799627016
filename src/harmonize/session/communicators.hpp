#pragma once
// The session's communicators: a user communicator's state, made at its
// first barrier (collective over its members: its key, record, clock,
// barrier protocol, and what the features bring), found again through the
// registry's attribute, and its record kept in the store when it goes.
#include <mpi.h>

#include <atomic>
#include <memory>
#include <vector>

#include "config/policy.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/session/comm_state.hpp"
#include "harmonize/session/features.hpp"
#include "harmonize/session/registry.hpp"
#include "harmonize/session/session_clocks.hpp"
#include "harmonize/session/session_job.hpp"

namespace harmonize {

class Communicators {
 public:
  // Everything referred to must outlive this object; `features` may be
  // filled later (before the first state is made). Throws MpiError.
  Communicators(const config::Policy& policy, const SessionJob& job, SessionClocks& clocks,
                const Features& features);

  // The state of `comm`, or nullptr. Throws MpiError.
  CommState* find(MPI_Comm comm) const { return registry_->find(comm); }
  // The state of `comm`, made now if it has none (collective over its
  // members). Throws MpiError.
  CommState& state_for(MPI_Comm comm);
  // Every state alive, in the same order on every process.
  std::vector<CommState*> alive_in_order() const { return registry_->alive_in_order(); }
  // MPI_Finalize, before retire_all: what the features are shown of the
  // communicators (MPI_COMM_WORLD's only when `world_affected`).
  feature::Finishing finishing(bool world_affected);
  // MPI_Finalize: every state still alive goes to the store.
  void retire_all() { registry_->retire_all(); }
  // What survives the communicators of this process.
  logic::RecordStore& records() { return records_; }
  const logic::RecordStore& records() const { return records_; }

 private:
  std::unique_ptr<CommState> create_state(MPI_Comm comm);
  // From an MPI delete callback: nothing escapes.
  void retire(const CommState& state, bool at_finalize) noexcept;

  const config::Policy& policy_;
  const SessionJob& job_;
  SessionClocks& clocks_;
  const Features& features_;
  logic::RecordStore records_;
  std::atomic<std::uint64_t> serial_{0};  // of the communicators this process is rank 0 of
  // Last: its destructor must not outlive what the retire callback uses.
  std::unique_ptr<Registry> registry_;
};

}  // namespace harmonize
