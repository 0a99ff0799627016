// The collective timer's hot path and its hand-over to the matching
// (harmonize/collectives/collective_timer.hpp), exactly: stamps are the readings
// of a clock the test sets (no TSC), communicators are plain ids.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "collective_timer_helpers.hpp"
#include "harmonize/collectives/collective_timer.hpp"

using harmonize::bit_of;
using harmonize::Collective;
using harmonize::kAllCollectives;
using namespace harmonize::collectives;
using harmonize::collectives::testing::kNull;
using harmonize::collectives::testing::kWorld;
using harmonize::collectives::testing::ManualSource;
using harmonize::collectives::testing::timer_on;

namespace {

constexpr CommId kSub{2};

TimedCall call_on(CommId comm, double entry, double exit,
                  Collective operation = Collective::allreduce, std::uint64_t bytes = 8,
                  std::int32_t root = -1) {
  return {.entry = entry,
          .exit = exit,
          .bytes = bytes,
          .comm = comm,
          .root = root,
          .operation = operation};
}

}  // namespace

TEST_CASE("the timer stamps with its source and times only the chosen operations",
          "[protocol][collectives]") {
  ManualSource source;
  source.t = 12.5;
  const auto timer = timer_on(source, bit_of(Collective::allreduce) | bit_of(Collective::bcast));
  CHECK(timer->times(Collective::allreduce));
  CHECK(timer->times(Collective::bcast));
  CHECK_FALSE(timer->times(Collective::reduce));
  CHECK_FALSE(timer->times(Collective::barrier));
  CHECK(timer->now() == 12.5);
  source.t = 13.25;
  CHECK(timer->now() == 13.25);
  CHECK(timer_on(source)->times(Collective::barrier));  // kAllCollectives
}

TEST_CASE("calls come back by communicator, in their order, with their stamps",
          "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  timer->add(call_on(kWorld, 1.0, 1.5));
  timer->add(call_on(kWorld, 2.0, 2.25, Collective::bcast, 1024, 3));
  timer->add(call_on(kSub, 3.0, 3.5, Collective::reduce, 16, 0));
  timer->add(call_on(kWorld, 4.0, 4.5));
  CHECK(timer->calls_seen(kWorld) == 3);
  CHECK(timer->calls_seen(kSub) == 1);
  CHECK(timer->calls_seen(CommId{7}) == 0);

  const PendingCalls world = timer->take(kWorld);
  CHECK(world.calls_seen == 3);
  REQUIRE(world.calls.size() == 3);
  CHECK(world.calls[0].entry == 1.0);
  CHECK(world.calls[0].exit == 1.5);
  CHECK(world.calls[0].operation == Collective::allreduce);
  CHECK(world.calls[0].bytes == 8);
  CHECK(world.calls[0].root == -1);
  CHECK(world.calls[0].comm == kWorld);
  CHECK(world.calls[1].entry == 2.0);
  CHECK(world.calls[1].exit == 2.25);
  CHECK(world.calls[1].operation == Collective::bcast);
  CHECK(world.calls[1].bytes == 1024);
  CHECK(world.calls[1].root == 3);
  CHECK(world.calls[2].entry == 4.0);
  for (const TimedCall& call : world.calls) {
    CHECK_FALSE(call.after_barrier);
    CHECK(call.delay == 0.0);
  }
  // Taken is forgotten; the other communicator keeps its calls.
  CHECK(timer->calls_seen(kWorld) == 0);
  CHECK(timer->take(kWorld).calls.empty());
  const PendingCalls sub = timer->take(kSub);
  REQUIRE(sub.calls.size() == 1);
  CHECK(sub.calls[0].operation == Collective::reduce);
  CHECK(sub.calls[0].root == 0);
  CHECK(timer->spills() == 0);
  CHECK(timer->forgotten() == 0);
}

