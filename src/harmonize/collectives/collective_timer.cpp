#include "harmonize/collectives/collective_timer.hpp"

#include <algorithm>
#include <new>

namespace harmonize::collectives {

// One cache line: the hot path copies a record into the buffer per call.
static_assert(sizeof(TimedCall) <= 64);

void CollectiveTimer::add(TimedCall call) noexcept {
  lock();
  add_locked(call);
  unlock();
}

void CollectiveTimer::add_locked(TimedCall& call) noexcept {
  call.after_barrier = token_ == call.comm && call.comm != null_;
  call.delay = call.after_barrier ? token_delay_ : 0.0;
  call.interleaved = side_token_ == call.comm && call.comm != null_ ? side_tag_ : 0;
  token_ = side_token_ = null_;  // any collective in between spoils the barrier's pattern
  if (buffer_.size() == kCapacity) {
    // Thousands of calls without a barrier: set them aside by communicator
    // (memory only, no communication), counted.
    spills_ += 1;
    try {
      drain_locked();
    } catch (const std::bad_alloc&) {
      // Lost on this member alone; the matching's checks (common count,
      // same operation) catch most of the misalignment that follows.
      lose_buffer_locked();
    }
  }
  buffer_.push_back(call);  // within the capacity reserved: never allocates
}

void CollectiveTimer::start(TimedCall call, double start_return, RequestId request,
                            bool started) noexcept {
  lock();
  call.ending = Ending::untracked;
  if (started && slots_.empty()) {
    try {
      slots_.resize(kMaxOpen);
      free_slots_.reserve(kMaxOpen);
      seen_.reserve(kMaxOpen);
      for (std::size_t i = kMaxOpen; i > 0; --i)
        free_slots_.push_back(static_cast<std::uint32_t>(i - 1));
    } catch (const std::bad_alloc&) {
      slots_.clear();
      free_slots_.clear();
    }
  }
  // A handle MPI gave out again before the thread that completed its last
  // request told the timer (MPI_THREAD_MULTIPLE): the old entry goes; that
  // thread ends its call through the slot it holds.
  if (const std::uint32_t stale = started ? requests_.find(request) : RequestIndex::kNone;
      stale != RequestIndex::kNone)
    requests_.erase(request, stale);
  if (started && !free_slots_.empty() && requests_.insert(request, free_slots_.back())) {
    call.slot = free_slots_.back();
    free_slots_.pop_back();
    slots_[call.slot] = {.request = request, .start_return = start_return};
    call.ending = Ending::open;
    open_.fetch_add(1, std::memory_order_relaxed);
  }
  add_locked(call);
  unlock();
}

std::uint32_t CollectiveTimer::find(RequestId request) const noexcept {
  lock();
  const std::uint32_t slot = requests_.find(request);
  unlock();
  return slot;
}

void CollectiveTimer::complete(std::uint32_t slot, double wait_entry, double wait_exit) noexcept {
  lock();
  OpenCall& call = slots_[slot];
  call.wait_entry = wait_entry;
  call.wait_exit = wait_exit;
  call.ending = call.cancel ? Ending::cancelled : Ending::completed;
  seen_locked(slot);
  unlock();
}

void CollectiveTimer::freed(std::uint32_t slot) noexcept {
  lock();
  slots_[slot].ending = Ending::freed;
  seen_locked(slot);
  unlock();
}

void CollectiveTimer::cancelled(std::uint32_t slot) noexcept {
  lock();
  slots_[slot].cancel = true;
  unlock();
}

void CollectiveTimer::seen_locked(std::uint32_t slot) noexcept {
  // The request is done with (its handle may come back at once as another's).
  requests_.erase(slots_[slot].request, slot);
  open_.fetch_sub(1, std::memory_order_relaxed);
  OpenCall& call = slots_[slot];
  if (call.orphan) {
    free_slots_.push_back(slot);
  } else if (call.drained) {
    seen_.push_back(slot);  // at most one entry per slot: within the capacity reserved
  }
  // Else the drain of its record finds it completed.
}

void CollectiveTimer::lose_buffer_locked() noexcept {
  for (const TimedCall& lost : buffer_)
    if (lost.slot != RequestIndex::kNone) let_go_locked(lost.slot);
  buffer_.clear();
}

void CollectiveTimer::let_go_locked(std::uint32_t slot) noexcept {
  OpenCall& call = slots_[slot];
  if (call.ending == Ending::open) {
    call.orphan = true;  // the request's completion frees the slot
  } else {
    free_slots_.push_back(slot);
  }
}

void CollectiveTimer::close_open_locked(std::vector<TimedCall>& calls) noexcept {
  if (slots_.empty()) return;
  for (TimedCall& call : calls) {
    if (call.ending != Ending::open) continue;
    call.ending = Ending::open_at_matching;
    let_go_locked(call.slot);
    call.slot = RequestIndex::kNone;
  }
}

void CollectiveTimer::finish_locked(TimedCall& call, const clock::TickStamp::Pair& pair) noexcept {
  const OpenCall& open = slots_[call.slot];
  call.ending = open.ending;
  if (open.ending != Ending::freed) {
    // Its start's return was converted when its record was drained.
    call.overlap = stamp_.seconds_at(last_pair_, pair, open.wait_entry) - open.start_return;
    call.exit = stamp_.seconds_at(last_pair_, pair, open.wait_exit);
  }
  free_slots_.push_back(call.slot);
  call.slot = RequestIndex::kNone;
}

void CollectiveTimer::barrier_left(CommId comm, bool in_time, double delay,
                                   std::uint32_t interleaved) noexcept {
  lock();
  token_ = in_time ? comm : null_;
  token_delay_ = delay;
  side_token_ = interleaved != 0 ? comm : null_;
  side_tag_ = interleaved;
  unlock();
}

void CollectiveTimer::drain_locked() {
  // Every barrier drains: most find nothing, and a paired read costs ~150 ns.
  if (buffer_.empty() && seen_.empty()) return;
  // Every stamp in the buffer, and every completion seen, was taken since
  // the last drain's pair.
  const clock::TickStamp::Pair pair = stamp_.pair();
  // Non-blocking calls drained while open, completed since.
  for (const std::uint32_t slot : seen_) {
    const OpenCall& open = slots_[slot];
    // Still pending: a record taken or dropped lets its slot go (orphan).
    finish_locked(pending_.find(open.comm)->second.calls[open.index], pair);
  }
  seen_.clear();
  // Benchmarks call one communicator's collectives in a row: one lookup per
  // run of them.
  PendingCalls* pending = nullptr;
  CommId comm = null_;
  std::size_t i = 0;
  try {
    for (; i < buffer_.size(); ++i) drain_one_locked(buffer_[i], pair, pending, comm);
  } catch (...) {
    // Out of memory: the records drained are no longer the buffer's.
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(i));
    throw;
  }
  last_pair_ = pair;
  buffer_.clear();
}

