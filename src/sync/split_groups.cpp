#include "sync/split_groups.hpp"

#include <algorithm>
#include <cstddef>
#include <set>
#include <stdexcept>
#include <utility>

namespace harmonize::sync {

SplitGroups split_groups(std::span<const int> pairs, int first) {
  std::map<int, std::vector<std::pair<int, int>>> keyed;  // color -> (key, rank)
  for (std::size_t i = 0; 2 * i + 1 < pairs.size(); ++i) {
    const int color = pairs[2 * i];
    if (color >= 0) keyed[color].emplace_back(pairs[2 * i + 1], first + static_cast<int>(i));
  }
  SplitGroups groups;
  for (auto& [color, members] : keyed) {
    std::sort(members.begin(), members.end());
    std::vector<int>& ranks = groups[color];
    ranks.reserve(members.size());
    for (const auto& member : members) ranks.push_back(member.second);
  }
  return groups;
}

std::vector<int> encode_groups(const SplitGroups& groups, std::span<const int> pairs) {
  std::set<int> colors;
  for (std::size_t i = 0; i < pairs.size(); i += 2) {
    if (pairs[i] >= 0) colors.insert(pairs[i]);
  }
  std::vector<int> message;
  for (const int color : colors) {
    const auto found = groups.find(color);
    if (found == groups.end()) continue;
    message.push_back(color);
    message.push_back(static_cast<int>(found->second.size()));
    message.insert(message.end(), found->second.begin(), found->second.end());
  }
  return message;
}

SplitGroups decode_groups(std::span<const int> message, int size) {
  SplitGroups groups;
  std::size_t at = 0;
  while (at < message.size()) {
    if (at + 2 > message.size() || message[at + 1] < 0 ||
        static_cast<std::size_t>(message[at + 1]) > message.size() - at - 2)
      throw std::invalid_argument("split groups: truncated message");
    const auto begin = message.begin() + static_cast<std::ptrdiff_t>(at + 2);
    const auto end = begin + message[at + 1];
    if (std::any_of(begin, end, [size](int rank) { return rank < 0 || rank >= size; }))
      throw std::invalid_argument("split groups: a member outside the group");
    groups[message[at]].assign(begin, end);
    at += 2 + static_cast<std::size_t>(message[at + 1]);
  }
  return groups;
}

}  // namespace harmonize::sync
