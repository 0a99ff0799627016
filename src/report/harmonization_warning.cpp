#include "report/harmonization_warning.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "report/format.hpp"

namespace harmonize::report {
namespace {

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
  const double mean_in_call = comm.time_in_call.empty() ? 0.0 : comm.time_in_call.mean();
  const double beyond_pattern = mean_in_call - std::max(0.0, run.imposed_delay);
  if (comm.slack_initial > 0 && beyond_pattern > kRunawayFactor * comm.slack_initial &&
      beyond_pattern > kRunawayFloor) {
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
  line += ". Likely cause: " + likely_cause(run);
  if (comm.failure_rate > kUnreliableFailureRate) {
    line += ", or the slack is capped too low (HARMONIZE_SLACK_MAX)";
  }
  return line +
         ". Timings taken after these barriers are not synchronized: rerun with at most one rank "
         "per core on an idle node";
}

}  // namespace harmonize::report
