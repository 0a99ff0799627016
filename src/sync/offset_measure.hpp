#pragma once
// The ping-pong protocol between a client and its reference over a Transport.
#include "clock/global_clock.hpp"
#include "sync/fit.hpp"
#include "sync/settings.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// The client drives: every ping tells the reference what to do next, so the
// reference needs no settings and the two never disagree on how many
// exchanges (early stop) or measurements (fit points) there are. A pong is
// the reference's stamp; the first of each measurement also carries the
// reference clock's error bound (clock::ErrorBound).
FitPoint measure_offset_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, const Settings& settings,
                                  double mean_rtt);

// The same, with what the reference said about its clock: its bound, the
// proven and the likely one, at the latest of its stamps (its clock is at
// most this far from the world reference during the measurement), the whole
// bound, and its clock as one model of its time source (ModelStack::composite).
struct OffsetMeasurement {
  FitPoint point;
  double reference_bound = 0;
  double reference_likely = 0;
  clock::ErrorBound reference_error;
  clock::LinearModel reference_model;
};
OffsetMeasurement measure_offset_with_bound(Transport& transport, int reference,
                                            const clock::GlobalClock& clk, const Settings& settings,
                                            double mean_rtt);
// Ends the reference's serve loop.
void release_reference(Transport& transport, int reference);
// Answers pings with clk.now() and clk's error bound until the client calls
// release_reference.
void serve_as_reference(Transport& transport, int client, const clock::GlobalClock& clk);

// Mean round-trip time over `pingpongs` exchanges (for Mean-RTT-Offset); the
// reference serves it with serve_offset_as_reference.
double measure_mean_rtt_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, int pingpongs);

}  // namespace harmonize::sync
