#pragma once
// The global clock of one communicator, synchronized over PMPI.
#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "clock/global_clock.hpp"
#include "sync/hierarchical_sync.hpp"
#include "sync/mpi/mpi_transport.hpp"
#include "sync/settings.hpp"

namespace harmonize::sync {

struct SyncReport {
  double seconds = 0;         // duration of the last synchronize() on this process
  int rounds = 0;             // HCA3 rounds (ceil(log2) per HCA3 level)
  int levels = 0;             // hierarchy levels used (1 hca3, 2 h2hca, 3 h3hca)
  int nodes = 0;              // (virtual) nodes in the communicator
  std::string fallback_note;  // e.g. why h3hca ran as h2hca
  Scheme scheme_used = Scheme::h2hca;
  int syncs = 0;            // synchronize() calls so far
  int history_batches = 0;  // earlier syncs feeding this process's drift estimate (0: not a client)
  double slope = 0;         // newest model level (local drift estimate)
};

class CommClockSync {
 public:
  // Collective over `comm`; see the class comment in docs/clock-sync.md.
  // `base` is the clock this sync refines (the local source for the world;
  // the world clock for a sub-communicator). Rank 0 of `comm` is the reference.
  static std::unique_ptr<CommClockSync> create(
      MPI_Comm comm, const Settings& settings, clock::GlobalClock base,
      std::function<int(int world_rank)> virtual_node_of_rank = {});

  // Collective; returns the new global clock. Later calls refine the drift
  // with the fit points of earlier calls.
  clock::GlobalClock synchronize();
  // Replace the base (e.g. after the world clock was resynchronized); the
  // history measured on the old base is dropped when the models differ.
  void rebase(clock::GlobalClock base);
  const SyncReport& last_report() const { return report_; }
  const clock::GlobalClock& current() const { return current_; }
  // The private duplicate all traffic runs on (for Check-Global-Clock style
  // measurements by tools).
  Transport& transport() { return *transport_; }

 private:
  CommClockSync(std::unique_ptr<MpiTransport> transport, const Settings& settings,
                clock::GlobalClock base, Placement placement, std::string socket_note);

  void warm_up();

  std::unique_ptr<MpiTransport> transport_;
  clock::GlobalClock base_;
  clock::GlobalClock current_;
  HierarchicalSync scheme_;
  SyncReport report_;
};

}  // namespace harmonize::sync
