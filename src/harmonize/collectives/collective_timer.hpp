#pragma once
// The hot path of collective timing (docs/collectives.md): an intercepted
// collective reads the local time source at entry and exit and appends one
// record to a fixed buffer; nothing else happens inside a call the program
// is timing. Records are sorted by communicator and matched across members
// later, at the start of a barrier on that communicator (mpi/timed_collectives.hpp), in
// MPI_Comm_free, or at MPI_Finalize. A full buffer is set aside inside a call
// only when it overflows (counted as a spill: moving records between
// buffers, still no communication).
//
// Pure: a communicator is an id here (mpi/comm_id.hpp makes
// MPI handles ids), so that the timer is unit tested without MPI.
#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "clock/tick_stamp.hpp"
#include "common/collective_kind.hpp"

namespace harmonize::collectives {

// A communicator as the timer tells them apart: the bits of its MPI handle
// (a pointer or an int, as the MPI library has it).
enum class CommId : std::uintptr_t {};

struct TimedCall {
  double entry = 0;  // a TickStamp; the local time source's seconds once drained
  double exit = 0;
  std::uint64_t bytes = 0;  // this process's count x type size (see bytes_of in the shim)
  CommId comm{};
  std::int32_t root = -1;
  Collective operation{};
  // The first collective after a harmonized barrier on the same
  // communicator that this process left in time.
  bool after_barrier = false;
  // Then: the delay this process left that barrier with (HARMONIZE_ARRIVAL).
  double delay = 0;
  // Called on an intercommunicator: counted where it was called, never
  // matched (its two groups are not one set of members to match over).
  bool inter = false;
};

// The calls of one communicator waiting to be matched.
struct PendingCalls {
  std::vector<TimedCall> calls;
  std::uint64_t calls_seen = 0;  // recorded or not: the same on every member
  bool inter = false;            // an intercommunicator's (TimedCall::inter)
};

class CollectiveTimer {
 public:
  static constexpr std::size_t kCapacity = 4096;
  // Records kept per communicator between two matchings; calls beyond are
  // counted (as unmatched), not kept.
  static constexpr std::size_t kMaxPending = 1 << 16;

  // `stamp`: how calls are stamped and the stamps converted (the invariant
  // TSC where the CPU has one). `concurrent`: MPI_THREAD_MULTIPLE, where
  // calls may come from several threads at once (mpi4py's default);
  // otherwise MPI serializes them. `null`: MPI_COMM_NULL's id, on which no
  // call follows a barrier.
  CollectiveTimer(clock::TickStamp stamp, CollectiveSet timed, bool concurrent, CommId null)
      : stamp_(stamp),
        timed_(timed),
        concurrent_(concurrent),
        null_(null),
        last_pair_(stamp_.pair()),
        token_(null) {
    // Reserved, not filled: pages are touched only as calls come (a job of
    // barriers alone never does; 256 KB per process otherwise, which
    // thousands of simulated ranks in one process feel).
    buffer_.reserve(kCapacity);
  }
  CollectiveTimer(const CollectiveTimer&) = delete;
  CollectiveTimer& operator=(const CollectiveTimer&) = delete;

  bool times(Collective operation) const { return (timed_ & bit_of(operation)) != 0; }
  double now() const noexcept { return stamp_.stamp(); }

  // The hot path. Any thread (MPI_THREAD_MULTIPLE: mpi4py's default).
  void add(TimedCall call) noexcept;

  // A barrier on `comm` ended; `in_time`: harmonized, and this process left
  // at the deadline (plus `delay`, HARMONIZE_ARRIVAL). The next collective
  // learns it.
  void barrier_left(CommId comm, bool in_time, double delay = 0) noexcept;

  // Off the hot path (allocates; throws std::bad_alloc).
  // How many calls `comm` has seen since its last take().
  std::uint64_t calls_seen(CommId comm);
  // `comm`'s pending calls, which it forgets.
  PendingCalls take(CommId comm);
  // Every communicator with pending calls, forgotten (MPI_Finalize).
  std::vector<PendingCalls> take_all();
  // `comm` is being freed (MPI_Comm_free): its calls are forgotten, counted,
  // since its handle may come back as another communicator's, whose calls
  // must not be matched with these.
  void forget(CommId comm) noexcept;
  // Calls of communicators freed before they were matched, per process:
  // of intracommunicators, and of intercommunicators (never matched).
  std::uint64_t forgotten() const { return forgotten_; }
  std::uint64_t forgotten_inter() const { return forgotten_inter_; }
  // Times a call found the buffer full and set it aside, per process.
  std::uint64_t spills() const { return spills_; }

 private:
  void lock() const noexcept {
    if (!concurrent_) return;
    while (busy_.test_and_set(std::memory_order_acquire)) {
    }
  }
  void unlock() const noexcept {
    if (concurrent_) busy_.clear(std::memory_order_release);
  }
  void drain_locked();  // buffer -> pending_, stamps converted to seconds

  const clock::TickStamp stamp_;
  const CollectiveSet timed_;
  const bool concurrent_;
  const CommId null_;
  clock::TickStamp::Pair last_pair_;  // taken at the last drain
  mutable std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::vector<TimedCall> buffer_;
  CommId token_;  // the last barrier left in time, until a collective; else null_
  double token_delay_ = 0;
  std::unordered_map<CommId, PendingCalls> pending_;
  std::uint64_t forgotten_ = 0;
  std::uint64_t forgotten_inter_ = 0;
  std::uint64_t spills_ = 0;
};

}  // namespace harmonize::collectives
