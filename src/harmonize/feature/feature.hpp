#pragma once
// A feature of the session (docs/architecture.md, "Adding a feature"): what
// the session tells every enabled feature, and what a feature gives back.
// The session keeps the clock, the communicators and the barrier; a feature
// (the collective timer, the arrival patterns, the timeline, the threads'
// census) lives in its room, is made by one line of session/features.cpp and
// hears of the session's moments through these hooks. Every hook has a
// default that does nothing, so a feature overrides only its moments; no hook
// may throw except where it says so.
#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clock/time_source.hpp"
#include "config/policy.hpp"
#include "harmonize/feature/comm_view.hpp"
#include "harmonize/logic/job_records.hpp"
#include "harmonize/protocol/barrier_protocol.hpp"
#include "harmonize/protocol/world_clock.hpp"
#include "report/harmonization_warning.hpp"
#include "report/job_report.hpp"
#include "sync/layout.hpp"

namespace harmonize::collectives {
class CollectiveTimer;
}

namespace harmonize::feature {

// What every feature is given when the session starts (MPI_Init), before the
// world clock is synchronized. Alike on every rank but for the rank's own.
struct JobContext {
  const config::Policy& policy;
  MPI_Comm world;  // the library's private copy of MPI_COMM_WORLD
  int world_rank = 0;
  int world_size = 1;
  const sync::Layout& layout;      // node and socket of every world rank
  sync::NodeNumber node;           // this process's node, of how many
  const clock::TimeSource& local;  // the clock calls are stamped on
  bool thread_multiple = false;    // MPI_THREAD_MULTIPLE: hooks may come from several threads
};

// A communicator's barrier being made (collective over its members): what a
// feature brings to it goes into `settings`.
struct CommSetup {
  MPI_Comm user;
  int rank = 0;
  int size = 1;
  const std::string& name;  // as the report names it
  protocol::ProtocolSettings& settings;
  CommView& view;  // what a feature adds to it (the session fills the rest)
};

// An MPI_Barrier or MPIX_Harmonize about to run on `comm`.
struct BarrierEntry {
  MPI_Comm comm;
  // Null when the library leaves this barrier alone (mode off, a
  // communicator HARMONIZE_COMMS leaves out): the barrier is native.
  CommView* view = nullptr;
  // HARMONIZE_ALTERNATE: this one is the native barrier under test.
  bool under_test = false;
};

// HARMONIZE_INTERLEAVE: the side a barrier runs, and with it the first timed
// collective after it.
struct BarrierSide {
  // The barrier's index on its communicator plus 1 (mod 2^32, the same on
  // every member), which names its side and block; 0: no side.
  std::uint32_t tag = 0;
  bool harmonized = true;  // else the native barrier
  // A harmonized side's own arrival pattern, else null (HARMONIZE_ARRIVAL's).
  const arrival::ArrivalDelays* arrival = nullptr;
  // Where the program's collectives on the communicator run until its next
  // barrier (a side's algorithm on Open MPI: a duplicate made under it);
  // MPI_COMM_NULL: on the communicator itself.
  MPI_Comm run_on = MPI_COMM_NULL;
};

// A barrier the library ran on `comm` ended.
struct BarrierExit {
  MPI_Comm comm;
  // Harmonized, and left at its deadline (plus the arrival pattern's `delay`).
  bool in_time = false;
  double delay = 0;
  std::uint32_t side_tag = 0;  // BarrierSide::tag
};

// The session's end, before the communicators' records are retired: every
// member is here, so matching is collective over each communicator.
struct Finishing {
  // MPI_COMM_WORLD's view, made now if it had no barrier and `make` (then
  // collective); null when HARMONIZE_COMMS leaves it out or making it failed.
  std::function<CommView*(bool make)> world;
  // Every communicator alive, in the same order on every member.
  std::function<std::vector<CommView*>()> alive;
  // Records of no live communicator, retired after theirs (an aggregate is
  // named by the first record it takes).
  std::vector<std::pair<logic::CommRecord, logic::CommKind>> records_after;
};

// The body of a barrier a feature may measure: returns the MPI status.
using BarrierBody = std::function<int()>;

class Feature {
 public:
  virtual ~Feature() = default;

  // MPI_Init. Why the feature cannot run in this job: alike on every rank,
  // agreed collectively (all stop, or none); nullopt when the feature has
  // nothing to check (no collective is added to MPI_Init), "" when it fits.
  virtual std::optional<std::string> misfit() const { return std::nullopt; }
  // MPI_Init, once the world clock is made.
  virtual void started(const protocol::WorldClock&) {}

  // A communicator's barrier is being made.
  virtual void comm_made(CommSetup&) {}
  // Which side the `index`-th MPI_Barrier of `comm` runs (0-based, the same
  // on every member); at most one feature chooses.
  virtual std::optional<BarrierSide> barrier_side(const CommView&, std::uint64_t /*index*/) {
    return std::nullopt;
  }
  // Before a barrier's entry; may throw sync::MpiError (collective failures
  // on the user's communicator, already reported to the user's handler).
  virtual void barrier_entering(const BarrierEntry&) {}
  // Whether this feature times a native barrier the program may measure
  // (osu_barrier); at most one feature does.
  virtual bool measures_barrier() const { return false; }
  virtual int measure_barrier(MPI_Comm, const BarrierBody& body) { return body(); }
  // Around the harmonized protocol of a barrier.
  virtual void harmonized_started() {}
  virtual void harmonized_ended() {}
  // A barrier the library ran (harmonized or observed) ended.
  virtual void barrier_left(const BarrierExit&) {}
  // MPI_Comm_free is about to free `comm` (collective over its members);
  // `view` is null when the communicator never had a barrier.
  virtual void comm_freeing(MPI_Comm, CommView* /*view*/) {}
  // A communicator's record is kept (from an MPI delete callback).
  virtual void comm_retired(const CommView&, logic::CommRecord&) {}

  // MPI_Finalize, in order: before the records are retired; collective over
  // the library's world (its own traffic, every failure said, nothing
  // thrown); this process's part of the merged records; and on world rank 0
  // its section of the report, what the harmonization warning must not count
  // against a communicator, and what it says after the summary line.
  virtual void finishing(Finishing&) {}
  virtual void finish(MPI_Comm /*world*/, const sync::Layout&) {}
  virtual void contribute_own(logic::ProcessContribution&) const {}
  virtual void contribute(report::JobReport&, const logic::JobRecords&) const {}
  virtual void explain(report::RunConditions&, const report::CommSummary&) const {}
  virtual void say_at_end(const report::JobReport&) const {}

  // The shim stamps every timed collective call into it (HARMONIZE_COLLECTIVES).
  virtual collectives::CollectiveTimer* call_timer() { return nullptr; }
};

}  // namespace harmonize::feature
