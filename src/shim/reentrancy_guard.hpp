#pragma once
// MPI calls the library makes itself (through PMPI) must never come back into
// its own entry points: a thread that is already inside the library passes
// straight through. Thread-local so that MPI_THREAD_MULTIPLE programs are safe.

namespace harmonize::shim {

#ifdef HARMONIZE_SMPI
// Simulated ranks take turns on one thread, and SMPI privatizes each rank's
// globals (its data segment under smpi/privatization:mmap, a copy of the
// program under dlopen): the per-thread state of the library is a plain global
// there, here and in request_tracking.hpp, timed_call.hpp, world_clock.cpp.
inline int t_depth = 0;
#else
inline thread_local int t_depth __attribute__((tls_model("initial-exec"))) = 0;
#endif

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
