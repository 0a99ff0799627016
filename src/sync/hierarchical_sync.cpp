#include "sync/hierarchical_sync.hpp"

#include <cstring>
#include <vector>

#include "sync/clock_prop.hpp"
#include "sync/hca3.hpp"

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
    : group_(group), settings_(settings) {
  const int me = group.rank();
  node_ = group.split(placement.node, me);
  node_leaders_ = group.split(node_->rank() == 0 ? 0 : kNotMember, me);
  stats_.nodes = share_from_root(*node_, node_leaders_ ? node_leaders_->size() : 0);

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
// mean RTT) stays true whatever clock is being refined.
void HierarchicalSync::forget_history() {
  inter_history_.clear();
  intra_history_.clear();
}

void HierarchicalSync::warm_up(const clock::GlobalClock& base) {
  const Settings full = settings_;
  settings_.fitpoints = 2;
  synchronize(base);
  settings_ = full;
  forget_history();
}

clock::GlobalClock HierarchicalSync::synchronize(const clock::GlobalClock& base) {
  if (settings_.scheme == Scheme::hca3) return run_hca3(group_, base, settings_, inter_history_);
  clock::GlobalClock clk = base;
  if (node_leaders_) clk = run_hca3(*node_leaders_, clk, settings_, inter_history_);
  if (settings_.scheme == Scheme::h2hca) return run_clock_prop(*node_, clk);
  // h3hca: the node leader is socket leader 0 of its node, so the socket
  // leaders learn the node leader's freshly synchronized clock.
  if (socket_leaders_) clk = run_hca3(*socket_leaders_, clk, settings_, intra_history_);
  return run_clock_prop(*socket_, clk);
}

}  // namespace harmonize::sync
