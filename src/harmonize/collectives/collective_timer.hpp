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
// A non-blocking collective is recorded at its start call (so that a
// communicator's records keep the order its members started them in, the
// order matching pairs them in) and completed at the call that completes its
// request (MPI_Wait, MPI_Test, ...): the request's slot keeps the
// completion's stamps until the record is drained (docs/collectives.md
// "Non-blocking collectives").
//
// Pure: a communicator or a request is an id here (mpi/comm_id.hpp makes
// MPI handles ids), so that the timer is unit tested without MPI.
#include <atomic>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "clock/tick_stamp.hpp"
#include "common/collective_kind.hpp"
#include "harmonize/collectives/request_index.hpp"

namespace harmonize::collectives {

// A communicator as the timer tells them apart: the bits of its MPI handle
// (a pointer or an int, as the MPI library has it).
enum class CommId : std::uintptr_t {};

// How a call's record ended. Only a call that returned or completed is
// matched; the others keep their place among the communicator's calls
// (the i-th record of every member is the same call) and are counted.
enum class Ending : std::uint8_t {
  returned,          // a blocking call
  open,              // a non-blocking call started, not completed yet
  completed,         // ... completed (MPI_Wait, MPI_Test, ...)
  cancelled,         // ... completed after MPI_Cancel
  freed,             // ... freed (MPI_Request_free) before its completion was seen
  open_at_matching,  // ... still open when its communicator's calls were matched
  untracked,         // ... not followed: the start failed, or too many were open
};

constexpr bool is_complete(Ending ending) {
  return ending == Ending::returned || ending == Ending::completed;
}

struct TimedCall {
  double entry = 0;  // a TickStamp; the local time source's seconds once drained
  double exit = 0;   // non-blocking: the completing call's exit
  // Non-blocking, once completed: seconds from the start call's return to
  // the completing call's entry, the program's own work between them (the
  // overlap OSU measures).
  double overlap = 0;
  std::uint64_t bytes = 0;  // this process's count x type size (see bytes_of in the shim)
  CommId comm{};
  // Then: the delay this process left that barrier with (HARMONIZE_ARRIVAL).
  double delay = 0;
  std::int32_t root = -1;
  Collective operation{};
  // The first collective after a harmonized barrier on the same
  // communicator that this process left in time.
  bool after_barrier = false;
  // Called on an intercommunicator: counted where it was called, never
  // matched (its two groups are not one set of members to match over).
  bool inter = false;
  Ending ending = Ending::returned;
  std::uint32_t slot = RequestIndex::kNone;  // an open call's, in the timer
  // HARMONIZE_INTERLEAVE: the first collective after a barrier on the same
  // communicator carries that barrier's tag (its index there plus 1, which
  // names its side and block); 0 for every other call.
  std::uint32_t interleaved = 0;
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
  // Non-blocking calls followed at once; beyond, a call is not followed
  // (Ending::untracked).
  static constexpr std::size_t kMaxOpen = 1024;

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
        token_(null),
        side_token_(null) {
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

  // Non-blocking collectives, also the hot path. `call` (its entry stamped)
  // was started, the start call returned at `start_return` (a stamp) with
  // `request`; `started`: the start call succeeded.
  void start(TimedCall call, double start_return, RequestId request, bool started) noexcept;
  // Whether any started call is still open: a completing call that is given
  // requests while none is passes straight through.
  bool tracking() const noexcept { return open_.load(std::memory_order_relaxed) != 0; }
  // The open call whose request is `request`, RequestIndex::kNone if none.
  // Asked before the completing MPI call (which sets a completed request to
  // MPI_REQUEST_NULL).
  std::uint32_t find(RequestId request) const noexcept;
  // The call in `slot` completed in a call that the program entered at
  // `wait_entry` and left at `wait_exit` (stamps).
  void complete(std::uint32_t slot, double wait_entry, double wait_exit) noexcept;
  // Its request was freed (MPI_Request_free) before any completion: no
  // completion will be seen.
  void freed(std::uint32_t slot) noexcept;
  // Its request was cancelled (MPI_Cancel): its completion is not a call's.
  void cancelled(std::uint32_t slot) noexcept;

  // A barrier on `comm` ended; `in_time`: harmonized, and this process left
  // at the deadline (plus `delay`, HARMONIZE_ARRIVAL). The next collective
  // learns it.
  // `interleaved`: the barrier's tag (TimedCall::interleaved), 0 for none.
  void barrier_left(CommId comm, bool in_time, double delay = 0,
                    std::uint32_t interleaved = 0) noexcept;

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
  void add_locked(TimedCall& call) noexcept;
  void drain_locked();  // buffer -> pending_, stamps converted to seconds
  void drain_one_locked(TimedCall& call, const clock::TickStamp::Pair& pair, PendingCalls*& pending,
                        CommId& comm);
  void lose_buffer_locked() noexcept;  // out of memory: the buffered records are lost
  // A request completed or freed: the request is no longer followed.
  void seen_locked(std::uint32_t slot) noexcept;
  // A non-blocking call whose slot the record no longer follows.
  void let_go_locked(std::uint32_t slot) noexcept;
  // Taken or forgotten records: the open ones become Ending::open_at_matching,
  // their slots let go.
  void close_open_locked(std::vector<TimedCall>& calls) noexcept;
  // Fills `call` from its slot's completion (stamps converted between the
  // two pairs) and frees the slot.
  void finish_locked(TimedCall& call, const clock::TickStamp::Pair& pair) noexcept;

  const clock::TickStamp stamp_;
  const CollectiveSet timed_;
  const bool concurrent_;
  const CommId null_;
  clock::TickStamp::Pair last_pair_;  // taken at the last drain
  mutable std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
  std::vector<TimedCall> buffer_;
  CommId token_;  // the last barrier left in time, until a collective; else null_
  double token_delay_ = 0;
  CommId side_token_;  // the last barrier with a tag, until a collective; else null_
  std::uint32_t side_tag_ = 0;
  std::unordered_map<CommId, PendingCalls> pending_;
  std::uint64_t forgotten_ = 0;
  std::uint64_t forgotten_inter_ = 0;
  std::uint64_t spills_ = 0;

  // The open non-blocking calls: one slot each while its record or its
  // request is followed.
  struct OpenCall {
    RequestId request{};
    double start_return = 0;  // a stamp; the source's seconds once its record is drained
    double wait_entry = 0;    // stamps, once completed
    double wait_exit = 0;
    CommId comm{};  // once drained: pending_[comm].calls[index]
    std::size_t index = 0;
    Ending ending = Ending::open;  // completed, cancelled or freed once seen
    bool cancel = false;           // MPI_Cancel was called on its request
    bool drained = false;
    bool orphan = false;  // its record was taken or dropped: only the request is followed
  };
  std::atomic<std::size_t> open_{0};  // requests in requests_
  RequestIndex requests_{kMaxOpen};
  std::vector<OpenCall> slots_;            // allocated on the first start
  std::vector<std::uint32_t> free_slots_;  // reserved with slots_
  std::vector<std::uint32_t> seen_;        // drained slots completed since the last drain
};

}  // namespace harmonize::collectives
