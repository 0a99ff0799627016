#include <catch2/catch.hpp>
#include <vector>

#include "sync/hca3.hpp"
#include "sync/offset_estimate.hpp"
#include "sync/settings.hpp"

using namespace harmonize::sync;

TEST_CASE("SKaMPI-Offset intersects the bounds of all exchanges", "[sync][offset]") {
  // Client clock = reference + 10; each exchange bounds reference - local
  // by [reference - client_recv, reference - client_send].
  const std::vector<Exchange> consistent{
      {110, 101, 114},  // [-13, -9]
      {120, 111, 122},  // [-11, -9]  fastest (rtt 2)
      {130, 123, 138},  // [-15, -7]
  };
  const FitPoint point = skampi_offset(consistent);
  CHECK(point.offset == 10.0);      // local - reference = -(-11 + -9) / 2
  CHECK(point.t == 121.0);          // midpoint of the fastest exchange
  CHECK(point.uncertainty == 1.0);  // half of [-11, -9]
}

TEST_CASE("Mean-RTT-Offset takes the median of rtt-corrected offsets", "[sync][offset]") {
  const std::vector<Exchange> exchanges{
      {0, 0, 12},    // 12 - 0 - 1 = 11
      {20, 9, 22},   // 22 - 9 - 1 = 12
      {30, 30, 41},  // 41 - 30 - 1 = 10
  };
  const FitPoint point = mean_rtt_offset(exchanges, 2.0);
  CHECK(point.offset == 11.0);
  CHECK(point.t == 12.0);
  CHECK(point.uncertainty == 0.0);
}

TEST_CASE("the minimum-RTT early stop waits `patience` exchanges without improvement",
          "[sync][offset]") {
  std::vector<Exchange> e{{0, 0, 5}, {0, 0, 3}, {0, 0, 4}, {0, 0, 6}};
  CHECK(min_rtt_stalled(e, 2));        // best 3 at index 1; then 4 and 6
  CHECK_FALSE(min_rtt_stalled(e, 3));  // 3 itself is among the last three
  CHECK_FALSE(min_rtt_stalled(e, 0));  // off
  e.push_back({0, 0, 2});
  CHECK_FALSE(min_rtt_stalled(e, 2));
}

TEST_CASE("HCA3 needs ceil(log2 p) rounds", "[sync][hca3]") {
  CHECK(hca3_rounds(1) == 0);
  CHECK(hca3_rounds(2) == 1);
  CHECK(hca3_rounds(3) == 2);
  CHECK(hca3_rounds(4) == 2);
  CHECK(hca3_rounds(5) == 3);
  CHECK(hca3_rounds(64) == 6);
  CHECK(hca3_rounds(65) == 7);
}

TEST_CASE("settings names round-trip", "[sync]") {
  // As the policy parses them (common/choices.hpp).
  using harmonize::choices::parse_choice;
  for (auto scheme : {Scheme::hca3, Scheme::h2hca, Scheme::h3hca})
    CHECK(parse_choice<Scheme>(to_string(scheme)) == scheme);
  for (auto model : {ModelKind::automatic, ModelKind::offset_only, ModelKind::linear})
    CHECK(parse_choice<ModelKind>(to_string(model)) == model);
  for (auto offset : {OffsetAlgorithm::skampi, OffsetAlgorithm::mean_rtt})
    CHECK(parse_choice<OffsetAlgorithm>(to_string(offset)) == offset);
  CHECK_FALSE(parse_choice<Scheme>("hca2"));
}
