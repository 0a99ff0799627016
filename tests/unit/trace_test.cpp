#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/collective_kind.hpp"
#include "config/trace_window.hpp"
#include "harmonize/trace/call_window.hpp"
#include "harmonize/trace/events.hpp"
#include "harmonize/trace/packed_bytes.hpp"

using harmonize::Collective;
using harmonize::TraceWindow;
using harmonize::config::parse_trace_window;
using harmonize::config::trace_window_text;
using namespace harmonize::trace;

namespace {

std::vector<int> kept_of(TraceWindow window, int calls) {
  CallWindow<int> w(window);
  for (int i = 0; i < calls; ++i) w.add(static_cast<std::uint64_t>(i), i);
  auto kept = w.kept();
  CHECK(w.seen() == static_cast<std::uint64_t>(calls));
  CHECK(w.dropped() == static_cast<std::uint64_t>(calls) - kept.size());
  return kept;
}

TraceWindow parsed(const char* text) {
  std::string why;
  const auto window = parse_trace_window(text, why);
  INFO(why);
  REQUIRE(window);
  return *window;
}

}  // namespace

TEST_CASE("the trace window keeps the first and the last N calls, all, or a range", "[trace]") {
  CHECK(kept_of(parsed("3"), 2) == std::vector<int>{0, 1});
  CHECK(kept_of(parsed("3"), 6) == std::vector<int>{0, 1, 2, 3, 4, 5});
  CHECK(kept_of(parsed("3"), 11) == std::vector<int>{0, 1, 2, 8, 9, 10});
  CHECK(kept_of(parsed("3"), 8) == std::vector<int>{0, 1, 2, 5, 6, 7});
  CHECK(kept_of(parsed("all"), 5) == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(kept_of(parsed("2:4"), 10) == std::vector<int>{2, 3});
  CHECK(kept_of(parsed("20:30"), 10).empty());
}

TEST_CASE("released events still count as kept, not dropped", "[trace]") {
  CallWindow<int> w(parsed("3"));
  for (int i = 0; i < 11; ++i) w.add(static_cast<std::uint64_t>(i), i);
  w.release();
  CHECK(w.kept().empty());
  CHECK(w.seen() == 11);
  CHECK(w.dropped() == 5);
}

TEST_CASE("packed bytes carry what was appended, whatever its length", "[trace]") {
  PackedBytes packed;
  CHECK(packed.bytes().empty());
  packed.append_value(std::int32_t{-7});
  packed.append("abcde");  // not a multiple of 8 with the 4 before
  packed.append(std::string_view());
  packed.append("fghijklmnopq");
  const std::string expected_tail = "abcdefghijklmnopq";
  REQUIRE(packed.bytes().size() == 4 + expected_tail.size());
  CHECK(packed.bytes().substr(4) == expected_tail);
  const std::vector<double> words = packed.take();
  CHECK(words.size() == 1 + (4 + expected_tail.size() + 7) / 8);
  CHECK(packed.bytes().empty());
  const auto carried = unpacked(words);
  REQUIRE(carried);
  CHECK(carried->substr(4) == expected_tail);
  std::int32_t first = 0;
  std::memcpy(&first, carried->data(), sizeof first);
  CHECK(first == -7);
  // A count beyond the message is refused, an empty message too.
  std::vector<double> lying = words;
  const std::uint64_t too_many = 8 * words.size();
  std::memcpy(lying.data(), &too_many, sizeof too_many);
  CHECK_FALSE(unpacked(lying));
  CHECK_FALSE(unpacked(std::vector<double>{}));
}

TEST_CASE("trace windows are read and written back, and bad ones say why", "[trace][config]") {
  for (const char* text : {"1000", "all", "10:20", "1"})
    CHECK(trace_window_text(parsed(text)) == text);
  std::string why;
  CHECK_FALSE(parse_trace_window("0", why));
  CHECK(why == "'0' is not a whole number from 1, all, nor A:B");
  CHECK_FALSE(parse_trace_window("5:5", why));
  CHECK(why == "the range '5:5' holds no call (B must be above A)");
  // The value is shown escaped and cut, as everywhere else (an escape code
  // once reached the terminal; 300 characters made a 605-character line).
  CHECK_FALSE(parse_trace_window("1:\x1b[2J", why));
  CHECK(why == "'1:\\x1b[2J' is not two whole numbers A:B");
  CHECK_FALSE(parse_trace_window(std::string(300, '7') + ":x", why));
  CHECK(why.size() < 130);
  CHECK_FALSE(parse_trace_window("a:5", why));
  CHECK_FALSE(parse_trace_window("-3", why));
}

TEST_CASE("a process's events are trace-event JSON on the shared origin", "[trace]") {
  RankTrace trace(parsed("all"));
  trace.first_sync = SyncEvent{9.0, 10.0, true};
  CommTrace& world = trace.comm("MPI_COMM_WORLD");
  world.barriers.add(0, {.entry = 10.5,
                         .exit = 10.500002,
                         .deadline = 10.500001,
                         .slack = 1e-6,
                         .bound = 50e-9,
                         .delay = 1e-6,
                         .harmonized = true,
                         .late = true,
                         .index = 0});
  world.collectives.add(0, {.entry = 10.6,
                            .exit = 10.6001,
                            .bytes = 8,
                            .index = 0,
                            .operation = 0,
                            .root = -1,
                            .after_valid_barrier = true});
  // Non-blocking: 60 us of the program's own work in a call of 100 us.
  world.collectives.add(1, {.entry = 10.7,
                            .exit = 10.7001,
                            .bytes = 8,
                            .index = 1,
                            .overlap = 60e-6,
                            .operation = static_cast<int>(Collective::iallreduce)});
  CommTrace& sub = trace.comm("comm\"1");
  sub.barriers.add(0, {.entry = 11, .exit = 11.5, .bound = 1e-6, .index = 0});
  const std::string text =
      file_head(10.0) + render_events(trace, {.node = 1, .rank = 3, .origin = 10.0}, "node 1 (h)") +
      file_tail("all", 4, 7);
  const nlohmann::json json = nlohmann::json::parse(text);
  CHECK(json["displayTimeUnit"] == "ns");
  CHECK(json["otherData"]["dropped_events"] == 7);
  CHECK(json["otherData"]["ranks"] == 4);
  const auto& events = json["traceEvents"];
  const auto find = [&](const std::string& name, const std::string& phase) {
    for (const auto& e : events)
      if (e["name"] == name && e["ph"] == phase) return e;
    FAIL("no " << name);
    return nlohmann::json();
  };
  CHECK(find("process_name", "M")["args"]["name"] == "node 1 (h)");
  CHECK(find("thread_name", "M")["args"]["name"] == "rank 3");
  const auto barrier = find("MPI_Barrier", "X");
  CHECK(barrier["pid"] == 1);
  CHECK(barrier["tid"] == 3);
  CHECK(barrier["ts"].get<double>() == Approx(500000.0));
  CHECK(barrier["dur"].get<double>() == Approx(2.0));
  CHECK(barrier["args"]["deadline_us"].get<double>() == Approx(500001.0));
  CHECK(barrier["args"]["flag"] == 0);
  CHECK(barrier["args"]["delay_us"].get<double>() == Approx(1.0));
  CHECK(find("late exit", "i")["args"]["late_by_us"].get<double>() == Approx(0.0).margin(1e-3));
  const auto allreduce = find("MPI_Allreduce", "X");
  CHECK(allreduce["args"]["bytes"] == 8);
  CHECK(allreduce["args"]["after_valid_barrier"] == true);
  CHECK(allreduce["args"].count("root") == 0);
  CHECK(allreduce["args"].count("overlap_us") == 0);  // blocking
  const auto iallreduce = find("MPI_Iallreduce", "X");
  CHECK(iallreduce["args"]["overlap_us"].get<double>() == Approx(60.0));
  CHECK(iallreduce["args"]["overlap_worked"] == true);
  CHECK(find("clock sync", "X")["ts"].get<double>() == Approx(-1e6));
  // An observed call has no deadline; a quote in a name is escaped.
  bool observed = false;
  for (const auto& e : events)
    if (e["name"] == "MPI_Barrier" && e["args"]["comm"] == "comm\"1") {
      observed = true;
      CHECK(e["args"]["harmonized"] == false);
      CHECK(e["args"].count("deadline_us") == 0);
    }
  CHECK(observed);
}

TEST_CASE("a timeline without events is a valid file", "[trace]") {
  RankTrace trace(parsed("5:6"));
  trace.comm("MPI_COMM_WORLD").barriers.add(0, {});
  const nlohmann::json json =
      nlohmann::json::parse(file_head(0) + render_events(trace, {}, "") + file_tail("5:6", 1, 1));
  for (const auto& e : json["traceEvents"]) CHECK(e["ph"] == "M");
}
