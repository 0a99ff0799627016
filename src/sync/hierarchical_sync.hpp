#pragma once
// The schemes of paper 001 composed from per-level algorithms over split
// groups: HCA3 (one level), H2HCA (HCA3 among node leaders, ClockPropSync in
// the node), H3HCA (HCA3 among node leaders, HCA3 among the socket leaders of
// a node, ClockPropSync in the socket). Transport-agnostic: the MPI layer and
// the simulator both drive it.
#include <cstdint>
#include <memory>
#include <string>

#include "clock/global_clock.hpp"
#include "sync/clock_sync.hpp"
#include "sync/pair_history.hpp"
#include "sync/settings.hpp"
#include "sync/transport.hpp"

namespace harmonize::sync {

// Where this process sits. Colors only need to be equal within a node
// (socket within its node); socket < 0 means unknown, and must then be
// unknown on every process of the group (the caller agrees on that first).
struct Placement {
  int node = 0;
  int socket = -1;
};

struct LevelStats {
  int rounds = 0;  // HCA3 rounds of the levels this scheme runs, ceil(log2) each
  int levels = 0;  // levels of the hierarchy actually used
  int nodes = 0;
  bool inter_node_member = false;  // does this process take part in the top HCA3 level?
  std::string fallback_note;
};

class HierarchicalSync {
 public:
  // Collective over `group` (splits it once; the groups are kept for later
  // syncs). `group` must outlive this object.
  HierarchicalSync(Transport& group, const Settings& settings, Placement placement);

  // Collective. `base` is the clock being refined; rank 0 of the group is the
  // reference. The same base (source and models) must be passed on every
  // call, otherwise call forget_history() first.
  clock::GlobalClock synchronize(const clock::GlobalClock& base);
  void forget_history();
  // The last synchronize()'s fit points leave the histories (its clock was
  // refused as much worse than the one kept); not collective: each process
  // forgets what it measured.
  void forget_last_sync();
  // Collective: one sync of minimal effort whose fit points are then
  // forgotten. MPI libraries connect pairs lazily (the first messages can
  // take milliseconds), and each pair learns the uncertainty it can reach.
  void warm_up(const clock::GlobalClock& base);

  const LevelStats& stats() const { return stats_; }
  const Settings& settings() const { return settings_; }
  // Updated by every synchronize(); the totals on rank 0 only.
  const SharedClockReport& shared_clock() const { return shared_clock_; }
  // HARMONIZE_SYNC=none: the last check, on every member.
  const GivenClockReport& given_clock() const { return given_clock_; }

 private:
  Transport& group_;
  Settings settings_;
  std::unique_ptr<Transport> node_;            // everybody (h2hca, h3hca)
  std::unique_ptr<Transport> node_leaders_;    // node rank 0 only
  std::unique_ptr<Transport> socket_;          // h3hca: everybody
  std::unique_ptr<Transport> socket_leaders_;  // h3hca: socket rank 0 only, per node
  clock::GlobalClock sync_shared_group(Transport& shared, const clock::GlobalClock& fresh);
  void tally_shared_clock();

  PairHistory inter_history_;
  PairHistory intra_history_;
  // This process's pair in the HCA3 that replaces ClockPropSync once its
  // group has fallen back (a pair of its own: its reference is not the
  // reference of the levels above).
  PairHistory individual_history_;
  std::uint64_t adds_before_last_[3] = {0, 0, 0};  // of the three histories, in that order
  int node_color_ = 0;
  bool group_checked_ = false;
  int shared_syncs_ = 0;  // ClockPropSync runs of this group (warm-up included)
  LevelStats stats_;
  SharedClockReport shared_clock_;
  GivenClockReport given_clock_;
};

}  // namespace harmonize::sync
