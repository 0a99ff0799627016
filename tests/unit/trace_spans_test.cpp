#include <catch2/catch.hpp>

#include "common/collective_kind.hpp"
#include "harmonize/trace/spans.hpp"

using namespace harmonize;
using namespace harmonize::trace;

TEST_CASE("regions are numbered alike on every process", "[trace][otf2]") {
  const std::vector<std::string> names = region_names();
  CHECK(names.size() == kCollectiveNames.size() + 3);
  CHECK(names[barrier_region()] == "MPI_Barrier");
  CHECK(names[collective_region(static_cast<int>(Collective::allreduce))] == "MPI_Allreduce");
  CHECK(names[collective_region(static_cast<int>(Collective::ibarrier))] == "MPI_Ibarrier");
  CHECK(names[sync_region(true)] == "clock sync");
  CHECK(names[sync_region(false)] == "clock resync");
}

TEST_CASE("spans are nested: one overlapping an earlier one in part is left out", "[trace][otf2]") {
  // A barrier, an Iallreduce started before a barrier and completed inside
  // a later Ibcast's span, which ends after it.
  const std::vector<Span> spans{{5, 6, 0}, {1, 2, 0}, {3, 8, 7}, {4, 5, 0}, {7, 9, 8}};
  const NestedSpans kept = nested(spans);
  CHECK(kept.spans == std::vector<Span>{{1, 2, 0}, {3, 8, 7}, {4, 5, 0}, {5, 6, 0}});
  CHECK(kept.not_nested == 1);
  // Two that start together: the longer encloses the other.
  CHECK(nested({{1, 2, 0}, {1, 3, 4}}).spans == std::vector<Span>{{1, 3, 4}, {1, 2, 0}});
  CHECK(nested({}).spans.empty());
}

TEST_CASE("a rank's part travels to rank 0 whole", "[trace][otf2]") {
  const LocationPart part{3, "node-a", {{1.5, 2.25, 0}, {1e5 + 1e-9, 1e5 + 2e-9, 36}}};
  LocationPart back;
  REQUIRE(decode(encode(part), back));
  CHECK(back == part);
  const LocationPart empty{0, "", {}};
  REQUIRE(decode(encode(empty), back));
  CHECK(back == empty);
  std::string cut = encode(part);
  cut.pop_back();
  CHECK_FALSE(decode(cut, back));
  CHECK_FALSE(decode("", back));
}
