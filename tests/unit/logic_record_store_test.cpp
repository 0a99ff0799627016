#include <catch2/catch.hpp>

#include <string>

#include "harmonize/logic/record_store.hpp"

using namespace harmonize::logic;

namespace {

CommRecord record(std::uint64_t root, std::uint64_t serial, int rank, int size,
                  std::uint64_t calls) {
  CommRecord r;
  r.key = {root, serial};
  r.rank = rank;
  r.stats.name = "comm#" + std::to_string(serial);
  r.stats.kind = "intra";
  r.stats.size = size;
  r.stats.calls = calls;
  r.stats.harmonized_calls = calls;
  return r;
}

std::vector<CommRecord> decoded(const RecordStore& store) {
  auto records = decode_records(store.encode());
  REQUIRE(records);
  return *records;
}

}  // namespace

TEST_CASE("records survive the encoding whole", "[logic][records]") {
  RecordStore store(3);
  CommRecord r = record(0, 5, 1, 4, 100);
  r.stats.name = "even";
  r.stats.not_harmonized_reason = "clock sync: PMPI_Send failed";
  r.stats.not_harmonized_calls = 7;
  r.missed_any = 2;
  r.late_any = 3;
  r.stats.late_calls = 4;
  r.stats.truth_late_calls = 5;
  r.stats.truth_late_unflagged = 1;
  r.stats.late_by.add(2e-6);
  r.pending.push_back({1.5, 2.5, 3.5, true, true});
  r.pending.back().delay = 20e-6;  // HARMONIZE_ARRIVAL's, which the exit skew subtracts
  r.pending.back().truth_delay = 19e-6;
  r.pending.back().bound = 4e-6;
  r.pending.back().likely = 3e-7;
  store.retire(r, CommKind::intra, false);
  const auto back = decoded(store);
  REQUIRE(back.size() == 1);
  CHECK(back[0].key == r.key);
  CHECK(back[0].rank == 1);
  CHECK(back[0].stats == r.stats);
  CHECK(back[0].missed_any == 2);
  CHECK(back[0].late_any == 3);
  REQUIRE(back[0].pending.size() == 1);
  CHECK(back[0].pending[0].exit_truth == 3.5);
  CHECK(back[0].pending[0].missed);
  CHECK(back[0].pending[0].late);
  CHECK(back[0].pending[0].delay == 20e-6);
  CHECK(back[0].pending[0].truth_delay == 19e-6);
  CHECK(back[0].pending[0].bound == 4e-6);
  CHECK(back[0].pending[0].likely == 3e-7);
  // Malformed data is refused, never read past its end.
  std::vector<double> cut = store.encode();
  cut.resize(cut.size() / 2);
  CHECK(!decode_records(cut));
}

TEST_CASE("freed communicators beyond the first 64 of a root are folded per size",
          "[logic][records]") {
  RecordStore store(0);
  for (std::uint64_t serial = 0; serial < 70; ++serial)
    store.retire(record(2, serial, 0, serial % 2 ? 4 : 8, 10), CommKind::intra, false);
  // Kept at MPI_Finalize whatever its number: the user never freed it.
  store.retire(record(2, 500, 0, 4, 10), CommKind::intra, true);
  const auto records = decoded(store);
  REQUIRE(records.size() == 64 + 1 + 2);
  std::uint64_t folded_calls = 0;
  for (const CommRecord& r : records) {
    if (!is_folded(r.key)) continue;
    CHECK(r.key.root_world_rank == 2);
    CHECK(r.stats.name.find("(folded)") != std::string::npos);
    folded_calls += r.stats.calls;
  }
  CHECK(folded_calls == 6 * 10);
}

TEST_CASE("per-process and folded keys never meet", "[logic][records]") {
  RecordStore store(7);
  store.retire(record(7, 1, 0, 1, 3), CommKind::self, false);
  store.retire(record(7, 2, 0, 1, 4), CommKind::self, false);
  store.retire(record(7, 3, 0, 2, 5), CommKind::inter, false);
  const auto records = decoded(store);
  REQUIRE(records.size() == 2);  // one self, one inter record
  for (const CommRecord& r : records) {
    CHECK(is_per_process(r.key));
    CHECK(!is_folded(r.key));
    CHECK(r.rank == 7);  // the process, for the merge
  }
  // A folded key of a root beyond 2^40 ranks would be needed to collide.
  CHECK(!is_per_process({kFoldedSerialBase, kFoldedSerialBase + 4}));
}

TEST_CASE("rank 0 merges per communicator: members' pending calls matched, processes summed",
          "[logic][records]") {
  // Two members of one communicator with 2 calls each left in their logs.
  CommRecord a = record(0, 1, 0, 2, 2);
  CommRecord b = record(0, 1, 1, 2, 2);
  a.pending = {{10.0, 1.0, 10.0, false}, {20.0, 2.0, 20.0, false}};
  b.pending = {{10.5, 1.1, 10.4, true}, {20.1, 2.1, 20.2, false}};
  CommRecord self0 = record(0, 9, 0, 1, 1000);
  self0.key = {kPerProcessRoot, 0};
  CommRecord self1 = self0;
  self1.stats.calls = 1001;
  CommRecord world0 = record(0, 0, 0, 2, 5);
  world0.stats.name = "MPI_COMM_WORLD";
  CommRecord world1 = world0;
  world1.rank = 1;
  const auto merged = merge_records({{a, self0, world0}, {b, self1, world1}}, true);
  REQUIRE(merged.size() == 3);
  CHECK(merged[0].summary.name == "MPI_COMM_WORLD");  // first, whatever its key
  const MergedCommunicator& comm = merged[1];
  CHECK(comm.summary.calls == 2);
  CHECK(comm.summary.missed_calls_any == 1);
  CHECK(comm.summary.exit_skew.count() == 2);
  CHECK(comm.summary.exit_skew.max() == Approx(0.5));
  // Call 1: b left (10.4) after a entered (1.0) and before... no violation:
  // the latest entry is 1.1, the earliest exit 10.0.
  CHECK(comm.space_violations == 0u);
  const MergedCommunicator& selves = merged[2];
  CHECK(selves.summary.calls == 2001);
  CHECK(!selves.space_violations);
}
