#include "report/comm_stats.hpp"

#include "report/comm_fields.hpp"
#include "report/flat_count.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace harmonize::report {

namespace {

// 4: the fields' order follows report/comm_fields.hpp.
constexpr double kFlatFormat = 4.0;
// Format tag, size, the counters, the per-rank counters, the seconds.
constexpr std::size_t kScalarFields =
    2 + fields::kCounters.size() + fields::kPerRank.size() + fields::kSeconds.size();

}  // namespace

void append_to(std::vector<double>& out, const CommStats& s) {
  out.push_back(kFlatFormat);
  out.push_back(static_cast<double>(s.size));
  for (const auto& field : fields::kCounters) out.push_back(static_cast<double>(s.*field.stats));
  for (const auto& field : fields::kPerRank) out.push_back(static_cast<double>(s.*field.stats));
  for (const auto seconds : fields::kSeconds) out.push_back(s.*seconds);
  for (const auto& field : fields::kDistributions) (s.*field.stats).append_to(out);
  s.collectives.append_to(out);
}

std::vector<double> to_flat(const CommStats& stats) {
  std::vector<double> out;
  append_to(out, stats);
  return out;
}

std::optional<CommStats> read_comm_stats(std::span<const double> in, std::size_t& offset) {
  if (offset > in.size() || in.size() - offset < kScalarFields) return std::nullopt;
  const auto head = in.subspan(offset, kScalarFields);
  if (head[0] != kFlatFormat || !is_count(head[1])) return std::nullopt;
  CommStats s;
  s.size = static_cast<int>(head[1]);
  std::size_t at = 2;
  const auto count = [&](std::uint64_t& into) {
    const double value = head[at++];
    into = static_cast<std::uint64_t>(value);
    return is_count(value);
  };
  for (const auto& field : fields::kCounters)
    if (!count(s.*field.stats)) return std::nullopt;
  for (const auto& field : fields::kPerRank)
    if (!count(s.*field.stats)) return std::nullopt;
  for (const auto seconds : fields::kSeconds) s.*seconds = head[at++];
  std::size_t cursor = offset + kScalarFields;
  for (const auto& field : fields::kDistributions) {
    auto read = Distribution::read_from(in, cursor);
    if (!read) return std::nullopt;
    s.*field.stats = std::move(*read);
  }
  auto collectives = CollectiveTable::read_from(in, cursor);
  if (!collectives) return std::nullopt;
  s.collectives = std::move(*collectives);
  offset = cursor;
  return s;
}

void accumulate(CommStats& total, const CommStats& more) {
  for (const auto& field : fields::kCounters) total.*field.stats += more.*field.stats;
  for (const auto& field : fields::kPerRank) total.*field.stats += more.*field.stats;
  for (const auto& field : fields::kDistributions) (total.*field.stats).merge(more.*field.stats);
  if (total.not_harmonized_reason.empty()) total.not_harmonized_reason = more.not_harmonized_reason;
  total.resync_seconds += more.resync_seconds;
  total.slack_max = std::max(total.slack_max, more.slack_max);
  total.slack_min =
      total.slack_min == 0 ? more.slack_min : std::min(total.slack_min, more.slack_min);
  total.slack_final = more.slack_final;
  total.collectives.merge(more.collectives);
}

void add_collectives(CommStats& record, const CommStats& timed) {
  record.collectives.merge(timed.collectives);
  for (const auto& field : fields::kCounters)
    if (field.counted == fields::Counted::by_collective_timer)
      record.*field.stats += timed.*field.stats;
}

void add_ranks(CommStats& total, const CommStats& more, Merge merge) {
  // Members of one communicator count the same calls; processes summed up
  // under one record each count their own.
  const auto combine = [merge](auto& into, auto value) {
    into = merge == Merge::per_process ? into + value : std::max(into, value);
  };
  for (const auto& field : fields::kCounters) {
    if (field.across == fields::Across::calls)
      combine(total.*field.stats, more.*field.stats);
    else
      total.*field.stats += more.*field.stats;
  }
  for (const auto& field : fields::kPerRank)
    total.*field.stats = std::max(total.*field.stats, more.*field.stats);
  for (const auto& field : fields::kDistributions) (total.*field.stats).merge(more.*field.stats);
  if (total.not_harmonized_reason.empty()) total.not_harmonized_reason = more.not_harmonized_reason;
  // The job waited for the rank that resynchronized longest.
  total.resync_seconds = std::max(total.resync_seconds, more.resync_seconds);
  total.collectives.merge(more.collectives);
}

CommSummary summary_of(const CommStats& combined, AnyCounts any) {
  CommSummary summary;
  summary.name = combined.name;
  summary.size = combined.size;
  summary.kind = combined.kind;
  // Only the root decides deadlines, so only its slack exists.
  summary.slack_initial = combined.slack_initial;
  summary.slack_final = combined.slack_final;
  summary.slack_max = combined.slack_max;
  summary.slack_min = combined.slack_min;
  summary.missed_calls_any = any.missed;
  summary.late_calls_any = any.late;
  for (const auto& field : fields::kCounters) summary.*field.summary = combined.*field.stats;
  for (const auto& field : fields::kDistributions) summary.*field.summary = combined.*field.stats;
  summary.not_harmonized_reason = combined.not_harmonized_reason;
  summary.resync_seconds = combined.resync_seconds;
  summary.collectives = combined.collectives;
  if (summary.harmonized_calls > 0) {
    const auto harmonized = static_cast<double>(summary.harmonized_calls);
    summary.failure_rate = static_cast<double>(any.missed) / harmonized;
    summary.late_rate = static_cast<double>(any.late) / harmonized;
  }
  return summary;
}

void copy_root_slack(CommStats& to, const CommStats& root) {
  for (const auto seconds : {&CommStats::slack_initial, &CommStats::slack_final,
                             &CommStats::slack_max, &CommStats::slack_min})
    to.*seconds = root.*seconds;
}

CommStats root_header(const CommStats& root) {
  CommStats header;
  header.name = root.name;
  header.size = root.size;
  header.kind = root.kind;
  copy_root_slack(header, root);
  return header;
}

CommStats combine_ranks(std::span<const CommStats> per_rank, Merge merge) {
  if (per_rank.empty()) return {};
  // From an empty record, not a copy of the first, so that every rank's
  // distributions are merged the same way whatever the grouping.
  CommStats combined = root_header(per_rank.front());
  for (const CommStats& rank : per_rank) add_ranks(combined, rank, merge);
  return combined;
}

CommSummary summarize(std::span<const CommStats> per_rank, AnyCounts any, Merge merge) {
  if (per_rank.empty()) return {};
  const CommStats combined = combine_ranks(per_rank, merge);
  CommSummary summary = summary_of(combined, any);
  for (const auto& field : fields::kPerRank) {
    for (const CommStats& rank : per_rank) (summary.*field.summary).push_back(rank.*field.stats);
  }
  return summary;
}

}  // namespace harmonize::report
