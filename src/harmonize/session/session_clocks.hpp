#pragma once
// The session's clocks: the local ones the policy asks for (startup/), the
// world clock synchronized at MPI_Init, each communicator's group sync, the
// shared-clock notice that hears of every sync, and at MPI_Finalize the end
// check and the report's "clock" section.
#include <mpi.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "config/policy.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/protocol/world_clock.hpp"
#include "harmonize/session/session_job.hpp"
#include "harmonize/session/shared_clock_notice.hpp"
#include "harmonize/startup/clock_setup.hpp"
#include "report/job_report.hpp"

namespace harmonize {

class SessionClocks {
 public:
  // `job` (its layout filled in later) must outlive this object. Per-host
  // test clocks gather the hosts over the job's world (collective).
  SessionClocks(const config::Policy& policy, const SessionJob& job);

  // Why the clocks cannot be made (one line; the job stops), or "".
  const std::string& setup_error() const { return setup_error_; }
  const ClockSetup& setup() const { return setup_; }
  // Waiting yields the core, and the sync knows why.
  void on_oversubscribed_node(bool oversubscribed) {
    setup_.sync_settings.on_oversubscribed_node(oversubscribed);
  }
  // The node of every world rank where the clocks decide it (virtual nodes,
  // per-host test clocks), else empty: the shared-memory nodes.
  std::function<int(int)> node_of_rank() const;

  // Collective over the job's world, once its layout is known.
  void synchronize_world(bool verbose);
  const protocol::WorldClock& world() const { return *world_; }
  // Communicators' clocks resynchronize it when it expires.
  protocol::WorldClock& world() { return *world_; }
  // The sync of a communicator's members, on the job's world (or on a copy
  // of `comm` in mode off). Throws std::runtime_error.
  std::unique_ptr<sync::ClockSync> group_sync(MPI_Comm comm, const logic::CommKey& key,
                                              clock::GlobalClock base);
  SharedClockNotice& notice() { return notice_; }
  const SharedClockNotice& notice() const { return notice_; }

  // Collective over the job's world when there is a world clock; its result
  // on world rank 0. A failure is said on world rank 0 and leaves it out.
  std::optional<report::ClockCheckInfo> end_check() const;
  report::ClockInfo section(std::optional<report::ClockCheckInfo> end_check) const;

 private:
  const config::Policy& policy_;
  const SessionJob& job_;
  std::string setup_error_;
  ClockSetup setup_;
  // Before the clocks whose syncs it hears of.
  SharedClockNotice notice_;
  std::unique_ptr<protocol::WorldClock> world_;
};

}  // namespace harmonize
