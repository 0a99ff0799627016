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
  for (const auto& field : fields::kPerRank) (summary.*field.summary).reserve(per_rank.size());

  // Members of one communicator count the same calls; processes summed up
  // under one record each count their own.
  const auto combine = [merge](auto& total, auto value) {
    total = merge == Merge::per_process ? total + value : std::max(total, value);
  };
  for (const CommStats& rank : per_rank) {
    for (const auto& field : fields::kCounters) {
      if (field.across == fields::Across::calls)
        combine(summary.*field.summary, rank.*field.stats);
      else
        summary.*field.summary += rank.*field.stats;
    }
    for (const auto& field : fields::kPerRank)
      (summary.*field.summary).push_back(rank.*field.stats);
    for (const auto& field : fields::kDistributions)
      (summary.*field.summary).merge(rank.*field.stats);
    if (summary.not_harmonized_reason.empty())
      summary.not_harmonized_reason = rank.not_harmonized_reason;
    // The job waited for the rank that resynchronized longest.
    summary.resync_seconds = std::max(summary.resync_seconds, rank.resync_seconds);
    summary.collectives.merge(rank.collectives);
  }
  if (summary.harmonized_calls > 0) {
    const auto harmonized = static_cast<double>(summary.harmonized_calls);
    summary.failure_rate = static_cast<double>(any.missed) / harmonized;
    summary.late_rate = static_cast<double>(any.late) / harmonized;
  }
  return summary;
}

}  // namespace harmonize::report
