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
