// The harmonized barrier (paper 000, Algorithm 1) on the simulator: N
// processes with known clocks and latencies run the library's own
// BarrierProtocol, and every call is checked against the truth, exactly and
// without mpiexec.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "harmonize/arrival/arrival_delays.hpp"
#include "harmonize/logic/barrier_decision.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/protocol/barrier_protocol.hpp"
#include "sync/hierarchical_sync.hpp"
#include "sync_sim_helpers.hpp"

using harmonize::protocol::BarrierProtocol;
using harmonize::protocol::CommClock;
using harmonize::protocol::ProtocolSettings;
namespace clk = harmonize::clock;
namespace logic = harmonize::logic;
namespace sim = harmonize::sync::simulator;
namespace hsync = harmonize::sync;

namespace {

// The process's own (skewed) clock, which a scheduler may take away: the
// `reads`-th read from now comes `duration` later. In a harmonized call a
// process other than rank 0 reads its clock at entry (1st), when the deadline
// has arrived (2nd), then while spinning (3rd on).
class PreemptibleClock final : public clk::TimeSource {
 public:
  explicit PreemptibleClock(sim::SimProcess& self) : self_(self) {}
  double now() const noexcept override {
    if (reads_left_ > 0 && --reads_left_ == 0) self_.advance(duration_);
    return self_.now();
  }
  const char* name() const noexcept override { return "preemptible"; }
  void preempt(int reads, double duration) {
    reads_left_ = reads;
    duration_ = duration;
  }

 private:
  sim::SimProcess& self_;
  mutable int reads_left_ = 0;
  double duration_ = 0;
};

// The untouched true time, read without cost (the test's ground truth).
class TrueClock final : public clk::TimeSource {
 public:
  explicit TrueClock(const sim::SimProcess& self) : self_(self) {}
  double now() const noexcept override { return self_.true_now(); }
  const char* name() const noexcept override { return "truth"; }

 private:
  const sim::SimProcess& self_;
};

// A communicator clock synchronized with H2HCA over the simulated network.
class SimCommClock final : public CommClock {
 public:
  SimCommClock(hsync::Transport& group, const clk::TimeSource& local, const clk::TimeSource& truth,
               double interval)
      : sync_(group, hsync::Settings{}, hsync::Placement{group.rank(), -1}),
        base_(local, {}),
        clock_(base_),
        truth_(truth),
        interval_(interval) {
    resync();  // the world sync at MPI_Init
    resynced_at.clear();
  }
  bool ready() const override { return true; }
  const clk::GlobalClock& clock() const override { return clock_; }
  double last_sync() const override { return last_sync_; }
  double expires_at() const override { return expires_at_; }
  void resync() override {
    resynced_at.push_back(truth_.now());
    clock_ = sync_.synchronize(base_);
    ++syncs_;
    last_sync_ = clock_.now();
    expires_at_ = last_sync_ + logic::resync_interval(syncs_, interval_);
  }
  std::vector<double> resynced_at;  // true times

