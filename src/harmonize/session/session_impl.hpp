#pragma once
// The measuring session keeps three things: its clocks (session_clocks), the
// communicators (communicators: their states and records) and the barrier's
// dispatch; everything else is a feature it loops over (features.hpp).
// session.cpp starts it and dispatches, session_report.cpp ends it with the
// report.
#include <memory>
#include <vector>

#include "harmonize/feature/feature.hpp"
#include "harmonize/session.hpp"
#include "harmonize/session/communicators.hpp"
#include "harmonize/session/features.hpp"
#include "harmonize/session/session_clocks.hpp"
#include "harmonize/session/session_job.hpp"

namespace harmonize {

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
    harmonize::each_feature(features_, hook);
  }
  void stop_on_error(const std::string& error);
  // The harmonized or observed barrier of a communicator the policy affects.
  // `index`: the communicator's MPI_Barrier calls before this one.
  int library_barrier(MPI_Comm comm, CommState& state, bool under_test, std::uint64_t index);
  // protocol.harmonized() on `comm`, the features told around it; its flag.
  int harmonized(MPI_Comm comm, protocol::BarrierProtocol& protocol,
                 const feature::BarrierSide& side = {});
  void write_report();
  // This process's part of the report (its records, host, clock fallback and
  // what the features add).
  logic::ProcessContribution own_contribution() const;

  config::PolicyResult configuration_;
  SessionJob job_;
  SessionClocks clocks_;
  Features features_;  // none in mode off
  // After the features: a communicator retired as it goes tells them.
  Communicators comms_;
};

}  // namespace harmonize
