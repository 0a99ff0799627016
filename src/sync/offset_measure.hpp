#pragma once
// The ping-pong protocol between a client and its reference over a Transport.
#include "clock/global_clock.hpp"
#include "sync/fit.hpp"
#include "sync/settings.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// The client drives: every ping tells the reference what to do next, so the
// reference needs no settings and the two never disagree on how many
// exchanges (early stop) or measurements (fit points) there are.
FitPoint measure_offset_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, const Settings& settings,
                                  double mean_rtt);
// Ends the reference's serve loop.
void release_reference(Transport& transport, int reference);
// Answers pings with clk.now() until the client calls release_reference.
void serve_as_reference(Transport& transport, int client, const clock::GlobalClock& clk);

// Mean round-trip time over `pingpongs` exchanges (for Mean-RTT-Offset); the
// reference serves it with serve_offset_as_reference.
double measure_mean_rtt_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, int pingpongs);

}  // namespace harmonize::sync
