#pragma once
// MPI_THREAD_MULTIPLE: how many threads of this process are inside a
// harmonized barrier at once, and the most there ever were. Several threads
// each spin towards a deadline while MPI polls inside each one's allreduce:
// with more busy threads than cores a call waits for the scheduler's tick,
// so the report says so (README, "Threads"). Two relaxed atomics per call.
#include <atomic>

namespace harmonize {

class ThreadCensus {
 public:
  // Counts the calling thread in for its lifetime.
  class Inside {
   public:
    explicit Inside(ThreadCensus& census) : census_(census) {
      const int now = census_.inside_.fetch_add(1, std::memory_order_relaxed) + 1;
      int peak = census_.peak_.load(std::memory_order_relaxed);
      while (now > peak &&
             !census_.peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
      }
    }
    ~Inside() { census_.inside_.fetch_sub(1, std::memory_order_relaxed); }
    Inside(const Inside&) = delete;
    Inside& operator=(const Inside&) = delete;

   private:
    ThreadCensus& census_;
  };

  int peak() const { return peak_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int> inside_{0};
  std::atomic<int> peak_{0};
};

}  // namespace harmonize
