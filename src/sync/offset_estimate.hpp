#pragma once
// Turning ping-pong timestamps into one clock offset (pure, exact-tested).
#include <span>

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

// SKaMPI-Offset (paper 001 Alg. 7): the reference stamp lies between the two
// client stamps, so every exchange bounds the offset; the tightest bounds
// come from the fastest exchanges (minimum-RTT filtering, paper 003 sec. 3.1)
// and the estimate is the middle of the intersection. Returned as
// local - reference at the midpoint of the fastest exchange, with the
// half-width of the intersection as uncertainty.
FitPoint skampi_offset(std::span<const Exchange> exchanges);

// Mean-RTT-Offset (paper 001 Alg. 8): per exchange, offset = client_recv -
// reference - rtt/2 with a separately measured mean `rtt`; the median wins.
// Its uncertainty is unknown (0).
FitPoint mean_rtt_offset(std::span<const Exchange> exchanges, double mean_rtt);

// Paper 003's early stop: true when the last `patience` exchanges did not
// lower the minimum RTT (patience <= 0: never).
bool min_rtt_stalled(std::span<const Exchange> exchanges, int patience);

}  // namespace harmonize::sync