 private:
  hsync::HierarchicalSync sync_;
  clk::GlobalClock base_;
  clk::GlobalClock clock_;
  const clk::TimeSource& truth_;
  double interval_;
  int syncs_ = 0;
  double last_sync_ = 0;
  double expires_at_ = 0;
};

struct Call {
  double enter_truth = 0;
  double exit_truth = 0;
  double exit_global = 0;
  int flag = -1;
  double delay = 0;        // HARMONIZE_ARRIVAL's for this process and call
  clk::ModelStack models;  // of the global clock at the exit
};

struct Scenario {
  int processes = 4;
  int calls = 600;
  double work = 1e-3;     // true time between calls
  double interval = 1.0;  // HARMONIZE_RESYNC_INTERVAL
  std::optional<double> slack;
  std::optional<double> slack_min;
  std::optional<double> slack_max;
  double miss_target = 0.0025;
  sim::Latency latency;
  // (process, call, at which of its clock reads, duration): preemptions
  struct Preemption {
    int process;
    int call;
    int read;
    double duration;
  };
  std::vector<Preemption> preemptions;
  std::optional<harmonize::ArrivalPattern> arrival;
  std::uint64_t seed = 3;
};

struct Run {
  std::vector<std::vector<Call>> calls;  // [process][call]
  std::vector<logic::CommRecord> records;
  std::vector<double> resynced_at;  // rank 0's, true times
};

Run run(const Scenario& scenario, sim::SimWorld& world) {
  Run result;
  const auto n = static_cast<std::size_t>(scenario.processes);
  result.calls.resize(n);
  result.records.resize(n);
  std::mutex mutex;
  world.run([&](sim::SimProcess& self, hsync::Transport& transport) {
    PreemptibleClock local(self);
    TrueClock truth(self);
    SimCommClock clock(transport, local, truth, scenario.interval);
    ProtocolSettings settings;
    settings.slack = scenario.slack;
    settings.slack_min = scenario.slack_min;
    settings.slack_max = scenario.slack_max;
    settings.miss_target = scenario.miss_target;
    settings.truth = &truth;
    settings.record_truth = true;
    if (scenario.arrival)
      settings.arrival.emplace(*scenario.arrival, harmonize::arrival::ArrivalPlace{
                                                      transport.rank(), transport.size(), 0});
    logic::CommRecord record;
    record.key = {0, 1};
    record.rank = transport.rank();
    record.stats.name = "simulated";
    record.stats.size = transport.size();
    BarrierProtocol protocol(transport, clock, settings, record);
    std::vector<Call> calls;
    for (int i = 0; i < scenario.calls; ++i) {
      self.advance(scenario.work * (1.0 + 0.1 * ((i * 7 + transport.rank() * 3) % 5)));
      Call call;
      call.enter_truth = self.true_now();
      for (const auto& p : scenario.preemptions) {
        if (p.process == transport.rank() && p.call == i) local.preempt(p.read, p.duration);
      }
      call.flag = protocol.harmonized();
      call.delay = protocol.last_delay();
      call.exit_truth = self.true_now();
      call.exit_global = clock.clock().now();
      call.models = clock.clock().models();
      calls.push_back(call);
    }
    std::lock_guard lock(mutex);
    const auto me = static_cast<std::size_t>(transport.rank());
    result.calls[me] = std::move(calls);
    result.records[me] = protocol.final_record();
    if (me == 0) result.resynced_at = clock.resynced_at;
  });
  return result;
}

double true_skew(const Run& run, std::size_t call) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& calls : run.calls) {
    lo = std::min(lo, calls[call].exit_truth);
    hi = std::max(hi, calls[call].exit_truth);
  }
  return hi - lo;
}

// How far the processes' global clocks disagree at true time `t` (the
// clock error bound of that call), from each one's models and true clock.
double clock_disagreement(const sim::SimWorld& world, const Run& run, std::size_t call, double t) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t p = 0; p < run.calls.size(); ++p) {
    const double global = run.calls[p][call].models.apply(world.local_time(static_cast<int>(p), t));
    lo = std::min(lo, global);
    hi = std::max(hi, global);
  }
  return hi - lo;
}

// Nobody left `call` before the last one entered it (true times).
bool stayed_a_barrier(const Run& run, std::size_t call) {
  double last_entry = 0, first_exit = std::numeric_limits<double>::infinity();
  for (const auto& calls : run.calls) {
    last_entry = std::max(last_entry, calls[call].enter_truth);
    first_exit = std::min(first_exit, calls[call].exit_truth);
  }
  return first_exit >= last_entry;
}

bool resynced_during(const Run& run, std::size_t call) {
  const Call& c = run.calls[0][call];
  return std::any_of(run.resynced_at.begin(), run.resynced_at.end(),
                     [&](double t) { return t >= c.enter_truth && t <= c.exit_truth; });
}

logic::MergedCommunicator merged(const Run& run) {
  std::vector<std::vector<logic::CommRecord>> by_process;
  for (const auto& record : run.records) by_process.push_back({record});
  return logic::merge_records(by_process, true).front();
}

std::size_t missed_any(const Run& run, std::size_t from, std::size_t to) {
  std::size_t count = 0;
  for (std::size_t call = from; call < to; ++call) {
    bool any = false;
    for (const auto& calls : run.calls) any = any || calls[call].flag == 0;
    count += any ? 1 : 0;
  }
  return count;
}

