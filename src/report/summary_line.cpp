#include "report/summary_line.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

#include "common/collective_kind.hpp"
#include "report/format.hpp"
#include "report/totals.hpp"

namespace harmonize::report {

namespace {

std::string plural(std::uint64_t n, const char* singular, const char* plural_form) {
  return std::to_string(n) + " " + (n == 1 ? singular : plural_form);
}

std::string count_text(std::uint64_t count, double rate, const char* what) {
  if (count == 0) return std::string("0 ") + what;
  return std::to_string(count) + " " + what + " (" + format_percent(rate) + ")";
}

// Side by side: a late exit spoils a call as much as a miss does.
std::string missed_text(std::uint64_t missed, double failure_rate, std::uint64_t late,
                        double late_rate) {
  return count_text(missed, failure_rate, "missed") + ", " + count_text(late, late_rate, "late");
}

// A skew measured on the global clock is only as good as that clock: its
// error bound (median over the calls), its likely bound where tighter, and
// the clock check at the end.
std::string clock_error_text(const CommSummary& c, const std::optional<ClockCheckInfo>& check) {
  std::vector<std::string> parts;
  if (!c.clock_error_bound.empty()) {
    const double proven = c.clock_error_bound.percentile(50.0);
    parts.push_back("clock error <= " + format_duration(proven));
    const double likely =
        c.clock_error_likely.empty() ? proven : c.clock_error_likely.percentile(50.0);
    if (likely < proven) parts.push_back("likely <= " + format_duration(likely));
  }
  if (check && check->checked > 0) {
    parts.push_back("checked " + format_duration(check->max_offset) + " +- " +
                    format_duration(check->max_uncertainty) + " at end" +
                    (check->inconsistent > 0 ? " (beyond the bound)" : ""));
  }
  if (parts.empty()) return {};
  std::string text = " (" + parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) text += ", " + parts[i];
  return text + ")";
}

// Collective calls on intercommunicators are counted where they were made,
// never matched: the library matches calls at a barrier of the communicator,
// whose members an intercommunicator's two groups are not.
bool is_inter(const CommSummary& c) {
  return c.kind == "inter";
}

std::string not_matched_text(std::uint64_t calls) {
  return plural(calls, "collective call", "collective calls") +
         " on intercommunicators (not matched)";
}

// The collective timer's harvest (docs/collectives.md): calls matched, of
// which valid, over how many operation/size/root keys; and what was lost:
// calls never matched, and matched calls the 64-key table had no room for.
std::string collectives_text(const CommSummary& c) {
  if (is_inter(c)) {
    if (c.collective_calls_unmatched == 0) return {};
    return ", " + not_matched_text(c.collective_calls_unmatched);
  }
  // The native barrier timed as the operation under test (mode observe,
  // osu_barrier) is counted apart: the barriers already count those calls.
  std::uint64_t calls = 0, valid = 0, keys = 0, barriers_timed = 0;
  for (const CollectiveStats& key : c.collectives.keys()) {
    if (key.key.operation == static_cast<int>(Collective::barrier)) {
      barriers_timed += key.calls;
      continue;
    }
    calls += key.calls;
    valid += key.valid_calls;
    keys += 1;
  }
  const std::uint64_t unmatched = c.collective_calls_unmatched;
  const std::uint64_t over_limit = c.collectives.calls_over_key_limit();
  const std::uint64_t not_completed = c.nonblocking_freed + c.nonblocking_cancelled +
                                      c.nonblocking_open_at_matching + c.nonblocking_untracked;
  if (calls == 0 && barriers_timed == 0 && unmatched == 0 && over_limit == 0 && not_completed == 0)
    return {};
  std::string text;
  if (calls > 0 || barriers_timed == 0) {
    text = ", " + plural(calls, "collective call", "collective calls") + " timed";
    if (calls > 0)
      text += " (" + std::to_string(valid) + " valid, " + plural(keys, "key", "keys") + ")";
  }
  if (barriers_timed > 0)
    text += ", " + std::to_string(barriers_timed) +
            " of the barriers timed as the operation under test";
  if (over_limit > 0) {
    text += ", " + std::to_string(over_limit) + " more not recorded per key (over the " +
            std::to_string(CollectiveTable::kMaxKeys) + "-key limit)";
  }
  if (unmatched > 0) text += ", " + std::to_string(unmatched) + " unmatched";
  // Per process, like the unmatched: the report's nonblocking_not_completed
  // says how each ended.
  if (not_completed > 0)
    text += ", " + std::to_string(not_completed) + " non-blocking not completed";
  return text;
}

// What the other communicators' collective calls lost, summed: the line
// must not hide calls that were never matched or not recorded per key.
std::string others_collectives_text(const std::vector<CommSummary>& others) {
  std::uint64_t inter = 0, unmatched = 0, over_limit = 0;
  for (const CommSummary& c : others) {
    (is_inter(c) ? inter : unmatched) += c.collective_calls_unmatched;
    over_limit += c.collectives.calls_over_key_limit();
  }
  std::string text;
  if (over_limit > 0)
    text += ", " + std::to_string(over_limit) + " collective calls not recorded per key";
  if (unmatched > 0) text += ", " + std::to_string(unmatched) + " collective calls unmatched";
  if (inter > 0) text += ", " + not_matched_text(inter);
  return text;
}

// `patterned`: the exits followed an arrival pattern, against which their
// skew is measured.
std::string communicator_text(const CommSummary& c, bool harmonized, bool patterned,
                              const std::optional<ClockCheckInfo>& check) {
  std::string text = c.name + ": " + plural(c.calls, "barrier", "barriers");
  if (harmonized)
    text += ", " + missed_text(c.missed_calls_any, c.failure_rate, c.late_calls_any, c.late_rate);
  if (!c.exit_skew.empty()) {
    text += std::string(", exit skew ") + (patterned ? "vs pattern " : "") + "p50 " +
            format_duration(c.exit_skew.percentile(50.0)) + " p99 " +
            format_duration(c.exit_skew.percentile(99.0)) + clock_error_text(c, check);
  }
  if (harmonized) text += ", " + plural(c.resyncs, "resync", "resyncs");
  text += collectives_text(c);
  if (c.not_harmonized_calls > 0) {
    text += ", " + std::to_string(c.not_harmonized_calls) +
            " not harmonized: " + c.not_harmonized_reason;
  }
  return text;
}

// The communicator the line is about: the busiest one that is a real
// communicator (the records of size-1 communicators and of intercommunicators
// sum every process's calls, which outnumber any one communicator's without
// being more telling: 2 ranks' 100 barriers on an intercommunicator are 200).
const CommSummary* busiest(const std::vector<CommSummary>& communicators) {
  const auto rank = [](const CommSummary& c) {
    return std::tuple(c.kind != "self" && !is_inter(c), c.calls, c.name == "MPI_COMM_WORLD");
  };
  const CommSummary* best = nullptr;
  for (const CommSummary& c : communicators)
    if (best == nullptr || rank(c) > rank(*best)) best = &c;
  return best;
}

}  // namespace

