#include "sync/layout.hpp"

#include <algorithm>

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

}  // namespace harmonize::sync
