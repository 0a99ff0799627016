#pragma once
// What the timeline shows of one process (docs/timeline.md): per
// communicator its barrier calls, its timed collective calls and its clock
// syncs, each on the global clock (seconds), and the rendering of all of it
// as Chrome/Perfetto trace events. Pure.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "clock/global_clock.hpp"
#include "common/trace_window.hpp"
#include "harmonize/trace/call_window.hpp"

namespace harmonize::trace {

struct BarrierEvent {
  double entry = 0;
  double exit = 0;
  double deadline = 0;  // harmonized: the agreed deadline (the delay not included)
  double slack = 0;
  double bound = 0;  // the clock-error bound at the exit
  double delay = 0;  // HARMONIZE_ARRIVAL's for this process
  bool harmonized = false;
  bool missed = false;
  bool late = false;
  std::uint64_t index = 0;
};

struct CollectiveEvent {
  double entry = 0;
  double exit = 0;
  std::uint64_t bytes = 0;
  std::uint64_t index = 0;
  // Non-blocking: the program's own time between start and completion
  // (CollectiveStats::overlap); negative for a blocking call.
  double overlap = -1;
  int operation = 0;  // common/collective_kind.hpp's Collective
  int root = -1;
  bool after_valid_barrier = false;
};

struct SyncEvent {
  double start = 0;
  double end = 0;
  bool first = false;  // the sync at MPI_Init (else a resync)
};

// One communicator's timeline, as this process saw it.
struct CommTrace {
  CommTrace(std::string label, TraceWindow window)
      : name(std::move(label)), barriers(window), collectives(window), syncs(window) {}
  std::string name;
  CallWindow<BarrierEvent> barriers;
  CallWindow<CollectiveEvent> collectives;
  CallWindow<SyncEvent> syncs;
  std::uint64_t collective_calls = 0;  // the next collective call's index

  // Each event is drawn on the clock in force when it happened: a barrier's
  // is read then, but collective calls are converted when matched, maybe
  // after a resync moved the clock (by its error: 0.8 ms once, after a
  // start-up sync beside heavy load). The clocks a resync replaced, with the
  // local time they were replaced at, until no pending call can need them.
  void replaced(double local_time, const clock::GlobalClock& old) {
    // Bounded: without timed collectives nothing prunes it. A call older
    // than the 64 clocks kept (a minute of resyncs once the ramp is done)
    // is drawn on the oldest of them.
    if (eras.size() == kMaxEras) eras.erase(eras.begin());
    eras.push_back({local_time, old});
  }
  // The clock in force at `local_time`: a replaced one, or `current`.
  const clock::GlobalClock& clock_at(double local_time, const clock::GlobalClock& current) const {
    for (const Era& era : eras)
      if (local_time < era.until) return era.clock;
    return current;
  }
  // Calls from before `local_time` are all converted: older clocks go.
  void converted_until(double local_time) {
    std::erase_if(eras, [&](const Era& era) { return era.until <= local_time; });
  }

 private:
  static constexpr std::size_t kMaxEras = 64;
  struct Era {
    double until = 0;  // local time of the resync that replaced it
    clock::GlobalClock clock;
  };
  std::vector<Era> eras;
};

// Every communicator's timeline of one process. The protocols and the
// collective matching hold pointers into it; it outlives the communicators
// (a freed one is drawn all the same).
class RankTrace {
 public:
  explicit RankTrace(TraceWindow window) : window_(window) {}
  // Threads of MPI_THREAD_MULTIPLE may meet their communicators' first
  // barriers at once.
  CommTrace& comm(std::string name) {
    std::lock_guard lock(mutex_);
    comms_.push_back(std::make_unique<CommTrace>(std::move(name), window_));
    return *comms_.back();
  }
  const std::vector<std::unique_ptr<CommTrace>>& comms() const { return comms_; }
  // Events seen but not kept, of all communicators.
  std::uint64_t dropped() const;
  // Every communicator's events released (CallWindow::release), at the end.
  void release_events() {
    for (const auto& trace : comms_) {
      trace->barriers.release();
      trace->collectives.release();
      trace->syncs.release();
    }
  }
  // The world clock's sync at MPI_Init, drawn on the job's first communicator.
  std::optional<SyncEvent> first_sync;

 private:
  TraceWindow window_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<CommTrace>> comms_;
};

// Where this process's events go: its node (one process track each) and
// rank (one thread track each), and the global time that is 0 in the file.
struct Track {
  int node = 0;
  int rank = 0;
  double origin = 0;
};

// "MPI_Allreduce" for common/collective_kind.hpp's allreduce.
std::string mpi_name(int operation);

// This process's events as trace-event JSON objects, each preceded by ",\n"
// (the file's first event is rank 0's metadata). `node_name`: non-empty on
// the node's first rank, which names the node's process track.
std::string render_events(const RankTrace& trace, const Track& track, const std::string& node_name);

// The file around the events: what comes before them (ending with a
// metadata event naming the origin, so that every event after it starts
// with a comma) and after the last.
std::string file_head(double origin);
std::string file_tail(const std::string& window_text, int ranks, std::uint64_t dropped);

}  // namespace harmonize::trace
