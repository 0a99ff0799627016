#pragma once
// Turning ping-pong timestamps into one clock offset (pure, exact-tested).
#include <span>

#include "clock/error_bound.hpp"
#include "sync/fit.hpp"

namespace harmonize::sync {

// One ping-pong seen by the client: it sent at client_send (its clock), the
// reference stamped `reference` (its clock), the answer arrived at client_recv.
struct Exchange {
  double client_send = 0;
  double reference = 0;
  double client_recv = 0;
  double rtt() const noexcept { return client_recv - client_send; }
};

// Allowance added to every proven bound: two processes' reads of one clock
// are not perfectly ordered (conversion to double seconds rounds at 0.1 ns
// near an uptime of 1e6 s, and the test clocks' arithmetic rounds again).
inline constexpr double kClockReadAllowance = 1e-9;

// SKaMPI-Offset (paper 001 Alg. 7): the reference stamp lies between the two
// client stamps, so every exchange bounds the offset; the tightest bounds
// come from the fastest exchanges (minimum-RTT filtering, paper 003 sec. 3.1)
// and the estimate is the middle of the intersection. Returned as
// local - reference at the midpoint of the fastest exchange, with the
// half-width of the intersection as uncertainty. Its `bound` is that
// half-width plus what the offset can drift (`max_drift`) over the span of
// the exchanges, plus kClockReadAllowance.
FitPoint skampi_offset(std::span<const Exchange> exchanges,
                       double max_drift = clock::kMaxRelativeDrift);

// Mean-RTT-Offset (paper 001 Alg. 8): per exchange, offset = client_recv -
// reference - rtt/2 with a separately measured mean `rtt`; the median wins.
// Its uncertainty is unknown (0): nothing proves the path symmetric. Its
// `bound` is the distance from the estimate to the farther end of the
// interval SKaMPI proves from the same exchanges (widened as above).
FitPoint mean_rtt_offset(std::span<const Exchange> exchanges, double mean_rtt,
                         double max_drift = clock::kMaxRelativeDrift);

// Paper 003's early stop: true when the last `patience` exchanges did not
// lower the minimum RTT (patience <= 0: never).
bool min_rtt_stalled(std::span<const Exchange> exchanges, int patience);

}  // namespace harmonize::sync