// `processes` processes, `calls` calls, a slack the controller may not move.
Scenario fixed_slack(int processes, int calls, double slack) {
  Scenario scenario;
  scenario.processes = processes;
  scenario.calls = calls;
  scenario.slack = scenario.slack_min = scenario.slack_max = slack;
  return scenario;
}

sim::SimSpec spec(const Scenario& scenario) {
  auto s = harmonize::sync::testing::spec_for(
      harmonize::sync::testing::nodes_of(scenario.processes, {1}), scenario.seed);
  s.latency = scenario.latency;
  return s;
}

// `scenario` on a world of its own, for a test that asks nothing of the world.
Run run(const Scenario& scenario) {
  sim::SimWorld world(spec(scenario));
  return run(scenario, world);
}

}  // namespace

TEST_CASE("the harmonized barrier stays a barrier and leaves within the clock error",
          "[protocol][sim]") {
  Scenario scenario;
  scenario.processes = GENERATE(2, 5, 8);
  sim::SimWorld world(spec(scenario));
  const Run result = run(scenario, world);
  INFO("processes " << scenario.processes);
  const double read_step = spec(scenario).latency.clock_read;
  std::size_t successful = 0;
  for (std::size_t call = 0; call < result.calls[0].size(); ++call) {
    // Nobody leaves before the last one has entered: exact, every call.
    REQUIRE(stayed_a_barrier(result, call));
    bool all_in_time = true;
    for (const auto& calls : result.calls) all_in_time = all_in_time && calls[call].flag == 1;
    if (!all_in_time) continue;
    ++successful;
    // Everybody left at the first clock read past one deadline: the true
    // skew is the clocks' disagreement there, plus a clock read.
    const double exit = result.calls[0][call].exit_truth;
    REQUIRE(true_skew(result, call) <=
            clock_disagreement(world, result, call, exit) + 2 * read_step + 1e-12);
  }
  CHECK(successful > result.calls[0].size() * 9 / 10);
  // What the library saw agrees with the truth: no space violation, and its
  // own exit skews are small.
  const auto comm = merged(result);
  CHECK(comm.space_violations == 0u);
  CHECK(comm.summary.harmonized_calls == static_cast<std::uint64_t>(scenario.calls));
  CHECK(comm.summary.exit_skew.percentile(50.0) < 100e-9);
}

TEST_CASE("every miss is counted, per process and per call", "[protocol][sim]") {
  Scenario scenario;
  scenario.processes = 4;
  scenario.calls = 400;
  // Process 2 is descheduled for 300 us as the deadline of calls 100 and 260
  // arrives: it looks at its clock after the deadline passed.
  scenario.preemptions = {{2, 100, 2, 300e-6}, {2, 260, 2, 300e-6}};
  const Run result = run(scenario);
  for (std::size_t p = 0; p < result.calls.size(); ++p) {
    std::uint64_t missed = 0;
    for (const Call& call : result.calls[p]) missed += call.flag == 0 ? 1 : 0;
    CHECK(result.records[p].stats.missed_calls == missed);
  }
  CHECK(result.calls[2][100].flag == 0);
  CHECK(result.calls[2][260].flag == 0);
  const auto comm = merged(result);
  CHECK(comm.summary.missed_calls_any == missed_any(result, 0, result.calls[0].size()));
  CHECK(comm.summary.missed_calls_any >= 2u);
  CHECK(comm.summary.missed_events_per_rank[2] >= 2u);
}

TEST_CASE("a process preempted mid-spin leaves late: still a barrier, seen in the exit skew",
          "[protocol][sim]") {
  // The flag of Algorithm 1 is decided before the spin, so this call is not
  // flagged (issue 10 adds late exits); the library's own exit skew shows it.
  Scenario scenario = fixed_slack(3, 200, 50e-6);
  // 100 reads (2 us) into its spin towards a deadline ~50 us away, process 1
  // is descheduled for 200 us.
  scenario.preemptions = {{1, 120, 100, 200e-6}};
  const Run result = run(scenario);
  for (std::size_t call = 0; call < result.calls[0].size(); ++call)
    REQUIRE(stayed_a_barrier(result, call));
  CHECK(true_skew(result, 120) > 150e-6);
  const auto comm = merged(result);
  CHECK(comm.summary.exit_skew.max() > 150e-6);
  CHECK(comm.summary.exit_skew.percentile(50.0) < 100e-9);
}