void CollectiveTimer::drain_one_locked(TimedCall& call, const clock::TickStamp::Pair& pair,
                                       PendingCalls*& pending, CommId& comm) {
  call.entry = stamp_.seconds_at(last_pair_, pair, call.entry);
  call.exit = stamp_.seconds_at(last_pair_, pair, call.exit);
  if (pending == nullptr || call.comm != comm) {
    pending = &pending_[call.comm];
    comm = call.comm;
  }
  pending->calls_seen += 1;
  pending->inter = pending->inter || call.inter;
  const bool kept = pending->calls.size() < kMaxPending;
  if (call.slot != RequestIndex::kNone) {
    OpenCall& open = slots_[call.slot];
    open.start_return = stamp_.seconds_at(last_pair_, pair, open.start_return);
    if (open.ending != Ending::open) {
      finish_locked(call, pair);
    } else if (kept) {
      open.drained = true;
      open.comm = comm;
      open.index = pending->calls.size();
    } else {
      let_go_locked(call.slot);
    }
  }
  if (kept) pending->calls.push_back(call);
}

void CollectiveTimer::forget(CommId comm) noexcept {
  lock();
  try {
    drain_locked();
  } catch (...) {
    lose_buffer_locked();  // memory: what was buffered is lost on this member alone
  }
  const auto found = pending_.find(comm);
  if (found != pending_.end()) {
    (found->second.inter ? forgotten_inter_ : forgotten_) += found->second.calls_seen;
    close_open_locked(found->second.calls);
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
      close_open_locked(taken.calls);
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
    for (auto& [comm, pending] : pending_) {
      close_open_locked(pending.calls);
      all.push_back(std::move(pending));
    }
    pending_.clear();
  } catch (...) {
    unlock();
    throw;
  }
  unlock();
  return all;
}

}  // namespace harmonize::collectives
