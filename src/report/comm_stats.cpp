#include "report/comm_stats.hpp"
#include "report/flat_count.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace harmonize::report {

namespace {

constexpr double kFlatFormat = 3.0;
// Format tag, size, 4 counters, resync time, 4 slacks, calls not harmonized,
// late calls, 4 ground-truth counters, 2 collective counters.
constexpr std::size_t kScalarFields = 19;

// Every distribution of a record, in encoding order.
template <typename Stats>
auto distributions(Stats& s) {
  return std::array{&s.exit_skew,    &s.lateness,        &s.late_by,           &s.wait,
                    &s.time_in_call, &s.truth_exit_skew, &s.clock_error_bound, &s.truth_clock_error,
                    &s.need};
}

}  // namespace

void append_to(std::vector<double>& out, const CommStats& s) {
  out.insert(
      out.end(),
      {kFlatFormat, static_cast<double>(s.size), static_cast<double>(s.calls),
       static_cast<double>(s.harmonized_calls), static_cast<double>(s.missed_calls),
       static_cast<double>(s.resyncs), s.resync_seconds, s.slack_initial, s.slack_final,
       s.slack_max, s.slack_min, static_cast<double>(s.not_harmonized_calls),
       static_cast<double>(s.late_calls), static_cast<double>(s.truth_late_calls),
       static_cast<double>(s.truth_late_unflagged), static_cast<double>(s.truth_bound_checks),
       static_cast<double>(s.truth_bound_violations),
       static_cast<double>(s.collective_calls_unmatched),
       static_cast<double>(s.collective_log_spills)});
  for (const Distribution* d : distributions(s)) d->append_to(out);
  s.collectives.append_to(out);
}

std::vector<double> to_flat(const CommStats& stats) {
  std::vector<double> out;
  append_to(out, stats);
  return out;
}

std::optional<CommStats> read_comm_stats(std::span<const double> in, std::size_t& offset) {
  if (offset > in.size() || in.size() - offset < kScalarFields) return std::nullopt;
  const auto h = in.subspan(offset, kScalarFields);
  if (h[0] != kFlatFormat) return std::nullopt;
  for (std::size_t i : {1, 2, 3, 4, 5, 11, 12, 13, 14, 15, 16, 17, 18}) {
    if (!is_count(h[i])) return std::nullopt;
  }
  CommStats s;
  s.size = static_cast<int>(h[1]);
  s.calls = static_cast<std::uint64_t>(h[2]);
  s.harmonized_calls = static_cast<std::uint64_t>(h[3]);
  s.missed_calls = static_cast<std::uint64_t>(h[4]);
  s.resyncs = static_cast<std::uint64_t>(h[5]);
  s.resync_seconds = h[6];
  s.slack_initial = h[7];
  s.slack_final = h[8];
  s.slack_max = h[9];
  s.slack_min = h[10];
  s.not_harmonized_calls = static_cast<std::uint64_t>(h[11]);
  s.late_calls = static_cast<std::uint64_t>(h[12]);
  s.truth_late_calls = static_cast<std::uint64_t>(h[13]);
  s.truth_late_unflagged = static_cast<std::uint64_t>(h[14]);
  s.truth_bound_checks = static_cast<std::uint64_t>(h[15]);
  s.truth_bound_violations = static_cast<std::uint64_t>(h[16]);
  s.collective_calls_unmatched = static_cast<std::uint64_t>(h[17]);
  s.collective_log_spills = static_cast<std::uint64_t>(h[18]);
  std::size_t cursor = offset + kScalarFields;
  for (Distribution* d : distributions(s)) {
    auto read = Distribution::read_from(in, cursor);
    if (!read) return std::nullopt;
    *d = std::move(*read);
  }
  auto collectives = CollectiveTable::read_from(in, cursor);
  if (!collectives) return std::nullopt;
  s.collectives = std::move(*collectives);
  offset = cursor;
  return s;
}

