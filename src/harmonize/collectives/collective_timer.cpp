#include "harmonize/collectives/collective_timer.hpp"

#include <algorithm>
#include <new>

namespace harmonize::collectives {

void CollectiveTimer::add(TimedCall call) noexcept {
  lock();
  call.after_barrier = token_ == call.comm && call.comm != null_;
  call.delay = call.after_barrier ? token_delay_ : 0.0;
  token_ = null_;  // any collective in between spoils the barrier's pattern
  if (buffer_.size() == kCapacity) {
    // Thousands of calls without a barrier: set them aside by communicator
    // (memory only, no communication), counted.
    spills_ += 1;
    try {
      drain_locked();
    } catch (const std::bad_alloc&) {
      // Lost on this member alone; the matching's checks (common count,
      // same operation) catch most of the misalignment that follows.
      buffer_.clear();
    }
  }
  buffer_.push_back(call);  // within the capacity reserved: never allocates
  unlock();
}

void CollectiveTimer::barrier_left(CommId comm, bool in_time, double delay) noexcept {
  lock();
  token_ = in_time ? comm : null_;
  token_delay_ = delay;
  unlock();
}

void CollectiveTimer::drain_locked() {
  // Every barrier drains: most find nothing, and a paired read costs ~150 ns.
  if (buffer_.empty()) return;
  // Benchmarks call one communicator's collectives in a row: one lookup per
  // run of them.
  PendingCalls* pending = nullptr;
  CommId comm = null_;
  // Every stamp in the buffer was taken since the last drain's pair.
  const clock::TickStamp::Pair pair = stamp_.pair();
  for (std::size_t i = 0; i < buffer_.size(); ++i) {
    TimedCall& call = buffer_[i];
    call.entry = stamp_.seconds_at(last_pair_, pair, call.entry);
    call.exit = stamp_.seconds_at(last_pair_, pair, call.exit);
    if (pending == nullptr || buffer_[i].comm != comm) {
      comm = buffer_[i].comm;
      pending = &pending_[comm];
    }
    pending->calls_seen += 1;
    pending->inter = pending->inter || call.inter;
    if (pending->calls.size() < kMaxPending) pending->calls.push_back(call);
  }
  last_pair_ = pair;
  buffer_.clear();
}

void CollectiveTimer::forget(CommId comm) noexcept {
  lock();
  try {
    drain_locked();
  } catch (...) {
    buffer_.clear();  // memory: what was buffered is lost on this member alone
  }
  const auto found = pending_.find(comm);
  if (found != pending_.end()) {
    (found->second.inter ? forgotten_inter_ : forgotten_) += found->second.calls_seen;
    pending_.erase(found);
  }
  unlock();
}

std::uint64_t CollectiveTimer::calls_seen(CommId comm) {
  lock();
  std::uint64_t seen = 0;
  try {
    drain_locked();
    const auto found = pending_.find(comm);
    seen = found == pending_.end() ? 0 : found->second.calls_seen;
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
  return seen;
}

PendingCalls CollectiveTimer::take(CommId comm) {
  lock();
  PendingCalls taken;
  try {
    drain_locked();
    const auto found = pending_.find(comm);
    if (found != pending_.end()) {
      taken = std::move(found->second);
      pending_.erase(found);
    }
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
  return taken;
}

std::vector<PendingCalls> CollectiveTimer::take_all() {
  lock();
  std::vector<PendingCalls> all;
  try {
    drain_locked();
    for (auto& [comm, pending] : pending_) all.push_back(std::move(pending));
    pending_.clear();
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
  return all;
}

}  // namespace harmonize::collectives
