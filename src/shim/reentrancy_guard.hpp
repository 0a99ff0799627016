#pragma once
// MPI calls the library makes itself (through PMPI) must never come back into
// its own entry points: a thread that is already inside the library passes
// straight through. Thread-local so that MPI_THREAD_MULTIPLE programs are safe.

#include "common/per_thread.hpp"

namespace harmonize::shim {

HARMONIZE_PER_THREAD inline int t_depth = 0;

class ReentrancyGuard {
 public:
  ReentrancyGuard() noexcept : outermost_(t_depth++ == 0) {}
  ~ReentrancyGuard() { --t_depth; }
  ReentrancyGuard(const ReentrancyGuard&) = delete;
  ReentrancyGuard& operator=(const ReentrancyGuard&) = delete;
  bool outermost() const noexcept { return outermost_; }

 private:
  bool outermost_;
};

}  // namespace harmonize::shim
