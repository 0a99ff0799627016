#include "harmonize/protocol/world_clock.hpp"

#include <optional>
#include <utility>

#include "common/per_thread.hpp"
#include "harmonize/logic/barrier_decision.hpp"

namespace harmonize::protocol {

WorldClock::WorldClock(const clock::TimeSource& local)
    : current_{clock::GlobalClock(local, {}), 0, 0, 0} {}

WorldClock::WorldClock(const clock::TimeSource& local, std::unique_ptr<sync::ClockSync> sync)
    : sync_(std::move(sync)), current_{clock::GlobalClock(local, {}), 0, 0, 0} {
  // One sync here cannot know the drift; the resync ramp
  // (logic::resync_interval) refines it during the first second of barriers.
  std::lock_guard lock(mutex_);
  adopt(sync_->synchronize());
  initial_seconds_ = sync_->last_report().seconds;
}

void WorldClock::adopt(const clock::GlobalClock& clock) {
  current_.clock = clock;
  current_.synced_at = clock.now();
  current_.version += 1;
  current_.syncs += 1;
  total_seconds_ += sync_->last_report().seconds;
  published_.store(current_.version, std::memory_order_release);
}

double WorldClock::now(double* bound) const {
  struct Cached {
    const WorldClock* owner = nullptr;
    std::uint64_t version = 0;
    std::optional<clock::GlobalClock> clock;
  };
  HARMONIZE_PER_THREAD_STATIC Cached cached;
  const std::uint64_t version = published_.load(std::memory_order_acquire);
  if (cached.owner != this || cached.version != version || !cached.clock) {
    Snapshot snap = snapshot();
    cached.owner = this;
    cached.version = snap.version;
    cached.clock.emplace(std::move(snap.clock));
  }
  const double t = cached.clock->now();
  if (bound != nullptr) *bound = cached.clock->error_bound_at(t);
  return t;
}

WorldClock::Snapshot WorldClock::snapshot() const {
  std::lock_guard lock(mutex_);
  return current_;
}

WorldClock::Snapshot WorldClock::resync() {
  std::lock_guard lock(mutex_);
  const clock::GlobalClock candidate = sync_->synchronize();
  const double now = candidate.now();
  if (logic::keeps_old_clock(current_.clock.error_bound_at(now), candidate.error_bound_at(now))) {
    sync_->discard_last();
    refused_resyncs_ += 1;
    total_seconds_ += sync_->last_report().seconds;
    Snapshot kept = current_;
    kept.kept_old = true;
    return kept;
  }
  adopt(candidate);
  return current_;
}

void WorldClock::count_refused() {
  std::lock_guard lock(mutex_);
  refused_resyncs_ += 1;
}

int WorldClock::refused_resyncs() const {
  std::lock_guard lock(mutex_);
  return refused_resyncs_;
}

double WorldClock::total_seconds() const {
  std::lock_guard lock(mutex_);
  return total_seconds_;
}

int WorldClock::syncs() const {
  std::lock_guard lock(mutex_);
  return current_.syncs;
}

}  // namespace harmonize::protocol
