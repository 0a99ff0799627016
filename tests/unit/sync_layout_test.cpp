#include <catch2/catch.hpp>

#include "sync/layout.hpp"

using harmonize::sync::Layout;
using harmonize::sync::placement_in_group;

TEST_CASE("a group's placement is looked up, and sockets are known for all or none",
          "[sync][layout]") {
  Layout layout;
  layout.of_rank = {{0, 0}, {0, 1}, {4, 0}, {4, -1}, {8, 1}};
  // Group of world ranks 4, 0, 2 (group ranks 0, 1, 2): all sockets known.
  CHECK(placement_in_group(layout, {4, 0, 2}, 0).node == 8);
  CHECK(placement_in_group(layout, {4, 0, 2}, 0).socket == 1);
  CHECK(placement_in_group(layout, {4, 0, 2}, 2).node == 4);
  CHECK(placement_in_group(layout, {4, 0, 2}, 2).socket == 0);
  // World rank 3's socket is unknown: every member of its group falls back.
  for (int rank = 0; rank < 3; ++rank) {
    CHECK(placement_in_group(layout, {1, 3, 2}, rank).socket == -1);
  }
  CHECK(placement_in_group(layout, {1, 3, 2}, 0).node == 0);
}

TEST_CASE("nodes are numbered densely in the order of their lowest ranks", "[sync][layout]") {
  Layout layout;
  // Nodes named by their lowest rank (0, 2, 5), ranks interleaved.
  layout.of_rank = {{0, 0}, {0, 0}, {2, 0}, {0, 0}, {2, 0}, {5, 0}};
  for (int rank : {0, 1, 3}) CHECK(harmonize::sync::node_number(layout, rank).index == 0);
  for (int rank : {2, 4}) CHECK(harmonize::sync::node_number(layout, rank).index == 1);
  CHECK(harmonize::sync::node_number(layout, 5).index == 2);
  CHECK(harmonize::sync::node_number(layout, 5).count == 3);
  CHECK_THROWS(harmonize::sync::node_number(layout, 6));
}

TEST_CASE("models are copied within a node only by the hierarchical schemes on shared nodes",
          "[sync][layout]") {
  using harmonize::sync::copies_models_within_a_node;
  using harmonize::sync::Scheme;
  Layout shared, apart;
  shared.of_rank = {{0, 0}, {2, 0}, {0, 0}};
  apart.of_rank = {{0, 0}, {1, 0}, {2, 0}};
  CHECK(copies_models_within_a_node(shared, Scheme::h2hca));
  CHECK(copies_models_within_a_node(shared, Scheme::h3hca));
  CHECK_FALSE(copies_models_within_a_node(shared, Scheme::hca3));
  CHECK_FALSE(copies_models_within_a_node(apart, Scheme::h2hca));
}

TEST_CASE("the end check takes node leaders first, then the others, at scale", "[sync][layout]") {
  Layout layout;
  // Nodes 5, 3, 7, ranks interleaved; rank 0 (node 5) is the reference.
  layout.of_rank = {{5, 0}, {5, 0}, {3, 0}, {3, 0}, {5, 0}, {7, 0}};
  CHECK(harmonize::sync::end_check_ranks(layout) == std::vector<int>{2, 5, 1, 3, 4});
  // 4 096 ranks on 128 nodes of 32: the 127 other leaders are more than the
  // 64 checked, so only leaders, evenly spread; and fast (it runs on every rank).
  layout.of_rank.clear();
  for (int rank = 0; rank < 4096; ++rank) layout.of_rank.push_back({rank / 32, 0});
  const std::vector<int> checked = harmonize::sync::end_check_ranks(layout);
  REQUIRE(checked.size() == 64);
  for (int rank : checked) CHECK(rank % 32 == 0);
  CHECK(checked.back() == 127 * 32);
}
