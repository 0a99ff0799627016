#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <stdexcept>
#include <vector>

#include "sync/split_groups.hpp"
#include "sync/tree_schedule.hpp"

using namespace harmonize::sync;

TEST_CASE("split groups order members by key, then rank, and leave out negative colors",
          "[sync][split]") {
  // Ranks 3..8: (color, key).
  const std::vector<int> pairs = {1, 5, -1, 0, 1, 2, 0, 7, 1, 2, 0, 1};
  const SplitGroups groups = split_groups(pairs, 3);
  REQUIRE(groups.size() == 2);
  CHECK(groups.at(0) == std::vector<int>{8, 6});
  CHECK(groups.at(1) == std::vector<int>{5, 7, 3});
}

TEST_CASE("a subtree is sent the groups of its colors only, and they come back whole",
          "[sync][split]") {
  const SplitGroups groups = {{0, {0, 1}}, {2, {2, 5, 7}}, {9, {3}}};
  const std::vector<int> subtree = {2, 0, -1, 0, 2, 4};  // colors 2, none, 2
  const std::vector<int> message = encode_groups(groups, subtree);
  CHECK(message == std::vector<int>{2, 3, 2, 5, 7});
  CHECK(decode_groups(message, 8) == SplitGroups{{2, {2, 5, 7}}});
  CHECK_THROWS_AS(decode_groups(message, 7), std::invalid_argument);  // 7 is not a rank of 7
  CHECK_THROWS_AS(decode_groups(std::vector<int>{2, 1, -1}, 8), std::invalid_argument);
  CHECK(decode_groups({}, 8).empty());
  CHECK(encode_groups(groups, std::vector<int>{-1, 0}).empty());
  CHECK_THROWS_AS(decode_groups(std::vector<int>{2, 4, 1, 2}, 8), std::invalid_argument);
  CHECK_THROWS_AS(decode_groups(std::vector<int>{2}, 8), std::invalid_argument);
  CHECK_THROWS_AS(decode_groups(std::vector<int>{2, -1}, 8), std::invalid_argument);
}

// The transport's protocol without MPI: pairs gathered up the binomial tree,
// groups handed down it; every process must end with what a split of the
// whole table gives it, at every size (powers of two and not).
TEST_CASE("the tree split gives every process the group a split of the whole table gives",
          "[sync][split]") {
  using harmonize::sync::tree_children;
  using harmonize::sync::tree_parent;
  using harmonize::sync::tree_subtree_last;
  std::mt19937 random(7);
  for (const int n : {1, 2, 3, 7, 32, 96, 300}) {
    std::vector<int> table;
    for (int r = 0; r < n; ++r) {
      table.push_back(static_cast<int>(random() % 5) - 1);  // -1: not in any group
      table.push_back(static_cast<int>(random() % 4));      // keys tie often
    }
    // The reference, as MPI_Comm_split says: each color's ranks, stably
    // sorted by key (ties keep rank order).
    SplitGroups reference;
    for (int color = 0; color < 4; ++color) {
      std::vector<int> ranks;
      for (int r = 0; r < n; ++r)
        if (table[2 * r] == color) ranks.push_back(r);
      std::stable_sort(ranks.begin(), ranks.end(),
                       [&](int a, int b) { return table[2 * a + 1] < table[2 * b + 1]; });
      if (!ranks.empty()) reference[color] = ranks;
    }
    // Up: a process knows exactly its subtree's pairs, received from children.
    std::vector<std::vector<int>> subtree(static_cast<std::size_t>(n));
    for (int r = n - 1; r >= 0; --r) {
      std::vector<int>& mine = subtree[static_cast<std::size_t>(r)];
      mine = {table[2 * r], table[2 * r + 1]};
      for (const int child : tree_children(r, n)) {
        const auto& theirs = subtree[static_cast<std::size_t>(child)];
        mine.insert(mine.end(), theirs.begin(), theirs.end());
      }
      REQUIRE(static_cast<int>(mine.size()) == 2 * (tree_subtree_last(r, n) - r + 1));
    }
    // Down: each process decodes what its parent encoded for its subtree.
    std::vector<SplitGroups> known(static_cast<std::size_t>(n));
    known[0] = split_groups(subtree[0]);
    for (int r = 1; r < n; ++r) {
      const int parent = tree_parent(r);
      REQUIRE(parent < r);
      known[static_cast<std::size_t>(r)] =
          decode_groups(encode_groups(known[static_cast<std::size_t>(parent)],
                                      subtree[static_cast<std::size_t>(r)]),
                        n);
    }
    for (int r = 0; r < n; ++r) {
      const int color = table[2 * r];
      if (color < 0) continue;
      const auto& group = known[static_cast<std::size_t>(r)].at(color);
      CHECK(group == reference.at(color));
      CHECK(std::count(group.begin(), group.end(), r) == 1);
    }
  }
}
