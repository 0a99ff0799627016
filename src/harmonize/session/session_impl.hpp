#pragma once
// The measuring session: the world clock, the registry of communicators and
// their barrier protocols, the record store, and a loop over the enabled
// features (harmonize/feature/feature.hpp; the list is features.cpp).
// session.cpp starts it and dispatches the barriers, session_comms.cpp makes
// a communicator's state, session_report.cpp ends it with the report.
#include <atomic>
#include <memory>
#include <vector>

#include "harmonize/feature/feature.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/session.hpp"
#include "harmonize/session/registry.hpp"
#include "harmonize/session/session_clocks.hpp"
#include "harmonize/session/session_job.hpp"

namespace harmonize {

// Every feature this policy enables, in the order their hooks run.
std::vector<std::unique_ptr<feature::Feature>> make_features(const feature::JobContext& job);

class SessionImpl final : public Session {
 public:
  SessionImpl(const config::PolicyResult& configuration, MPI_Comm private_world);

  int barrier(MPI_Comm comm) override;
  int harmonize(MPI_Comm comm, int* flag) override;
  int last_flag(MPI_Comm comm, int* flag) override;
  bool global_time(double& time, double& bound) const override;
  void finish() override;
  collectives::CollectiveTimer* collective_timer() override;
  void comm_freeing(MPI_Comm comm) override;

 private:
  const config::Policy& policy() const { return configuration_.policy; }
  bool affects(MPI_Comm comm) const;
  template <typename Hook>
  void each_feature(Hook hook) const {
    for (const auto& feature : features_) hook(*feature);
  }
  CommState& state_for(MPI_Comm comm);  // throws MpiError
  std::unique_ptr<CommState> create_state(MPI_Comm comm);
  void stop_on_error(const std::string& error);
  void retire(const CommState& state, bool at_finalize) noexcept;
  // The harmonized or observed barrier of a communicator the policy affects.
  int library_barrier(MPI_Comm comm, CommState& state, bool under_test);
  // protocol.harmonized() on `comm`, the features told around it; its flag.
  int harmonized(MPI_Comm comm, protocol::BarrierProtocol& protocol);
  void write_report();
  // This process's part of the report (its records, host, clock fallback and
  // what the features add).
  logic::ProcessContribution own_contribution() const;

  config::PolicyResult configuration_;
  SessionJob job_;
  SessionClocks clocks_;
  logic::RecordStore records_;
  std::atomic<std::uint64_t> serial_{0};  // of the communicators this process is rank 0 of
  std::vector<std::unique_ptr<feature::Feature>> features_;  // none in mode off
  // Last: its destructor must not outlive what the retire callback uses.
  std::unique_ptr<Registry> registry_;
};

}  // namespace harmonize
