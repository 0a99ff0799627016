#pragma once
// The global clock of one group of processes, synchronized over PMPI.
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "clock/global_clock.hpp"
#include "sync/clock_sync.hpp"
#include "sync/hierarchical_sync.hpp"
#include "sync/layout.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

class CommClockSync final : public ClockSync {
 public:
  // Collective over the group of `transport`, whose placement comes from
  // `layout` (no communication). `base` is the clock this sync refines (the
  // local source for the world; the world clock for a sub-communicator).
  // Rank 0 of the group is the reference. Throws MpiError.
  static std::unique_ptr<CommClockSync> create(std::unique_ptr<GroupTransport> transport,
                                               const Settings& settings, clock::GlobalClock base,
                                               const Layout& layout);
  // Collective over `comm`: a sync on a private copy of it, for tools and
  // for communicators of a job that has no private world (mode off).
  static std::unique_ptr<CommClockSync> create_on_copy(
      MPI_Comm comm, const Settings& settings, clock::GlobalClock base,
      const std::function<int(int world_rank)>& virtual_node_of_rank = {});

  // Throws MpiError.
  clock::GlobalClock synchronize() override;
  void rebase(clock::GlobalClock base) override;
  void discard_last() override { scheme_.forget_last_sync(); }
  const SyncReport& last_report() const override { return report_; }
  // The group's traffic (for Check-Global-Clock style measurements by tools).
  Transport& transport() { return *transport_; }

 private:
  CommClockSync(std::unique_ptr<GroupTransport> transport, const Settings& settings,
                clock::GlobalClock base, Placement placement, const std::string& socket_note);

  std::unique_ptr<GroupTransport> transport_;
  clock::GlobalClock base_;
  HierarchicalSync scheme_;
  SyncReport report_;
};

}  // namespace harmonize::sync
