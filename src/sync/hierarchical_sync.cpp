#include "sync/hierarchical_sync.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sync/clock_prop.hpp"
#include "sync/hca3.hpp"
#include "sync/shared_clock_check.hpp"

namespace harmonize::sync {
namespace {

constexpr int kNotMember = -1;

// Rank 0 of `group` tells everybody `value`.
int share_from_root(Transport& group, int value) {
  std::vector<std::byte> bytes(sizeof(int));
  std::memcpy(bytes.data(), &value, sizeof(int));
  group.broadcast(bytes, 0);
  std::memcpy(&value, bytes.data(), sizeof(int));
  return value;
}

}  // namespace

HierarchicalSync::HierarchicalSync(Transport& group, const Settings& settings, Placement placement)
    : group_(group), settings_(settings), node_color_(placement.node) {
  const int me = group.rank();
  node_ = group.split(placement.node, me);
  node_leaders_ = group.split(node_->rank() == 0 ? 0 : kNotMember, me);
  stats_.nodes = share_from_root(*node_, node_leaders_ ? node_leaders_->size() : 0);
  shared_clock_.tolerance = kSharedClockTolerance;
  // Known alike everywhere: fewer nodes than processes means some node
  // copies its leader's models (h3hca checks its sockets, which may all be
  // single processes: then nothing is ever checked, and the tally says so).
  shared_clock_.active = settings_.scheme != Scheme::hca3 && stats_.nodes < group.size();

  if (settings_.scheme == Scheme::none) {
    stats_.levels = 0;  // nothing synchronized: checked (synchronize())
    return;
  }
  if (settings_.scheme == Scheme::hca3) {
    stats_.levels = 1;
    stats_.rounds = hca3_rounds(group.size());
    stats_.inter_node_member = true;
    return;
  }
  if (settings_.scheme == Scheme::h3hca && placement.socket < 0) {
    settings_.scheme = Scheme::h2hca;
    stats_.fallback_note =
        "h3hca: processes are not each bound to one socket, so sockets cannot be told apart; "
        "using h2hca (node level only)";
  }
  stats_.inter_node_member = node_leaders_ != nullptr;
  stats_.rounds = hca3_rounds(stats_.nodes);
  stats_.levels = 2;
  if (settings_.scheme == Scheme::h3hca) {
    socket_ = node_->split(placement.socket, node_->rank());
    socket_leaders_ = node_->split(socket_->rank() == 0 ? 0 : kNotMember, node_->rank());
    const int sockets = share_from_root(*node_, socket_leaders_ ? socket_leaders_->size() : 0);
    stats_.rounds += hca3_rounds(sockets);
    stats_.levels = 3;
  }
}

// The fit points go; what was learned about the paths (best uncertainty,
// mean RTT) stays true whatever clock is being refined, and so does a
// group's fallback: its clocks did not become shared.
void HierarchicalSync::forget_history() {
  inter_history_.clear();
  intra_history_.clear();
  individual_history_.clear();
}

void HierarchicalSync::warm_up(const clock::GlobalClock& base) {
  const Settings full = settings_;
  settings_.fitpoints = 2;
  synchronize(base);
  settings_ = full;
  forget_history();
}

void HierarchicalSync::forget_last_sync() {
  PairHistory* histories[] = {&inter_history_, &intra_history_, &individual_history_};
  for (int i = 0; i < 3; ++i)
    if (histories[i]->adds() != adds_before_last_[i]) histories[i]->undo_add();
}

clock::GlobalClock HierarchicalSync::synchronize(const clock::GlobalClock& base) {
  adds_before_last_[0] = inter_history_.adds();
  adds_before_last_[1] = intra_history_.adds();
  adds_before_last_[2] = individual_history_.adds();
  if (settings_.scheme == Scheme::none) return check_given_clock(group_, base, given_clock_);
  if (settings_.scheme == Scheme::hca3) return run_hca3(group_, base, settings_, inter_history_);
  clock::GlobalClock clk = base;
  if (node_leaders_) clk = run_hca3(*node_leaders_, clk, settings_, inter_history_);
  if (settings_.scheme == Scheme::h2hca) {
    clk = sync_shared_group(*node_, clk);
  } else {
    // h3hca: the node leader is socket leader 0 of its node, so the socket
    // leaders learn the node leader's freshly synchronized clock.
    if (socket_leaders_) clk = run_hca3(*socket_leaders_, clk, settings_, intra_history_);
    clk = sync_shared_group(*socket_, clk);
  }
  tally_shared_clock();
  return clk;
}

// `fresh` is the leader's clock of the levels above; the other members
// joined none of them, so theirs is still the base.
clock::GlobalClock HierarchicalSync::sync_shared_group(Transport& shared,
                                                       const clock::GlobalClock& fresh) {
  if (shared.size() <= 1) return fresh;
  if (shared_clock_.own_group_fell_back)
    return run_hca3(shared, fresh, settings_, individual_history_);
  const clock::GlobalClock copied = run_clock_prop(shared, fresh);
  // Every member counts the same syncs, so all agree on whether to check.
  if (!shared_clock_check_due(shared_syncs_++)) return copied;
  const double disagreement =
      measure_shared_clock_disagreement(shared, copied, group_checked_ ? 1 : kSharedClockAttempts);
  group_checked_ = true;
  shared_clock_.own_group_disagreement =
      std::max(shared_clock_.own_group_disagreement, disagreement);
  if (disagreement <= kSharedClockTolerance) return copied;
  // Proven not shared: this sync's answer must already be right, so the
  // level runs again, individually (and so in every later sync, unchecked:
  // HCA3's clocks differ by design).
  shared_clock_.own_group_fell_back = true;
  return run_hca3(shared, fresh, settings_, individual_history_);
}

// Each group's leader contributes its group, up the levels to rank 0: no
// message at all while there is one node of one socket.
void HierarchicalSync::tally_shared_clock() {
  if (!shared_clock_.active) return;
  Transport& shared = settings_.scheme == Scheme::h3hca ? *socket_ : *node_;
  SharedClockTally tally;
  if (shared.rank() == 0 && group_checked_) {
    tally.checked_groups = 1;
    tally.fell_back_groups = shared_clock_.own_group_fell_back ? 1 : 0;
    tally.worst_disagreement = shared_clock_.own_group_disagreement;
    if (tally.worst_disagreement > 0) tally.worst_node = node_color_;
  }
  if (settings_.scheme == Scheme::h3hca && socket_leaders_)
    tally = reduce_tallies(*socket_leaders_, tally);
  if (node_leaders_) tally = reduce_tallies(*node_leaders_, tally);
  if (group_.rank() != 0) return;
  shared_clock_.checked_groups = tally.checked_groups;
  shared_clock_.fell_back_groups = tally.fell_back_groups;
  shared_clock_.worst_disagreement = tally.worst_disagreement;
  shared_clock_.worst_node = tally.worst_node;
}

}  // namespace harmonize::sync