TEST_CASE("the slack adapts: a slack far too small grows, far too large shrinks",
          "[protocol][sim]") {
  Scenario scenario;
  scenario.processes = 4;
  scenario.calls = 3000;
  scenario.work = 20e-6;
  scenario.interval = 1000.0;
  // 1 % of messages 20 us late: no slack prevents every miss.
  SECTION("from 1 ns") {
    scenario.slack = 1e-9;
    scenario.slack_min = 1e-9;
    const Run result = run(scenario);
    const auto comm = merged(result);
    INFO("final slack " << comm.summary.slack_final);
    // Without adaptation nearly every call would miss; a miss brings the
    // first choice forward from the 16th call (it lost 11 of 16 when it
    // did not).
    CHECK(missed_any(result, 0, 16) >= 1u);
    CHECK(missed_any(result, 0, 16) <= 4u);
    CHECK(missed_any(result, 16, 100) < 10u);
    CHECK(missed_any(result, 1500, 3000) < 1500u * 2 / 100);
    CHECK(comm.summary.slack_final > 100 * 1e-9);
  }
  SECTION("from 200 us") {
    // The cost-based choice (every 256 calls) takes it down to what the
    // calls need.
    scenario.calls = 10000;
    scenario.slack = 200e-6;
    const Run result = run(scenario);
    const auto comm = merged(result);
    INFO("final slack " << comm.summary.slack_final);
    CHECK(comm.summary.slack_final < 50e-6);
    // Shrinking stops where misses appear: near the 0.5 % budget, not at 0.
    CHECK(missed_any(result, 5000, 10000) >= 1u);
    CHECK(missed_any(result, 5000, 10000) < 5000u * 2 / 100);
  }
}

TEST_CASE("resyncs come on expiry (the ramp), not after a miss the clock cannot explain",
          "[protocol][sim]") {
  Scenario scenario;
  scenario.processes = 3;
  scenario.calls = 1000;  // ~1.15 ms each: 1.15 s of true time
  scenario.work = 1e-3 / 1.2;
  scenario.interval = 1000.0;
  scenario.slack = 20e-6;
  scenario.slack_min = 20e-6;
  scenario.slack_max = 20e-6;                // the misses below are made to measure
  scenario.latency.outlier_probability = 0;  // no miss but the ones made below
  sim::SimWorld quiet_world(spec(scenario));
  const Run quiet = run(scenario, quiet_world);
  // Expiry only: 10, 30, 90, 270 ms after each sync, at ~10, 40, 130 and
  // 400 ms (the next, 810 ms later, is past the end).
  CHECK(quiet.resynced_at.size() == 4);
  CHECK(missed_any(quiet, 0, quiet.calls[0].size()) == 0u);
  CHECK(quiet.records[0].stats.resyncs == 4);
  // Call 600 is ~300 ms after the sync at ~400 ms; call 355 ~5 ms after it.
  REQUIRE(!resynced_during(quiet, 601));
  REQUIRE(!resynced_during(quiet, 356));

  SECTION("three misses in a row within the clock's error bound do") {
    // Process 1 looks at its clock just after three deadlines in a row
    // (preempted for the slack and ~100 ns more), as a clock running ahead
    // would make it: the clock may be at fault.
    scenario.preemptions = {{1, 600, 2, 20.1e-6}, {1, 601, 2, 20.1e-6}, {1, 602, 2, 20.1e-6}};
    const Run result = run(scenario);
    for (int call : {600, 601, 602})
      CHECK(result.calls[1][static_cast<std::size_t>(call)].flag == 0);
    CHECK(resynced_during(result, 603));
    CHECK(result.resynced_at.size() == 5);
  }
  // Process 1 misses `call` by 480 us (descheduled for 500 us): flagged, and
  // no resync follows.
  const auto one_late_miss = [&scenario](std::size_t call) {
    scenario.preemptions = {{1, static_cast<int>(call), 2, 500e-6}};
    const Run result = run(scenario);
    CHECK(result.calls[1][call].flag == 0);
    CHECK(!resynced_during(result, call + 1));
    CHECK(result.resynced_at.size() == 4);
  };
  SECTION("a miss by 480 us, 300 ms after the last sync, does not") {
    // Paper 000 resyncs after every miss; two clocks within their error
    // bounds cannot make a process miss by 480 us: a descheduled process can.
    one_late_miss(600);
  }
  SECTION("a miss 5 ms after a sync does not") {
    one_late_miss(356);
  }
}

