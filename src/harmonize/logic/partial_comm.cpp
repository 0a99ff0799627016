#include "harmonize/logic/partial_comm.hpp"

#include <algorithm>
#include <iterator>

#include "harmonize/logic/flat_text.hpp"
#include "report/flat_count.hpp"

namespace harmonize::logic {
namespace {

report::Merge merge_of(const CommKey& key) {
  return is_per_process(key) ? report::Merge::per_process : report::Merge::same_calls;
}

// More events first, the lower rank on ties: the order of the worst ranks.
template <std::uint64_t RankEvents::*events>
bool worse(const RankEvents& a, const RankEvents& b) {
  return a.*events != b.*events ? a.*events > b.*events : a.rank < b.rank;
}

template <std::uint64_t RankEvents::*events>
std::vector<RankEvents> worst_of(std::vector<RankEvents> ranks) {
  std::erase_if(ranks, [](const RankEvents& r) { return r.*events == 0; });
  const auto kept = std::min(ranks.size(), report::kWorstRanks);
  std::partial_sort(ranks.begin(), ranks.begin() + static_cast<std::ptrdiff_t>(kept), ranks.end(),
                    worse<events>);
  ranks.resize(kept);
  return ranks;
}

// Keeps the ranks that are among the worst in missed or in late events. The
// worst of a union of disjoint sets of ranks are among the worst of each
// set, so trimming at every step of the tree loses none of them.
void trim_ranks(PartialComm& partial) {
  std::vector<RankEvents> kept = worst_of<&RankEvents::missed>(partial.ranks);
  for (const RankEvents& r : worst_of<&RankEvents::late>(partial.ranks)) {
    if (std::none_of(kept.begin(), kept.end(),
                     [&](const RankEvents& k) { return k.rank == r.rank; }))
      kept.push_back(r);
  }
  std::sort(kept.begin(), kept.end(),
            [](const RankEvents& a, const RankEvents& b) { return a.rank < b.rank; });
  partial.ranks = std::move(kept);
  partial.ranks_complete = false;
}

template <std::uint64_t RankEvents::*events>
report::WorstRanks worst_ranks(const PartialComm& partial, std::uint64_t ranks_with_events) {
  report::WorstRanks out{ranks_with_events, {}};
  for (const RankEvents& r : worst_of<events>(partial.ranks))
    out.worst.emplace_back(r.rank, r.*events);
  return out;
}

void append_numbers(std::vector<double>& out, const std::vector<double>& numbers) {
  out.push_back(static_cast<double>(numbers.size()));
  out.insert(out.end(), numbers.begin(), numbers.end());
}

bool read_numbers(std::span<const double> in, std::size_t& at, std::vector<double>& numbers) {
  if (at >= in.size() || !report::is_count(in[at])) return false;
  const auto n = static_cast<std::size_t>(in[at++]);
  if (n > in.size() - at) return false;
  numbers.assign(in.begin() + static_cast<std::ptrdiff_t>(at),
                 in.begin() + static_cast<std::ptrdiff_t>(at + n));
  at += n;
  return true;
}

}  // namespace

PartialComm partial_of(const CommRecord& record) {
  PartialComm partial;
  partial.key = record.key;
  partial.members = 1;
  partial.root_rank = record.rank;
  partial.stats = report::root_header(record.stats);
  report::add_ranks(partial.stats, record.stats, merge_of(record.key));
  partial.missed_any = record.missed_any;
  partial.late_any = record.late_any;
  partial.space_violations = record.space_violations;
  partial.ranks = {{record.rank, record.stats.missed_calls, record.stats.late_calls}};
  partial.ranks_with_missed = record.stats.missed_calls > 0 ? 1 : 0;
  partial.ranks_with_late = record.stats.late_calls > 0 ? 1 : 0;
  if (!is_aggregate(record.key)) {
    CallLog log(record.pending.size());
    for (const CallTimes& call : record.pending) log.add(call);
    partial.pending_calls = record.pending.size();
    partial.pending_max = log.pack_for_max();
    partial.pending_min = log.pack_for_min();
  }
  return partial;
}

void merge_into(PartialComm& into, const PartialComm& more) {
  report::add_ranks(into.stats, more.stats, merge_of(into.key));
  if (more.root_rank < into.root_rank) {
    into.root_rank = more.root_rank;
    report::copy_root_slack(into.stats, more.stats);
    if (!more.stats.not_harmonized_reason.empty())
      into.stats.not_harmonized_reason = more.stats.not_harmonized_reason;
    into.missed_any = more.missed_any;
    into.late_any = more.late_any;
    into.space_violations = more.space_violations;
  }
  into.members += more.members;

  std::vector<RankEvents> ranks;
  ranks.reserve(into.ranks.size() + more.ranks.size());
  std::merge(into.ranks.begin(), into.ranks.end(), more.ranks.begin(), more.ranks.end(),
             std::back_inserter(ranks),
             [](const RankEvents& a, const RankEvents& b) { return a.rank < b.rank; });
  into.ranks = std::move(ranks);
  into.ranks_with_missed += more.ranks_with_missed;
  into.ranks_with_late += more.ranks_with_late;
  into.ranks_complete = into.ranks_complete && more.ranks_complete;
  if (!into.ranks_complete || into.ranks.size() > report::kRanksListed) trim_ranks(into);

  if (!into.pending_agree || !more.pending_agree || into.pending_calls != more.pending_calls) {
    // A member is missing calls: skip them, never guess.
    into.pending_agree = false;
    into.pending_max.clear();
    into.pending_min.clear();
    return;
  }
  for (std::size_t i = 0; i < into.pending_max.size() && i < more.pending_max.size(); ++i)
    into.pending_max[i] = std::max(into.pending_max[i], more.pending_max[i]);
  for (std::size_t i = 0; i < into.pending_min.size() && i < more.pending_min.size(); ++i)
    into.pending_min[i] = std::min(into.pending_min[i], more.pending_min[i]);
}

MergedCommunicator finish(const PartialComm& partial, bool with_truth) {
  CommRecord root;
  root.stats = partial.stats;
  root.missed_any = partial.missed_any;
  root.late_any = partial.late_any;
  root.space_violations = partial.space_violations;
  const bool aggregate = is_aggregate(partial.key);
  if (!aggregate && partial.pending_agree) {
    absorb(root, combine_batch(partial.pending_max, partial.pending_min,
                               static_cast<std::size_t>(partial.pending_calls), with_truth));
  }
  report::AnyCounts any{root.missed_any, root.late_any};
  if (aggregate) {
    // An aggregate cannot tell which calls coincide: the most misses (late
    // exits) of one process is a lower bound of the calls in which any
    // process missed (left late).
    any.missed = std::max(any.missed, root.stats.missed_calls);
    any.late = std::max(any.late, root.stats.late_calls);
  }
  MergedCommunicator merged;
  merged.summary = report::summary_of(root.stats, any);
  if (partial.ranks_complete) {
    for (const RankEvents& r : partial.ranks) {
      merged.summary.missed_events_per_rank.push_back(r.missed);
      merged.summary.late_events_per_rank.push_back(r.late);
    }
  } else {
    merged.summary.missed_events_worst =
        worst_ranks<&RankEvents::missed>(partial, partial.ranks_with_missed);
    merged.summary.late_events_worst =
        worst_ranks<&RankEvents::late>(partial, partial.ranks_with_late);
  }
  if (!aggregate) merged.space_violations = root.space_violations;
  return merged;
}

void append_partial(std::vector<double>& out, const PartialComm& p) {
  for (const std::uint64_t number :
       {p.key.root_world_rank, p.key.serial, p.members, p.missed_any, p.late_any,
        p.space_violations, p.ranks_with_missed, p.ranks_with_late, p.pending_calls})
    out.push_back(static_cast<double>(number));
  out.push_back(p.root_rank);
  out.push_back(p.ranks_complete ? 1.0 : 0.0);
  out.push_back(p.pending_agree ? 1.0 : 0.0);
  out.push_back(static_cast<double>(p.ranks.size()));
  for (const RankEvents& r : p.ranks) {
    out.push_back(r.rank);
    out.push_back(static_cast<double>(r.missed));
    out.push_back(static_cast<double>(r.late));
  }
  append_numbers(out, p.pending_max);
  append_numbers(out, p.pending_min);
  append_text(out, p.stats.name);
  append_text(out, p.stats.kind);
  append_text(out, p.stats.not_harmonized_reason);
  report::append_to(out, p.stats);
}

std::optional<PartialComm> read_partial(std::span<const double> in, std::size_t& at) {
  constexpr std::size_t kHead = 13;
  if (at > in.size() || in.size() - at < kHead) return std::nullopt;
  for (std::size_t i = 0; i < kHead; ++i) {
    // The rank is the only field that may be negative: never, in practice.
    if (i != 9 && !report::is_count(in[at + i])) return std::nullopt;
  }
  PartialComm p;
  std::uint64_t* const numbers[] = {&p.key.root_world_rank, &p.key.serial,      &p.members,
                                    &p.missed_any,          &p.late_any,        &p.space_violations,
                                    &p.ranks_with_missed,   &p.ranks_with_late, &p.pending_calls};
  for (std::uint64_t* number : numbers) *number = static_cast<std::uint64_t>(in[at++]);
  p.root_rank = static_cast<int>(in[at++]);
  p.ranks_complete = in[at++] != 0;
  p.pending_agree = in[at++] != 0;
  const auto ranks = static_cast<std::size_t>(in[at++]);
  if (ranks > (in.size() - at) / 3) return std::nullopt;
  for (std::size_t i = 0; i < ranks; ++i) {
    RankEvents r;
    r.rank = static_cast<int>(in[at++]);
    r.missed = static_cast<std::uint64_t>(in[at++]);
    r.late = static_cast<std::uint64_t>(in[at++]);
    p.ranks.push_back(r);
  }
  std::string name, kind, reason;
  if (!read_numbers(in, at, p.pending_max) || !read_numbers(in, at, p.pending_min) ||
      !read_text(in, at, name) || !read_text(in, at, kind) || !read_text(in, at, reason))
    return std::nullopt;
  auto stats = report::read_comm_stats(in, at);
  if (!stats) return std::nullopt;
  p.stats = std::move(*stats);
  p.stats.name = std::move(name);
  p.stats.kind = std::move(kind);
  p.stats.not_harmonized_reason = std::move(reason);
  return p;
}

}  // namespace harmonize::logic