TEST_CASE("only the first call after a barrier left in time follows it, with its delay",
          "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  std::vector<std::pair<bool, double>> expected;  // after_barrier, delay of each world call

  timer->barrier_left(kWorld, true, 2e-6);
  timer->add(call_on(kWorld, 1, 2));  // follows it
  timer->add(call_on(kWorld, 3, 4));  // the second does not
  expected.insert(expected.end(), {{true, 2e-6}, {false, 0.0}});

  timer->barrier_left(kWorld, true, 1e-6);
  timer->add(call_on(kSub, 5, 6));    // a collective elsewhere spoils the pattern
  timer->add(call_on(kWorld, 7, 8));  // so this one does not follow it
  expected.push_back({false, 0.0});

  timer->barrier_left(kWorld, false, 5e-6);  // missed, or not harmonized
  timer->add(call_on(kWorld, 9, 10));
  expected.push_back({false, 0.0});

  timer->barrier_left(kSub, true, 1.0);
  timer->barrier_left(kWorld, true, 3e-6);  // the last barrier counts
  timer->add(call_on(kWorld, 11, 12));
  expected.push_back({true, 3e-6});

  // What the caller says of a call is not what the timer records.
  TimedCall claimed = call_on(kWorld, 13, 14);
  claimed.after_barrier = true;
  claimed.delay = 9.0;
  timer->add(claimed);
  expected.push_back({false, 0.0});

  const PendingCalls world = timer->take(kWorld);
  REQUIRE(world.calls.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("call " << i);
    CHECK(world.calls[i].after_barrier == expected[i].first);
    CHECK(world.calls[i].delay == expected[i].second);
  }
  const PendingCalls sub = timer->take(kSub);
  REQUIRE(sub.calls.size() == 1);
  CHECK_FALSE(sub.calls[0].after_barrier);
}

TEST_CASE("no call on the null communicator follows a barrier", "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  timer->barrier_left(kNull, true, 1.0);
  timer->add(call_on(kNull, 1, 2));
  const PendingCalls null_calls = timer->take(kNull);
  REQUIRE(null_calls.calls.size() == 1);
  CHECK_FALSE(null_calls.calls[0].after_barrier);
  CHECK(null_calls.calls[0].delay == 0.0);
}

TEST_CASE("a call that finds the buffer full sets it aside: one log spill",
          "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  const std::size_t n = CollectiveTimer::kCapacity;
  for (std::size_t i = 0; i < n; ++i)
    timer->add(call_on(i % 2 == 0 ? kWorld : kSub, static_cast<double>(i), i + 0.5));
  CHECK(timer->spills() == 0);
  timer->add(call_on(kWorld, static_cast<double>(n), n + 0.5));
  CHECK(timer->spills() == 1);
  CHECK(timer->calls_seen(kWorld) == n / 2 + 1);
  CHECK(timer->calls_seen(kSub) == n / 2);
  // Nothing is lost, nothing reordered.
  const PendingCalls world = timer->take(kWorld);
  REQUIRE(world.calls.size() == n / 2 + 1);
  for (std::size_t k = 0; k < world.calls.size(); ++k) {
    CHECK(world.calls[k].entry == static_cast<double>(2 * k));
    CHECK(world.calls[k].exit == 2 * k + 0.5);
  }
  CHECK(timer->take(kSub).calls.size() == n / 2);
  CHECK(timer->spills() == 1);  // draining off the hot path is no spill
}

TEST_CASE("a communicator keeps at most kMaxPending calls; the others are only counted",
          "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  const std::size_t n = CollectiveTimer::kMaxPending + 3;
  for (std::size_t i = 0; i < n; ++i) timer->add(call_on(kWorld, static_cast<double>(i), i + 1.0));
  timer->add(call_on(kSub, 0.5, 0.75));
  // A spill at every kCapacity-th call after the first buffer.
  CHECK(timer->spills() == n / CollectiveTimer::kCapacity);
  CHECK(timer->calls_seen(kWorld) == n);
  const PendingCalls world = timer->take(kWorld);
  CHECK(world.calls_seen == n);
  REQUIRE(world.calls.size() == CollectiveTimer::kMaxPending);
  CHECK(world.calls.front().entry == 0.0);
  CHECK(world.calls.back().entry == static_cast<double>(CollectiveTimer::kMaxPending - 1));
  CHECK(timer->take(kSub).calls.size() == 1);
}