TEST_CASE("an arrival pattern is what the processes leave with, within the clock error",
          "[protocol][sim][arrival]") {
  Scenario scenario;
  scenario.processes = GENERATE(2, 5);
  scenario.calls = 300;
  harmonize::ArrivalPattern pattern;
  pattern.kind = GENERATE(harmonize::ArrivalKind::linear, harmonize::ArrivalKind::random);
  pattern.delay = 50e-6;
  pattern.seed = 11;
  scenario.arrival = pattern;
  sim::SimWorld world(spec(scenario));
  const Run result = run(scenario, world);
  INFO("processes " << scenario.processes << ", pattern " << static_cast<int>(pattern.kind));
  const double read_step = spec(scenario).latency.clock_read;
  const auto n = static_cast<std::size_t>(scenario.processes);
  std::size_t followed = 0;
  for (std::size_t call = 0; call < result.calls[0].size(); ++call) {
    REQUIRE(stayed_a_barrier(result, call));
    bool all_in_time = true;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, largest = 0;
    for (std::size_t p = 0; p < n; ++p) {
      const Call& c = result.calls[p][call];
      // Every process computed its own delay, as the pattern says.
      REQUIRE(c.delay == harmonize::arrival::arrival_delay(
                             pattern, {static_cast<int>(p), scenario.processes, 0},
                             static_cast<std::uint64_t>(call)));
      all_in_time = all_in_time && c.flag == 1;
      lo = std::min(lo, c.exit_truth - c.delay);
      hi = std::max(hi, c.exit_truth - c.delay);
      largest = std::max(largest, c.delay);
    }
    if (!all_in_time) continue;
    ++followed;
    // The exits less their delays are one instant: the clocks' disagreement
    // there plus a read, and the clocks' drift over the delay (a delay is
    // measured on the global clock, the truth on the true one).
    const double exit = result.calls[0][call].exit_truth;
    REQUIRE(hi - lo <=
            clock_disagreement(world, result, call, exit) + 2 * read_step + 1e-3 * largest + 1e-12);
  }
  CHECK(followed > result.calls[0].size() * 9 / 10);
  // The library measures its exits against the pattern too.
  const auto comm = merged(result);
  CHECK(comm.space_violations == 0u);
  CHECK(comm.summary.exit_skew.percentile(50.0) < 100e-9);
}

TEST_CASE("a delayed process that missed the deadline still leaves on the pattern",
          "[protocol][sim][arrival]") {
  Scenario scenario = fixed_slack(3, 200, 5e-6);
  harmonize::ArrivalPattern pattern;
  pattern.kind = harmonize::ArrivalKind::rank;
  pattern.late = {2};
  pattern.delay = 100e-6;
  scenario.arrival = pattern;
  // Process 2 learns the deadline 30 us late (its second read): a miss, yet
  // its exit instant, 100 us after the deadline, is still ahead. (It holds
  // the agreement up for some of the others too, who miss it with it.)
  scenario.preemptions = {{2, 120, 2, 30e-6}};
  sim::SimWorld world(spec(scenario));
  const Run result = run(scenario, world);
  const Call& late = result.calls[2][120];
  REQUIRE(late.flag == 0);  // the miss is counted
  REQUIRE(late.delay == pattern.delay);
  const Call& in_time = result.calls[0][120];
  REQUIRE(in_time.flag == 1);  // left at the deadline
  // The delayed process left at its own instant, the deadline plus its
  // delay, not when it learned the deadline.
  CHECK(std::abs((late.exit_truth - late.delay) - in_time.exit_truth) <=
        clock_disagreement(world, result, 120, in_time.exit_truth) +
            2 * spec(scenario).latency.clock_read + 1e-3 * pattern.delay + 1e-12);
  CHECK(merged(result).summary.missed_calls_any >= 1);
}
