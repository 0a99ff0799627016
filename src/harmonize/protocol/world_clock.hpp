#pragma once
// The world clock: synchronized once over every process at MPI_Init,
// resynchronized by MPI_COMM_WORLD's barriers, read by every other
// communicator's clock as the base it refines. Versioned and thread-safe
// (another thread's communicator may read it during a resync).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>

#include "clock/global_clock.hpp"
#include "sync/clock_sync.hpp"

namespace harmonize::protocol {

class WorldClock {
 public:
  struct Snapshot {
    clock::GlobalClock clock;
    std::uint64_t version = 0;  // 0: no world clock (the local clock)
    double synced_at = 0;       // on `clock`
    int syncs = 0;
    // The last resync's clock was much worse than this one, which was kept
    // (logic::keeps_old_clock): retry soon.
    bool kept_old = false;
  };

  // Without a sync (mode off): snapshots are the local clock, version 0.
  explicit WorldClock(const clock::TimeSource& local);
  // Collective over the world: the first sync.
  WorldClock(const clock::TimeSource& local, std::unique_ptr<sync::ClockSync> sync);

  bool exists() const { return sync_ != nullptr; }
  Snapshot snapshot() const;
  // The clock's reading now and its proven error bound there, from any
  // thread, with no lock on the way while no resync intervenes (the path of
  // the program's MPI_Wtime): each thread keeps a copy of the clock and
  // renews it when a resync has published a new one.
  double now(double* bound) const;
  // Collective over the world. Throws what the sync throws.
  Snapshot resync();

  double initial_seconds() const { return initial_seconds_; }
  double total_seconds() const;
  // Resyncs refused as much worse than the clock kept, on this process: the
  // world's, and those of other communicators' clocks (count_refused()).
  int refused_resyncs() const;
  void count_refused();
  int syncs() const;
  // Of the world's sync (scheme used, nodes, levels); only when exists().
  const sync::SyncReport& last_report() const { return sync_->last_report(); }

 private:
  void adopt(const clock::GlobalClock& clock);  // under mutex_

  std::unique_ptr<sync::ClockSync> sync_;
  mutable std::mutex mutex_;
  Snapshot current_;
  std::atomic<std::uint64_t> published_{0};  // current_.version, readable without mutex_
  double initial_seconds_ = 0;
  double total_seconds_ = 0;
  int refused_resyncs_ = 0;
};

}  // namespace harmonize::protocol
