#include "harmonize/session/shared_clock_notice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

#include "report/format.hpp"
#include "sync/shared_clock_check.hpp"

namespace harmonize {
namespace {

std::vector<int> ranks_of_node(const sync::Layout& layout, int node) {
  std::vector<int> ranks;
  for (std::size_t r = 0; r < layout.of_rank.size(); ++r) {
    if (layout.of_rank[r].node == node) ranks.push_back(static_cast<int>(r));
  }
  return ranks;
}

}  // namespace

std::string rank_ranges(const std::vector<int>& ranks) {
  std::string text;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!text.empty()) text += ",";
    text += std::to_string(ranks[i]);
    if (j > i) text += "-" + std::to_string(ranks[j]);
    i = j + 1;
  }
  return text;
}

void SharedClockNotice::check_nodes(std::vector<std::string> host_of_rank) {
  std::lock_guard lock(mutex_);
  checking_nodes_ = true;
  host_of_rank_ = std::move(host_of_rank);
}

void SharedClockNotice::observe(const sync::SyncReport& report, bool group_root, bool world) {
  // HARMONIZE_SYNC=none: the world's clocks, taken as global, checked (the
  // world group's ranks are world ranks).
  if (report.given_clock.active && report.given_clock.beyond > 0 && world && world_rank_ == 0) {
    std::lock_guard lock(mutex_);
    note_given(report.given_clock);
  }
  const sync::SharedClockReport& check = report.shared_clock;
  if (!check.active) return;
  std::lock_guard lock(mutex_);
  if (check.own_group_fell_back) {
    own_worst_ = std::max(own_worst_, check.own_group_disagreement);
    if (!world) sub_communicator_fell_back_ = true;
  }
  if (world_rank_ == 0 && group_root && check.fell_back_groups > 0)
    note(check.worst_disagreement, check.worst_node, check.fell_back_groups);
}

logic::SharedClockFallbacks SharedClockNotice::own_fallback() const {
  std::lock_guard lock(mutex_);
  if (!checking_nodes_ || own_worst_ <= 0) return {};
  const auto me = static_cast<std::size_t>(world_rank_);
  const int node = me < layout_.of_rank.size() ? layout_.of_rank[me].node : -1;
  return {own_worst_, node, {node}, sub_communicator_fell_back_};
}

void SharedClockNotice::observe_everybody(const logic::SharedClockFallbacks& everybody) {
  std::lock_guard lock(mutex_);
  if (everybody.sub_communicator) sub_communicator_fell_back_ = true;
  if (everybody.worst > 0)
    note(everybody.worst, everybody.worst_node, static_cast<int>(everybody.nodes.size()));
}

void SharedClockNotice::note(double disagreement, int node, int groups) {
  if (warned_ || !warning_.empty()) return;
  std::string where = "node " + node_name(node);
  if (groups > 1) where += " and " + std::to_string(groups - 1) + " more";
  warning_ = "harmonize: warning: " + where + ": clocks of its processes disagree by " +
             report::format_duration(disagreement) + " (beyond the " +
             report::format_duration(sync::kSharedClockTolerance) +
             " tolerance); syncing them individually (HCA3 within the node). Likely causes: "
             "processes in different time namespaces (containers), unsynchronized TSCs across "
             "sockets, a per-process MPI_Wtime.";
  pending_.store(true, std::memory_order_relaxed);
}

void SharedClockNotice::note_given(const sync::GivenClockReport& given) {
  if (warned_ || !warning_.empty()) return;
  std::string ranks;
  const int named = std::min(given.beyond, sync::GivenClockReport::kNamed);
  for (int i = 0; i < named; ++i)
    ranks += (i > 0 ? ", " : "") + std::to_string(given.beyond_ranks[static_cast<std::size_t>(i)]);
  if (given.beyond > named) ranks += " and " + std::to_string(given.beyond - named) + " more";
  const bool several = given.beyond > 1;
  warning_ = "harmonize: warning: HARMONIZE_SYNC=none takes the clocks as global, but the clock" +
             std::string(several ? "s of world ranks " : " of world rank ") + ranks + " (" +
             std::to_string(given.beyond) + " of the " + std::to_string(given.checked) +
             " ranks checked) " + (several ? "are up to " : "is ") +
             report::format_duration(std::abs(given.worst_offset)) +
             (several ? " (rank " + std::to_string(given.worst_rank) + ")" : std::string()) +
             " from rank 0's, beyond the " + report::format_duration(sync::kGivenClockTolerance) +
             " tolerance; the error bound says so (" + report::format_duration(given.bound) +
             "). Synchronize them (HARMONIZE_SYNC=h2hca) unless their discipline (PTP) is "
             "expected to be that far off.";
  pending_.store(true, std::memory_order_relaxed);
}

void SharedClockNotice::flush() {
  std::lock_guard lock(mutex_);
  if (!pending_.load(std::memory_order_relaxed) || warned_) return;
  std::fprintf(stderr, "%s\n", warning_.c_str());
  warned_ = true;
  pending_.store(false, std::memory_order_relaxed);
}

// Called with mutex_ held or from to_json (const, after the syncs).
std::string SharedClockNotice::node_name(int node) const {
  const std::vector<int> ranks = ranks_of_node(layout_, node);
  std::string host = "?";
  if (!ranks.empty() && static_cast<std::size_t>(ranks.front()) < host_of_rank_.size())
    host = host_of_rank_[static_cast<std::size_t>(ranks.front())];
  return host + " (world ranks " + rank_ranges(ranks) + ")";
}

std::optional<report::SharedClockCheckInfo> SharedClockNotice::info(
    const sync::SharedClockReport& world) const {
  std::lock_guard lock(mutex_);
  if (world.checked_groups == 0 && !sub_communicator_fell_back_) return std::nullopt;
  report::SharedClockCheckInfo info;
  info.tolerance = sync::kSharedClockTolerance;
  info.checked_groups = world.checked_groups;
  info.fell_back_groups = world.fell_back_groups;
  info.worst_disagreement = world.worst_disagreement;
  info.sub_communicators_fell_back = sub_communicator_fell_back_;
  if (world.worst_node >= 0) {
    const std::vector<int> ranks = ranks_of_node(layout_, world.worst_node);
    info.worst_host =
        !ranks.empty() && static_cast<std::size_t>(ranks.front()) < host_of_rank_.size()
            ? host_of_rank_[static_cast<std::size_t>(ranks.front())]
            : "";
    info.worst_world_ranks = rank_ranges(ranks);
  }
  return info;
}

}  // namespace harmonize
