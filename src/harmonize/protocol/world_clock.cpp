#include "harmonize/protocol/world_clock.hpp"

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
}

WorldClock::Snapshot WorldClock::snapshot() const {
  std::lock_guard lock(mutex_);
  return current_;
}

WorldClock::Snapshot WorldClock::resync() {
  std::lock_guard lock(mutex_);
  adopt(sync_->synchronize());
  return current_;
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