std::string summary_line(const JobReport& report) {
  const bool harmonized = report.mode == "harmonize";
  std::string line =
      "harmonize: mode=" + (report.mode.empty() ? "?" : report.mode) + " " +
      plural(static_cast<std::uint64_t>(std::max(report.job.ranks, 0)), "rank", "ranks") + " " +
      plural(static_cast<std::uint64_t>(std::max(report.job.nodes, 0)), "node", "nodes");
  // The nodes are the library's (HARMONIZE_ARRIVAL's node:N counts them):
  // virtual ones with HARMONIZE_TEST_NODE_SIZE or the test clocks, so the
  // hosts are said beside them when they differ.
  if (!report.job.hosts.empty() &&
      report.job.hosts.size() != static_cast<std::size_t>(report.job.nodes))
    line += " (" + plural(report.job.hosts.size(), "host", "hosts") + ")";
  if (!report.clock.scheme.empty()) line += " sync=" + report.clock.scheme;
  if (report.clock.test_clock) line += " test-clock";
  const bool patterned = report.arrival && report.arrival->pattern != "none";
  if (patterned) line += " arrival=" + report.arrival->pattern;

  if (const CommSummary* shown = busiest(report.communicators)) {
    line += " | " + communicator_text(*shown, harmonized, patterned, report.clock.end_check);
    if (report.communicators.size() > 1) {
      std::vector<CommSummary> others;
      for (const CommSummary& c : report.communicators) {
        if (&c != shown) others.push_back(c);
      }
      const Totals rest = compute_totals(others);
      line += " | +" + plural(rest.communicators, "communicator", "communicators") + ": " +
              plural(rest.calls, "barrier", "barriers");
      if (harmonized) {
        line += ", " + missed_text(rest.missed_calls_any, rest.failure_rate, rest.late_calls_any,
                                   rest.late_rate);
      }
      if (rest.not_harmonized_calls > 0)
        line += ", " + std::to_string(rest.not_harmonized_calls) + " not harmonized";
      line += others_collectives_text(others);
    }
  }
  if (report.clock.refused_resyncs > 0) {
    line += " | " + plural(report.clock.refused_resyncs, "resync", "resyncs") +
            " refused: much worse than the clock kept";
  }
  if (report.trace && !report.trace->lost.empty())
    line += " | timeline lost: " + report.trace->lost + " not written";
  if (!report.report_lost.empty()) {
    line += " | report lost: " + report.report_lost + " not written";
  } else {
    line += " | report " + (report.report_file.empty() ? std::string("none") : report.report_file);
  }
  return line;
}

}  // namespace harmonize::report
