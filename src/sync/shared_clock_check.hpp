#pragma once
// Trust but verify: H2HCA and H3HCA copy the group leader's models to the
// rest of a node (socket) because all of them are assumed to read one clock.
// Time namespaces (containers), TSCs of unsynchronized sockets and a
// per-process MPI_Wtime break that silently: the copied models are then off
// by whatever the processes' clocks differ by (milliseconds and more).
//
// The check is a proof, not a statistic: after ClockPropSync the members of
// a group carry identical models, so on one shared source their global
// clocks are one monotone function of one clock, and the reference's stamp
// of a ping-pong lies between the client's two stamps. The interval
// SKaMPI-Offset proves for the offset then always contains 0, however loaded
// the machine (load only widens it). An interval that misses 0 by more than
// kSharedClockTolerance proves the clocks are not shared.
#include "clock/global_clock.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// Beyond the few nanoseconds by which two reads of one clock can be out of
// order (double rounding near an uptime of 1e6 s, the test clocks'
// arithmetic): 100x that, and still 10-100x below the error a copied model
// of a clock that is not shared leaves after a second of typical drift.
inline constexpr double kSharedClockTolerance = 100e-9;
// Exchanges per measurement. One round trip bounds the offset to its RTT
// (~1 us over shared memory), far below the milliseconds this is meant to
// find. More are not worth it: with a CPU hog beside 2 ranks on 2 cores, a
// message to a descheduled peer waits for a time slice, so the check costs
// ~4 ms per sequential message there (measured: 3 exchanges made a 2-rank
// sync 16-48 ms long in half the runs, 1 exchange 16 ms).
inline constexpr int kSharedClockPingpongs = 1;
// A measurement less certain than this (every exchange caught in a time
// slice of a crowded core) proves too little. At a group's first check (the
// warm-up at MPI_Init) it is repeated, up to kSharedClockAttempts
// measurements in all; any one that misses 0 is proof. Later checks measure
// once: on a loaded machine a round trip can cost a time slice (ms), and a
// shared clock would pay the repeats in every sync; an inconclusive check
// is simply made again at the next sync. Over TCP loopback (virtual nodes)
// one measurement is certain to ~15 us.
inline constexpr double kSharedClockConclusive = 50e-6;
inline constexpr int kSharedClockAttempts = 4;
// A clock that was shared stays shared (a time namespace or a per-process
// clock shows at the first sync; a TSC calibration drifts by ~0.1 ppm): the
// first kSharedClockFirstChecks syncs of a group are checked, then every
// kSharedClockCheckEvery-th. On one node the sync is a broadcast, and a
// round trip per sync made it 40-70 % longer (14-18 us -> 20-31 us).
inline constexpr int kSharedClockFirstChecks = 3;
inline constexpr int kSharedClockCheckEvery = 8;
inline bool shared_clock_check_due(int shared_syncs) {
  return shared_syncs < kSharedClockFirstChecks || shared_syncs % kSharedClockCheckEvery == 0;
}

// Collective over `group`, whose members all carry the models of rank 0
// (after run_clock_prop). Every member but rank 0 measures its `clk`
// against its parent in a binomial tree over the group (ceil(log2 size)
// rounds of disjoint pairs). Returns, on every member, the largest
// disagreement found: how far the proven interval of a pair's offset misses
// 0 (0 when every interval contains it). `attempts`: measurements per pair
// at most while they are not conclusive. A member further down the tree is
// compared with its leader through its ancestors, so a member that
// disagrees with the leader by D makes some pair disagree by D / depth.
double measure_shared_clock_disagreement(Transport& group, const clock::GlobalClock& clk,
                                         int attempts = 1);

// One group's contribution to what rank 0 of a sync group reports, and the
// sums and maximum of everybody's.
struct SharedClockTally {
  int checked_groups = 0;
  int fell_back_groups = 0;
  double worst_disagreement = 0;
  int worst_node = -1;  // Placement::node of the group that measured it
};

// Collective over `group` (a binomial tree to its rank 0, one message per
// member): returns the counts summed and the worst disagreement with its
// node on rank 0, `mine` elsewhere.
SharedClockTally reduce_tallies(Transport& group, const SharedClockTally& mine);

}  // namespace harmonize::sync
