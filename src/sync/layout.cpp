#include "sync/layout.hpp"

namespace harmonize::sync {

Placement placement_in_group(const Layout& layout, const std::vector<int>& members,
                             int group_rank) {
  Placement mine = layout.of_rank.at(static_cast<std::size_t>(members.at(group_rank)));
  for (int member : members) {
    if (layout.of_rank.at(static_cast<std::size_t>(member)).socket < 0) mine.socket = -1;
  }
  return mine;
}

}  // namespace harmonize::sync
