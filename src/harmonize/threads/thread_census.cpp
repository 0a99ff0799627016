#include "harmonize/threads/thread_census.hpp"

#include <algorithm>
#include <cstdio>

namespace harmonize::threads {

void ThreadCensus::harmonized_started() {
  if (!counting_) return;
  const int now = inside_.fetch_add(1, std::memory_order_relaxed) + 1;
  int peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}

void ThreadCensus::contribute(report::JobReport& job, const logic::JobRecords& records) const {
  job.concurrent_harmonized_barriers =
      report::ThreadsInfo{records.threaded_processes, std::max(peak(), 0)};
}

void ThreadCensus::say_at_end(const report::JobReport& job) const {
  const std::uint64_t processes =
      job.concurrent_harmonized_barriers ? job.concurrent_harmonized_barriers->processes : 0;
  if (processes == 0) return;
  std::fprintf(stderr,
               "harmonize: warning: harmonized barriers ran in several threads at once in %llu "
               "process%s (MPI_THREAD_MULTIPLE): each thread spins "
               "towards its deadline and MPI polls in each one's allreduce, so with more busy "
               "threads than cores a call waits for the scheduler's tick (milliseconds) and is "
               "flagged; call harmonized barriers from one thread per process (README, "
               "\"Threads\")\n",
               static_cast<unsigned long long>(processes), processes == 1 ? "" : "es");
}

}  // namespace harmonize::threads
