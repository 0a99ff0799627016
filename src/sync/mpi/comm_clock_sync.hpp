#pragma once
// The global clock of one group of processes, synchronized over PMPI.
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "clock/global_clock.hpp"
#include "sync/hierarchical_sync.hpp"
#include "sync/layout.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

struct SyncReport {
  double seconds = 0;         // duration of the last synchronize() on this process
  int rounds = 0;             // HCA3 rounds (ceil(log2) per HCA3 level)
  int levels = 0;             // hierarchy levels used (1 hca3, 2 h2hca, 3 h3hca)
  int nodes = 0;              // (virtual) nodes in the group
  std::string fallback_note;  // e.g. why h3hca ran as h2hca
  Scheme scheme_used = Scheme::h2hca;
  int syncs = 0;  // synchronize() calls so far
};

class CommClockSync {
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

  // Collective; returns the new global clock. Later calls refine the drift
  // with the fit points of earlier calls. Throws MpiError.
  clock::GlobalClock synchronize();
  // Replace the base (e.g. after the world clock was resynchronized); the
  // history measured on the old base is dropped when the models differ.
  void rebase(clock::GlobalClock base);
  const SyncReport& last_report() const { return report_; }
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
