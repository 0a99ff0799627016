// Non-blocking collectives in the timer (harmonize/collectives/collective_timer.hpp):
// a call recorded at its start, completed by the call that completes its
// request, exactly: stamps are the readings of a clock the test sets (no
// TSC), communicators and requests plain ids.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "collective_timer_helpers.hpp"
#include "harmonize/collectives/collective_timer.hpp"
#include "harmonize/collectives/request_index.hpp"

using harmonize::Collective;
using namespace harmonize::collectives;
using harmonize::collectives::testing::kWorld;
using harmonize::collectives::testing::ManualSource;
using harmonize::collectives::testing::timer_on;

namespace {

TimedCall started_at(double entry, Collective operation = Collective::iallreduce) {
  return {.entry = entry, .bytes = 8, .comm = kWorld, .operation = operation};
}

// Completes `request` as a completing call would: looked up, then ended.
bool complete(CollectiveTimer& timer, RequestId request, double entry, double exit) {
  const std::uint32_t slot = timer.find(request);
  if (slot == RequestIndex::kNone) return false;
  timer.complete(slot, entry, exit);
  return true;
}

}  // namespace

TEST_CASE("a non-blocking call runs from its start to the completion of its request",
          "[protocol][collectives][nonblocking]") {
  ManualSource source;
  const auto timer = timer_on(source);
  CHECK_FALSE(timer->tracking());
  timer->start(started_at(1.0), 1.25, RequestId{77}, true);
  CHECK(timer->tracking());
  // A request the timer does not follow (a point-to-point one) is not found.
  CHECK(timer->find(RequestId{78}) == RequestIndex::kNone);
  CHECK(complete(*timer, RequestId{77}, 3.0, 3.5));
  CHECK_FALSE(timer->tracking());
  CHECK_FALSE(complete(*timer, RequestId{77}, 4.0, 4.5));  // the handle is no longer its
  const PendingCalls taken = timer->take(kWorld);
  REQUIRE(taken.calls.size() == 1);
  const TimedCall& call = taken.calls[0];
  CHECK(call.ending == Ending::completed);
  CHECK(call.entry == 1.0);
  CHECK(call.exit == 3.5);
  CHECK(call.overlap == 1.75);  // from the start's return to the wait's entry
  CHECK(taken.calls_seen == 1);
}

TEST_CASE("a call completed after its record was drained is filled in at the next drain",
          "[protocol][collectives][nonblocking]") {
  ManualSource source;
  const auto timer = timer_on(source);
  timer->start(started_at(1.0), 1.5, RequestId{5}, true);
  timer->start(started_at(2.0, Collective::ibcast), 2.5, RequestId{6}, true);
  CHECK(timer->calls_seen(kWorld) == 2);  // drains both, still open
  // Completed in the other order than started (MPI_Waitany, or two waits).
  CHECK(complete(*timer, RequestId{6}, 4.0, 4.25));
  CHECK(complete(*timer, RequestId{5}, 5.0, 5.25));
  const PendingCalls taken = timer->take(kWorld);
  REQUIRE(taken.calls.size() == 2);
  // The records keep the order of the starts: the order every member shares.
  CHECK(taken.calls[0].operation == Collective::iallreduce);
  CHECK(taken.calls[0].exit == 5.25);
  CHECK(taken.calls[1].operation == Collective::ibcast);
  CHECK(taken.calls[1].exit == 4.25);
  CHECK(taken.calls[1].overlap == 1.5);
}

TEST_CASE("a request freed, cancelled, or still open at the matching is never a completed call",
          "[protocol][collectives][nonblocking]") {
  ManualSource source;
  const auto timer = timer_on(source);
  timer->start(started_at(1.0), 1.1, RequestId{1}, true);
  timer->start(started_at(2.0), 2.1, RequestId{2}, true);
  timer->start(started_at(3.0), 3.1, RequestId{3}, true);
  timer->start(started_at(4.0), 4.1, RequestId{4}, false);  // the start failed
  timer->freed(timer->find(RequestId{1}));
  timer->cancelled(timer->find(RequestId{2}));
  CHECK(complete(*timer, RequestId{2}, 5.0, 5.5));
  const PendingCalls taken = timer->take(kWorld);
  REQUIRE(taken.calls.size() == 4);
  CHECK(taken.calls[0].ending == Ending::freed);
  CHECK(taken.calls[1].ending == Ending::cancelled);
  CHECK(taken.calls[2].ending == Ending::open_at_matching);
  CHECK(taken.calls[3].ending == Ending::untracked);
  // The open one's request is still followed: its completion frees its slot.
  CHECK(timer->tracking());
  CHECK(complete(*timer, RequestId{3}, 6.0, 6.5));
  CHECK_FALSE(timer->tracking());
  CHECK(timer->take(kWorld).calls.empty());
}

