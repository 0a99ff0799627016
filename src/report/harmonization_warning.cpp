#include "report/harmonization_warning.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "report/format.hpp"

namespace harmonize::report {
namespace {

std::string percentile(const Distribution& d, double p) {
  return format_duration(d.percentile(p));
}

// A duration as the policy reads it ("29.9us"), rounded up.
std::string as_setting(double seconds) {
  const bool millis = seconds >= 1e-3;
  const double value = std::ceil((millis ? seconds * 1e3 : seconds * 1e6) * 10) / 10;
  char text[32];
  std::snprintf(text, sizeof text, "%g%s", value, millis ? "ms" : "us");
  return text;
}

// Misses that follow the program's own time between barriers: microseconds
// late where the work between calls is long beside the needs. Nothing
// descheduled anybody; the agreement after the work is slower than back to
// back, and a larger slack is what helps.
std::string long_work_cause(const CommSummary& comm) {
  return "the program's own time between barriers (median " + percentile(comm.between_calls, 50) +
         "): after it the agreement takes longer than back to back (needs p50 " +
         percentile(comm.need, 50) + ", p90 " + percentile(comm.need, 90) + ", p99 " +
         percentile(comm.need, 99) + "; missed calls were " + percentile(comm.lateness, 50) +
         " late at the median; the slack ended at " + format_duration(comm.slack_final) +
         "). HARMONIZE_SLACK_MIN=" + as_setting(comm.need.percentile(99.0)) +
         " covers 99 % of them";
}

bool misses_follow_long_work(const CommSummary& comm) {
  if (comm.need.empty() || comm.between_calls.empty() || comm.lateness.empty()) return false;
  return comm.lateness.percentile(50.0) < kDescheduledLateness &&
         comm.between_calls.percentile(50.0) > kLongWorkFactor * comm.need.percentile(50.0);
}

std::string likely_cause(const RunConditions& run) {
  if (run.oversubscribed) {
    return std::to_string(run.node_ranks) + " ranks share " + std::to_string(run.node_cores) +
           (run.node_cores == 1 ? " core" : " cores") +
           " on a node (more ranks than cores: a rank waiting for its deadline is often not "
           "running when it comes)";
  }
  // Our own ranks keep their cores busy; load beyond them is somebody else's.
  if (run.load_average >= 0 && run.load_average > run.ranks_here + 0.5) {
    char load[32];
    std::snprintf(load, sizeof load, "%.1f", run.load_average);
    return std::string("other processes compete for the cores (load average ") + load + " with " +
           std::to_string(run.ranks_here) + " ranks of this job on the node)";
  }
  return "processes were descheduled while waiting for their deadlines (a noisy or loaded node)";
}

}  // namespace

std::string harmonization_warning(const CommSummary& comm, const RunConditions& run) {
  if (comm.harmonized_calls < kMinCallsForWarning) return {};
  std::vector<std::string> symptoms;
  if (comm.failure_rate > std::max(kUnreliableFailureRate, run.miss_target)) {
    char text[128];
    std::snprintf(text, sizeof text,
                  "%.1f%% of harmonized barriers missed their deadline (budget %.3g%%)",
                  100.0 * comm.failure_rate, 100.0 * run.miss_target);
    symptoms.push_back(text);
  }
  if (comm.late_rate > kUnreliableFailureRate) {
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * comm.late_rate);
    symptoms.push_back(std::string(percent) +
                       " of harmonized barriers had a process leave late (descheduled while "
                       "waiting for the deadline)");
  }
  if (!comm.exit_skew.empty() && comm.exit_skew.percentile(50.0) > kHarmonizedSkewLimit) {
    symptoms.push_back("exit skew p50 " + format_duration(comm.exit_skew.percentile(50.0)) +
                       " (a working harmonized barrier stays below " +
                       format_duration(kHarmonizedSkewLimit) + ")");
  }
  // A slack that ran away after a burst of misses (it shrinks by a small
  // step per call) makes every call wait for it: the misses look rare and
  // the skew fine, but the benchmark is slowed down many times. An arrival
  // pattern's delays are waited for on purpose (by the delayed process in
  // its spin, by the others in the next call): they are not the slack's.
  // A call that waited for the others to arrive (a program whose ranks work
  // unevenly between barriers) is long whatever the slack: only a slack that
  // grew to half the time in the call explains it.
  const double mean_in_call = comm.time_in_call.empty() ? 0.0 : comm.time_in_call.mean();
  const double beyond_pattern = mean_in_call - std::max(0.0, run.imposed_delay);
  if (comm.slack_initial > 0 && beyond_pattern > kRunawayFactor * comm.slack_initial &&
      beyond_pattern > kRunawayFloor && comm.slack_max >= beyond_pattern / 2) {
    const std::string pattern = run.imposed_delay > 0 ? " beyond the arrival pattern's " +
                                                            format_duration(run.imposed_delay)
                                                      : std::string();
    symptoms.push_back("mean time in the call " + format_duration(beyond_pattern) + pattern + ", " +
                       std::to_string(static_cast<long long>(beyond_pattern / comm.slack_initial)) +
                       "x the initial slack " + format_duration(comm.slack_initial) +
                       " (the slack grew after misses and every call waits for it)");
  }
  if (symptoms.empty()) return {};
  std::string line = comm.name + ": " + symptoms.front();
  for (std::size_t i = 1; i < symptoms.size(); ++i) line += ", and " + symptoms[i];
  const bool long_work = comm.failure_rate > kUnreliableFailureRate && !run.oversubscribed &&
                         misses_follow_long_work(comm);
  line += ". Likely cause: " + (long_work ? long_work_cause(comm) : likely_cause(run));
  if (comm.failure_rate > kUnreliableFailureRate && !long_work) {
    line += ", or the slack is capped too low (HARMONIZE_SLACK_MAX)";
  }
  if (long_work)
    return line +
           ". Timings taken after the missed barriers are not synchronized: discard them (their "
           "flag is 0, MPIX_Harmonize_last_flag) or give the slack that much";
  return line +
         ". Timings taken after these barriers are not synchronized: rerun with at most one rank "
         "per core on an idle node";
}

}  // namespace harmonize::report
