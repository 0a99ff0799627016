#include <catch2/catch.hpp>

#include <vector>

#include "report/collective_stats.hpp"

using namespace harmonize::report;

TEST_CASE("matched calls: arrival skew, t_global and t_all_present from the members' stamps",
          "[report][collectives]") {
  // Two calls of two members. Call 0: entries at 10.0 and 10.000200, exits
  // at 10.000250 and 10.000260: the second member arrived 200 us late, of
  // which the barrier imposed 190 us (HARMONIZE_ARRIVAL): entries less
  // delays at 10.0 and 10.000010. Call 1: no delay.
  // Call 0 follows barrier 5 of an interleaved comparison on both members;
  // on call 1 they disagree (tags 7 and 6): no side.
  // maxima: [operation, bytes, root, entry, exit, invalid, bound, entry - delay,
  // incomplete, local, tag]
  const std::vector<double> maxima = {
      0, 8,    -1, 10.000200, 10.000260, 0, 1e-6, 10.000010, 0, 250e-6, 5,
      2, 1024, 1,  11.000010, 11.000030, 1, 2e-6, 11.000010, 0, 30e-6,  7};
  // minima: [operation, entry, entry - delay, tag]
  const std::vector<double> minima = {0, 10.0, 10.0, 5, 2, 11.0, 11.0, 6};
  bool mismatched = true;
  const std::vector<MatchedCall> calls = match_calls(maxima, minima, 2, mismatched);
  CHECK_FALSE(mismatched);
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].key == CollectiveKey{0, 8, -1});
  CHECK(calls[0].arrival_skew == Approx(200e-6).epsilon(1e-9));
  CHECK(calls[0].t_global == Approx(260e-6).epsilon(1e-9));
  CHECK(calls[0].t_all_present == Approx(60e-6).epsilon(1e-9));
  CHECK(calls[0].valid);
  CHECK(calls[0].clock_error_bound == 1e-6);
  CHECK(calls[0].arrival_error == Approx(10e-6).epsilon(1e-9));
  CHECK(calls[0].local_max == 250e-6);
  CHECK(calls[0].interleaved == 5);
  CHECK(calls[1].interleaved == 0);
  CHECK(calls[1].key == CollectiveKey{2, 1024, 1});
  CHECK(calls[1].arrival_skew == Approx(10e-6).epsilon(1e-9));
  CHECK(calls[1].arrival_error == calls[1].arrival_skew);
  CHECK_FALSE(calls[1].valid);
}

TEST_CASE("members that called different collectives end the matching there",
          "[report][collectives]") {
  // Call 1: one member was in an allreduce (0), another in a bcast (2).
  const std::vector<double> maxima = {0, 8, -1, 1, 2, 0, 0, 1, 0, 1, 0,
                                      2, 8, -1, 3, 4, 0, 0, 3, 0, 1, 0};
  const std::vector<double> minima = {0, 1, 1, 0, 0, 3, 3, 0};
  bool mismatched = false;
  CHECK(match_calls(maxima, minima, 2, mismatched).size() == 1);
  CHECK(mismatched);
  static_assert(harmonize::report::CallMaxima::kFields == 11);
  static_assert(harmonize::report::CallMinima::kFields == 4);
}

TEST_CASE("a call incomplete on any member is left out of the matched calls",
          "[report][collectives]") {
  // Call 0 (an iallreduce) was freed before completion on one member; call
  // 1 completed everywhere.
  const std::vector<double> maxima = {17, 8, -1, 1, 2, 0, 0, 1, 1, 1, 0,
                                      17, 8, -1, 3, 4, 0, 0, 3, 0, 1, 0};
  const std::vector<double> minima = {17, 1, 1, 0, 17, 3, 3, 0};
  bool mismatched = true;
  const std::vector<MatchedCall> calls = match_calls(maxima, minima, 2, mismatched);
  CHECK_FALSE(mismatched);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].t_global == 1.0);  // call 1: 4 - 3
}

TEST_CASE("a non-blocking key keeps the overlaps that worked apart from those that waited",
          "[report][collectives]") {
  CollectiveTable table;
  const CollectiveKey key{0, 8, -1};
  // OSU's two loops under one key: waits at once (0.05 us of 3 us), and
  // computes 1.7 us of 3.2 us. The share that divides them is 30 %.
  for (int i = 0; i < 3; ++i) table.add_local(key, true, 3e-6, 0.05e-6);
  for (int i = 0; i < 2; ++i) table.add_local(key, false, 3.2e-6, 1.7e-6);
  table.add_local(key, true, 3e-6, 0.91e-6);  // just above 30 %: worked
  table.add_local(key, true, 3e-6, 0.89e-6);  // just below: waited
  const CollectiveStats& s = table.keys().at(0);
  CHECK(s.overlap.count() == 7);
  CHECK(s.valid_overlap.count() == 5);
  CHECK(s.overlap_worked.count() == 3);
  CHECK(s.overlap_worked.min() == 0.91e-6);
  CHECK(s.overlap_waited.count() == 4);
  CHECK(s.overlap_waited.max() == 0.89e-6);
  // They travel with the table.
  std::vector<double> flat;
  table.append_to(flat);
  std::size_t offset = 0;
  const auto back = CollectiveTable::read_from(flat, offset);
  REQUIRE(back.has_value());
  CHECK(*back == table);
  // A blocking call has no overlap and no population.
  table.add_local({1, 8, -1}, true, 3e-6);
  CHECK(table.keys().at(1).overlap_worked.empty());
  CHECK(table.keys().at(1).overlap_waited.empty());
}

