#pragma once
// MPI_THREAD_MULTIPLE as a feature of the session: how many threads of this
// process are inside a harmonized barrier at once, and the most there ever
// were. Several threads each spin towards a deadline while MPI polls inside
// each one's allreduce: with more busy threads than cores a call waits for
// the scheduler's tick, so the report says so (README, "Threads"). Two
// relaxed atomics per call, none without MPI_THREAD_MULTIPLE.
#include <atomic>
#include <memory>

#include "harmonize/feature/feature.hpp"

namespace harmonize::threads {

class ThreadCensus final : public feature::Feature {
 public:
  static std::unique_ptr<feature::Feature> make(const feature::JobContext& job) {
    return std::make_unique<ThreadCensus>(job.thread_multiple);
  }
  explicit ThreadCensus(bool counting) : counting_(counting) {}

  void harmonized_started() override;
  void harmonized_ended() override {
    if (counting_) inside_.fetch_sub(1, std::memory_order_relaxed);
  }
  int peak() const { return peak_.load(std::memory_order_relaxed); }

  void contribute_own(logic::ProcessContribution& own) const override { own.threaded = peak() > 1; }
  void contribute(report::JobReport& job, const logic::JobRecords& records) const override;
  // A limit, not a fault of the run: said even with HARMONIZE_QUIET=1.
  void say_at_end(const report::JobReport& job) const override;

 private:
  bool counting_;
  std::atomic<int> inside_{0};
  std::atomic<int> peak_{0};
};

}  // namespace harmonize::threads
