#pragma once
// HARMONIZE_SYNC=none: clocks that are global already (disciplined by PTP,
// or a hardware global clock) are used as they are, and verified: Check-
// Global-Clock (paper 001, Alg. 6; sync/clock_check.hpp) measures how far
// sampled ranks' clocks are from rank 0's at every "sync" (MPI_Init, each
// resync), and that measurement is the error bound. MPI_Finalize checks it
// once more (harmonize/session/end_check.hpp). Transport-agnostic: unit tested on the
// simulator.
#include <array>

#include "clock/global_clock.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// Beyond this, clocks taken as global are not (the warning names the ranks):
// a PTP-disciplined cluster keeps its nodes well within a microsecond.
inline constexpr double kGivenClockTolerance = 1e-6;

// What the last check found, alike on every member.
struct GivenClockReport {
  static constexpr int kNamed = 8;  // ranks beyond the tolerance named, at most
  bool active = false;
  int checked = 0;          // ranks measured against rank 0
  double bound = 0;         // the largest |offset| + uncertainty: every member's bound but rank 0's
  double worst_offset = 0;  // the offset measured farthest from rank 0's clock (seconds)
  int worst_rank = -1;      // in the group; -1 when nobody was checked
  int beyond = 0;           // checked ranks provably beyond kGivenClockTolerance
  std::array<int, kNamed> beyond_ranks{};  // the first of them (in the group)
};

// Collective over `group`: `base` checked as it is, and returned with the
// measured bound (0 on rank 0, the reference); `report` filled on every
// member. Throws what the transport throws.
clock::GlobalClock check_given_clock(Transport& group, const clock::GlobalClock& base,
                                     GivenClockReport& report);

}  // namespace harmonize::sync