TEST_CASE("a collective table keeps its keys sorted, valid calls apart, and bounded",
          "[report][collectives]") {
  CollectiveTable table;
  MatchedCall call;
  call.key = {0, 64, -1};
  call.arrival_skew = 3e-6;
  call.t_global = 9e-6;
  call.t_all_present = 6e-6;
  call.clock_error_bound = 5e-7;
  table.add_matched(call);
  call.valid = true;
  call.clock_error_bound = 2e-7;
  table.add_matched(call);
  table.add_local({0, 64, -1}, true, 4e-6);
  table.add_local({0, 64, -1}, false, 5e-6);
  call.key = {0, 8, -1};
  table.add_matched(call);
  REQUIRE(table.keys().size() == 2);
  CHECK(table.keys()[0].key.bytes == 8);  // sorted
  const auto& big = table.keys()[1];
  CHECK(big.calls == 2);
  CHECK(big.valid_calls == 1);
  CHECK(big.clock_error_bound == 5e-7);  // the largest
  CHECK(big.t_global.count() == 2);
  CHECK(big.valid_t_global.count() == 1);
  CHECK(big.valid_arrival_error.count() == 1);  // valid calls only
  CHECK(big.local.count() == 2);
  CHECK(big.valid_local.count() == 1);
  CHECK(big.valid_local.max() == 4e-6);

  for (std::uint64_t bytes = 1000; table.keys().size() < CollectiveTable::kMaxKeys; ++bytes) {
    call.key = {1, bytes, -1};
    table.add_matched(call);
  }
  call.key = {5, 1, -1};
  table.add_matched(call);
  table.add_matched(call);
  CHECK(table.keys().size() == CollectiveTable::kMaxKeys);
  CHECK(table.calls_over_key_limit() == 2);
}

TEST_CASE("a collective table round-trips through the flat encoding and merges by key",
          "[report][collectives]") {
  CollectiveTable a;
  MatchedCall call;
  call.key = {3, 16, 0};
  call.arrival_skew = 1e-6;
  call.valid = true;
  a.add_matched(call);
  a.add_local(call.key, true, 2e-6);
  std::vector<double> flat = {42};  // something before it
  a.append_to(flat);
  std::size_t offset = 1;
  const auto back = CollectiveTable::read_from(flat, offset);
  REQUIRE(back);
  CHECK(*back == a);
  CHECK(offset == flat.size());
  std::size_t truncated_at = 1;
  CHECK_FALSE(CollectiveTable::read_from(std::span(flat).first(flat.size() - 1), truncated_at));
  CHECK(truncated_at == 1);

  CollectiveTable b;
  b.add_local(call.key, false, 3e-6);
  b.merge(a);
  REQUIRE(b.keys().size() == 1);
  CHECK(b.keys()[0].calls == 1);
  CHECK(b.keys()[0].local.count() == 2);
  CHECK(b.keys()[0].valid_local.count() == 1);
}

TEST_CASE("a call's wire structs write their fields in the order they read them",
          "[report][collectives]") {
  using harmonize::report::CallMaxima;
  using harmonize::report::CallMinima;
  const CallMaxima hi{.operation = 2,
                      .bytes = 1024,
                      .root = 1,
                      .entry = 11.5,
                      .exit = 11.75,
                      .invalid = 1,
                      .clock_error_bound = 2e-6,
                      .undelayed_entry = 11.25};
  double wire[CallMaxima::kFields] = {};
  hi.write(wire);
  CHECK(wire[0] == 2);
  CHECK(wire[7] == 11.25);
  const CallMaxima back = CallMaxima::read(wire);
  CHECK(back.bytes == 1024);
  CHECK(back.exit == 11.75);
  CHECK(back.clock_error_bound == 2e-6);
  const CallMinima lo{.operation = 3, .entry = 4.5, .undelayed_entry = 4.25};
  double short_wire[CallMinima::kFields] = {};
  lo.write(short_wire);
  CHECK(CallMinima::read(short_wire).entry == 4.5);
  CHECK(short_wire[2] == 4.25);
}
