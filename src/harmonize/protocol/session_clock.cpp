#include "harmonize/protocol/session_clock.hpp"

#include <algorithm>

#include "harmonize/logic/barrier_decision.hpp"

namespace harmonize::protocol {

SessionClock::SessionClock(WorldClock& world, bool is_world, double configured_interval,
                           SyncFactory factory)
    : world_(world),
      is_world_(is_world),
      configured_interval_(configured_interval),
      factory_(std::move(factory)),
      clock_(world.snapshot().clock) {
  if (!world.exists()) return;  // mode off: a first sync among the members comes first
  // The clock is as old as the world's last sync, not as the communicator.
  const WorldClock::Snapshot world_now = world.snapshot();
  clock_ = world_now.clock;
  world_version_ = world_now.version;
  last_sync_ = world_now.synced_at;
  expires_at_ = last_sync_ + logic::resync_interval(world_now.syncs, configured_interval_);
  ready_ = true;
}

void SessionClock::mark_synced(int syncs) {
  last_sync_ = clock_.now();
  // Computed once per sync, not per call: the hot path compares one number.
  expires_at_ = last_sync_ + logic::resync_interval(syncs, configured_interval_);
  ready_ = true;
}

void SessionClock::resync() {
  if (is_world_ && world_.exists()) {
    const WorldClock::Snapshot fresh = world_.resync();
    clock_ = fresh.clock;
    world_version_ = fresh.version;
    after_resync(fresh.kept_old, fresh.syncs);
    return;
  }
  const WorldClock::Snapshot base = world_.snapshot();
  if (!own_) {
    own_ = factory_(base.clock);
  } else if (base.version != world_version_) {
    own_->rebase(base.clock);
  }
  world_version_ = base.version;  // of own_'s base, whichever clock is kept
  const clock::GlobalClock candidate = own_->synchronize();
  const double now = candidate.now();
  // The world's rule (WorldClock::resync): a sync disturbed on this
  // communicator must not replace a good clock either.
  const bool kept_old =
      ready_ && logic::keeps_old_clock(clock_.error_bound_at(now), candidate.error_bound_at(now));
  if (kept_old) {
    own_->discard_last();
    world_.count_refused();
  } else {
    clock_ = candidate;
  }
  after_resync(kept_old, own_->last_report().syncs);
}

void SessionClock::after_resync(bool kept_old, int syncs) {
  // A refused resync is tried again soon, backing off along the ramp
  // (10, 30, 90 ms ...): the clock kept ages, its bound grows, and a
  // machine that disturbs every sync must not get one every 10 ms.
  refused_in_a_row_ = kept_old ? refused_in_a_row_ + 1 : 0;
  mark_synced(kept_old ? std::min(refused_in_a_row_, syncs) : syncs);
}

}  // namespace harmonize::protocol