void accumulate(CommStats& total, const CommStats& more) {
  total.calls += more.calls;
  total.harmonized_calls += more.harmonized_calls;
  total.missed_calls += more.missed_calls;
  total.late_calls += more.late_calls;
  total.truth_late_calls += more.truth_late_calls;
  total.truth_late_unflagged += more.truth_late_unflagged;
  total.truth_bound_checks += more.truth_bound_checks;
  total.truth_bound_violations += more.truth_bound_violations;
  total.not_harmonized_calls += more.not_harmonized_calls;
  if (total.not_harmonized_reason.empty()) total.not_harmonized_reason = more.not_harmonized_reason;
  total.resyncs += more.resyncs;
  total.resync_seconds += more.resync_seconds;
  total.slack_max = std::max(total.slack_max, more.slack_max);
  total.slack_min =
      total.slack_min == 0 ? more.slack_min : std::min(total.slack_min, more.slack_min);
  total.slack_final = more.slack_final;
  const auto into = distributions(total);
  const auto from = distributions(more);
  for (std::size_t i = 0; i < into.size(); ++i) into[i]->merge(*from[i]);
  total.collectives.merge(more.collectives);
  total.collective_calls_unmatched += more.collective_calls_unmatched;
  total.collective_log_spills += more.collective_log_spills;
}

CommSummary summarize(std::span<const CommStats> per_rank, AnyCounts any, Merge merge) {
  CommSummary summary;
  if (per_rank.empty()) return summary;
  const CommStats& root = per_rank.front();
  summary.name = root.name;
  summary.size = root.size;
  summary.kind = root.kind;
  // Only the root decides deadlines, so only its slack exists; the other
  // ranks' slack fields are unset.
  summary.slack_initial = root.slack_initial;
  summary.slack_final = root.slack_final;
  summary.slack_max = root.slack_max;
  summary.slack_min = root.slack_min;
  summary.missed_calls_any = any.missed;
  summary.late_calls_any = any.late;
  summary.missed_events_per_rank.reserve(per_rank.size());
  summary.late_events_per_rank.reserve(per_rank.size());

  // Members of one communicator count the same calls; processes summed up
  // under one record each count their own.
  const auto combine = [merge](auto& total, auto value) {
    total = merge == Merge::per_process ? total + value : std::max(total, value);
  };
  for (const CommStats& rank : per_rank) {
    combine(summary.calls, rank.calls);
    combine(summary.harmonized_calls, rank.harmonized_calls);
    combine(summary.not_harmonized_calls, rank.not_harmonized_calls);
    if (summary.not_harmonized_reason.empty())
      summary.not_harmonized_reason = rank.not_harmonized_reason;
    combine(summary.resyncs, rank.resyncs);
    summary.resync_seconds = std::max(summary.resync_seconds, rank.resync_seconds);
    summary.missed_events_per_rank.push_back(rank.missed_calls);
    summary.late_events_per_rank.push_back(rank.late_calls);
    // Ground truth is per process whatever the merge.
    summary.truth_late_calls += rank.truth_late_calls;
    summary.truth_late_unflagged += rank.truth_late_unflagged;
    summary.truth_bound_checks += rank.truth_bound_checks;
    summary.truth_bound_violations += rank.truth_bound_violations;
    summary.exit_skew.merge(rank.exit_skew);
    summary.lateness.merge(rank.lateness);
    summary.late_by.merge(rank.late_by);
    summary.wait.merge(rank.wait);
    summary.need.merge(rank.need);
    summary.time_in_call.merge(rank.time_in_call);
    summary.truth_exit_skew.merge(rank.truth_exit_skew);
    summary.clock_error_bound.merge(rank.clock_error_bound);
    summary.truth_clock_error.merge(rank.truth_clock_error);
    summary.collectives.merge(rank.collectives);
    summary.collective_calls_unmatched += rank.collective_calls_unmatched;
    summary.collective_log_spills += rank.collective_log_spills;
  }
  if (summary.harmonized_calls > 0) {
    const auto harmonized = static_cast<double>(summary.harmonized_calls);
    summary.failure_rate = static_cast<double>(any.missed) / harmonized;
    summary.late_rate = static_cast<double>(any.late) / harmonized;
  }
  return summary;
}

}  // namespace harmonize::report