TEST_CASE("open requests beyond the table's capacity are counted, not followed",
          "[protocol][collectives][nonblocking]") {
  ManualSource source;
  const auto timer = timer_on(source);
  const std::size_t started = CollectiveTimer::kMaxOpen + 100;
  for (std::size_t i = 0; i < started; ++i)
    timer->start(started_at(1.0), 1.0, RequestId{1000 + i}, true);
  std::size_t completed = 0;
  for (std::size_t i = 0; i < started; ++i)
    completed += complete(*timer, RequestId{1000 + i}, 2.0, 3.0) ? 1 : 0;
  CHECK(completed == CollectiveTimer::kMaxOpen);
  const PendingCalls taken = timer->take(kWorld);
  REQUIRE(taken.calls.size() == started);
  std::size_t untracked = 0;
  for (const TimedCall& call : taken.calls) untracked += call.ending == Ending::untracked ? 1 : 0;
  CHECK(untracked == 100);
  // Every slot came back: as many can be followed again.
  for (std::size_t i = 0; i < CollectiveTimer::kMaxOpen; ++i)
    timer->start(started_at(4.0), 4.0, RequestId{50000 + i}, true);
  CHECK(complete(*timer, RequestId{50000 + CollectiveTimer::kMaxOpen - 1}, 5.0, 6.0));
}

TEST_CASE("the request index finds, forgets and refinds handles through collisions",
          "[protocol][collectives][nonblocking]") {
  RequestIndex index(64);
  // Pointer-like handles 64 bytes apart, and small ints: both kinds MPI uses.
  for (std::uint32_t i = 0; i < 64; ++i)
    REQUIRE(index.insert(RequestId{0x7f0000001000 + 64 * std::uintptr_t{i}}, i));
  CHECK_FALSE(index.insert(RequestId{1}, 99));  // full
  for (std::uint32_t i = 0; i < 64; i += 2)
    index.erase(RequestId{0x7f0000001000 + 64 * std::uintptr_t{i}}, i);
  CHECK(index.size() == 32);
  for (std::uint32_t i = 0; i < 64; ++i) {
    const std::uint32_t expected = i % 2 == 0 ? RequestIndex::kNone : i;
    CHECK(index.find(RequestId{0x7f0000001000 + 64 * std::uintptr_t{i}}) == expected);
  }
  CHECK(index.find(RequestId{1}) == RequestIndex::kNone);
  index.erase(RequestId{1}, 1);                    // not there: nothing happens
  index.erase(RequestId{0x7f0000001000 + 64}, 2);  // there, under another slot: it stays
  CHECK(index.find(RequestId{0x7f0000001000 + 64}) == 1);
  CHECK(index.size() == 32);
}

TEST_CASE("the request index agrees with a map over many inserts and erases",
          "[protocol][collectives][nonblocking]") {
  RequestIndex index(256);
  std::vector<std::uintptr_t> in;  // what the index holds, in insertion order
  std::uint64_t state = 12345;
  const auto next = [&state] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  };
  for (int step = 0; step < 20000; ++step) {
    if (in.size() < 256 && next() % 2 == 0) {
      // Few distinct values, so that homes collide and clusters form.
      const std::uintptr_t id = 0x1000 + 8 * (next() % 4096);
      if (std::find(in.begin(), in.end(), id) != in.end()) continue;
      REQUIRE(index.insert(RequestId{id}, static_cast<std::uint32_t>(id)));
      in.push_back(id);
    } else if (!in.empty()) {
      const std::size_t at = next() % in.size();
      index.erase(RequestId{in[at]}, static_cast<std::uint32_t>(in[at]));
      in.erase(in.begin() + static_cast<std::ptrdiff_t>(at));
    }
    REQUIRE(index.size() == in.size());
  }
  for (const std::uintptr_t id : in) CHECK(index.find(RequestId{id}) == id);
  for (std::uintptr_t id = 0x1000; id < 0x1000 + 8 * 4096; id += 8)
    if (std::find(in.begin(), in.end(), id) == in.end())
      REQUIRE(index.find(RequestId{id}) == RequestIndex::kNone);
}

TEST_CASE("a handle given out again before its last request's completion was told stays apart",
          "[protocol][collectives][nonblocking]") {
  // MPI_THREAD_MULTIPLE: thread A's MPI_Wait completes request 9 inside MPI;
  // before A tells the timer, thread B starts a call that MPI gives handle 9.
  ManualSource source;
  const auto timer = timer_on(source);
  timer->start(started_at(1.0), 1.1, RequestId{9}, true);
  const std::uint32_t a = timer->find(RequestId{9});
  timer->start(started_at(2.0, Collective::ibcast), 2.1, RequestId{9}, true);
  const std::uint32_t b = timer->find(RequestId{9});
  CHECK(b != a);                 // B's call, not A's
  timer->complete(a, 3.0, 3.5);  // A tells, through the slot it looked up
  CHECK(timer->find(RequestId{9}) == b);
  CHECK(complete(*timer, RequestId{9}, 4.0, 4.5));
  CHECK_FALSE(timer->tracking());
  const PendingCalls taken = timer->take(kWorld);
  REQUIRE(taken.calls.size() == 2);
  CHECK(taken.calls[0].exit == 3.5);
  CHECK(taken.calls[1].exit == 4.5);
  CHECK(taken.calls[1].ending == Ending::completed);
}
