#include "sync/layout.hpp"

#include <algorithm>
#include <unordered_set>

#include "sync/clock_check.hpp"

namespace harmonize::sync {
namespace {

std::vector<int> sorted_nodes(const Layout& layout) {
  std::vector<int> nodes;
  for (const Placement& placement : layout.of_rank) nodes.push_back(placement.node);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

}  // namespace

Placement placement_in_group(const Layout& layout, const std::vector<int>& members,
                             int group_rank) {
  Placement mine = layout.of_rank.at(static_cast<std::size_t>(members.at(group_rank)));
  for (int member : members) {
    if (layout.of_rank.at(static_cast<std::size_t>(member)).socket < 0) mine.socket = -1;
  }
  return mine;
}

NodeNumber node_number(const Layout& layout, int rank) {
  std::vector<int> nodes = sorted_nodes(layout);
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const int mine = layout.of_rank.at(static_cast<std::size_t>(rank)).node;
  const auto at = std::lower_bound(nodes.begin(), nodes.end(), mine) - nodes.begin();
  return {static_cast<int>(at), static_cast<int>(nodes.size())};
}

bool copies_models_within_a_node(const Layout& layout, Scheme scheme) {
  if (scheme == Scheme::hca3 || scheme == Scheme::none) return false;
  const std::vector<int> nodes = sorted_nodes(layout);
  return std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end();
}

std::vector<int> end_check_ranks(const Layout& layout) {
  const int size = static_cast<int>(layout.of_rank.size());
  std::vector<int> leaders, others;
  if (size == 0) return leaders;
  // Every rank runs this: a scan of the ranks before each one was O(P^2)
  // per rank, 20 s of a 4 096-rank simulation's finalize.
  std::unordered_set<int> seen_nodes{layout.of_rank.front().node};
  for (int rank = 1; rank < size; ++rank) {
    const bool first_of_node =
        seen_nodes.insert(layout.of_rank[static_cast<std::size_t>(rank)].node).second;
    (first_of_node ? leaders : others).push_back(rank);
  }
  // Evenly spread picks of `from`, at most `count` of them.
  const auto pick = [](const std::vector<int>& from, int count, std::vector<int>& into) {
    const int n = static_cast<int>(from.size());
    for (int index : sample_ranks(n + 1, count))
      into.push_back(from[static_cast<std::size_t>(index - 1)]);
  };
  std::vector<int> checked;
  pick(leaders, kMaxCheckedRanks, checked);
  pick(others, kMaxCheckedRanks - static_cast<int>(checked.size()), checked);
  return checked;
}

}  // namespace harmonize::sync