TEST_CASE("a freed communicator's calls are forgotten and counted", "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  for (int i = 0; i < 3; ++i) timer->add(call_on(kWorld, i, i + 1));
  for (int i = 0; i < 2; ++i) timer->add(call_on(kSub, i, i + 1));
  timer->forget(kSub);  // still in the buffer: drained first
  CHECK(timer->forgotten() == 2);
  CHECK(timer->calls_seen(kSub) == 0);
  CHECK(timer->take(kSub).calls.empty());
  timer->forget(CommId{7});  // nothing of its own
  CHECK(timer->forgotten() == 2);
  CHECK(timer->calls_seen(kWorld) == 3);
  timer->add(call_on(kWorld, 9, 10));
  timer->forget(kWorld);
  CHECK(timer->forgotten() == 6);
  CHECK(timer->take(kWorld).calls_seen == 0);
}

TEST_CASE("an intercommunicator's calls are kept apart: marked, and forgotten on their own",
          "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  constexpr CommId kInter{3};
  TimedCall inter = call_on(kInter, 1, 2);
  inter.inter = true;
  timer->add(call_on(kInter, 0, 0.5));  // one call says so: the communicator is one
  timer->add(inter);
  timer->add(call_on(kWorld, 3, 4));
  CHECK(timer->take(kInter).inter);
  CHECK_FALSE(timer->take(kWorld).inter);

  timer->add(inter);
  timer->add(inter);
  timer->add(call_on(kSub, 5, 6));
  timer->forget(kInter);
  timer->forget(kSub);
  CHECK(timer->forgotten_inter() == 2);
  CHECK(timer->forgotten() == 1);

  timer->add(inter);
  timer->add(call_on(kWorld, 7, 8));
  std::vector<PendingCalls> all = timer->take_all();
  REQUIRE(all.size() == 2);
  CHECK(all[0].inter != all[1].inter);
  for (const PendingCalls& pending : all) CHECK(pending.calls_seen == 1);
}

TEST_CASE("take_all hands over every communicator with pending calls", "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source);
  timer->add(call_on(kWorld, 1, 2));
  timer->add(call_on(kSub, 3, 4));
  timer->add(call_on(kWorld, 5, 6));
  std::vector<PendingCalls> all = timer->take_all();
  REQUIRE(all.size() == 2);
  std::sort(all.begin(), all.end(), [](const PendingCalls& a, const PendingCalls& b) {
    return a.calls_seen < b.calls_seen;
  });
  CHECK(all[0].calls_seen == 1);
  CHECK(all[0].calls[0].comm == kSub);
  CHECK(all[1].calls_seen == 2);
  CHECK(all[1].calls[1].entry == 5.0);
  CHECK(timer->take_all().empty());
  CHECK(timer->calls_seen(kWorld) == 0);
}

TEST_CASE("with MPI_THREAD_MULTIPLE, calls of several threads are all kept",
          "[protocol][collectives]") {
  ManualSource source;
  const auto timer = timer_on(source, kAllCollectives, true);
  constexpr int kPerThread = 3000;  // 6000 in all: one spill, whoever makes it
  auto make_calls = [&](CommId comm) {
    for (int i = 0; i < kPerThread; ++i) timer->add(call_on(comm, i, i + 0.5));
  };
  std::thread other(make_calls, kSub);
  make_calls(kWorld);
  other.join();
  CHECK(timer->spills() == 1);
  for (CommId comm : {kWorld, kSub}) {
    const PendingCalls pending = timer->take(comm);
    CHECK(pending.calls_seen == kPerThread);
    REQUIRE(pending.calls.size() == kPerThread);
    for (int i = 0; i < kPerThread; ++i)
      CHECK(pending.calls[static_cast<std::size_t>(i)].entry == static_cast<double>(i));
  }
}
