#include "harmonize/logic/record_store.hpp"

#include <algorithm>

#include "harmonize/logic/flat_text.hpp"
#include "harmonize/logic/job_records.hpp"

namespace harmonize::logic {
namespace {

constexpr std::size_t kPendingFields = 10;  // per pending call, see append_record

}  // namespace

void absorb(CommRecord& root, const CallBatchOutcome& outcome) {
  const auto add_all = [](report::Distribution& to, const std::vector<double>& values) {
    for (double value : values) to.add(value);
  };
  add_all(root.stats.exit_skew, outcome.exit_skew);
  add_all(root.stats.truth_exit_skew, outcome.truth_exit_skew);
  add_all(root.stats.clock_error_bound, outcome.clock_bound);
  add_all(root.stats.clock_error_likely, outcome.clock_likely);
  add_all(root.stats.truth_clock_error, outcome.truth_clock_error);
  root.missed_any += outcome.missed_any;
  root.late_any += outcome.late_any;
  root.space_violations += outcome.space_violations;
}

void RecordStore::retire(CommRecord record, CommKind kind, bool at_finalize) {
  std::lock_guard lock(mutex_);
  CommKey key;
  std::string name;
  const int size = record.stats.size;
  if (kind != CommKind::intra) {
    // Every process has its own: one record for all of them, not N.
    const bool self = kind == CommKind::self;
    key = {kPerProcessRoot + (self ? 0 : 1), 0};
    name = self ? "size-1 communicators (MPI_COMM_SELF and others, all processes)"
                : "intercommunicators (all processes)";
    record.rank = world_rank_;
  } else if (at_finalize || record.key.serial < kDistinctCommunicators) {
    kept_.front() += 1;
    append_record(kept_, record);
    return;
  } else {
    // The calls of different communicators cannot be matched across
    // processes, so a folded record keeps counts and local times, not exit
    // skews nor misses of the whole communicator (see the report).
    key = {record.key.root_world_rank, kFoldedSerialBase + static_cast<std::uint64_t>(size)};
    name = "freed communicators of size " + std::to_string(size) + " rooted at world rank " +
           std::to_string(key.root_world_rank) + " (folded)";
  }
  auto [it, inserted] = folded_.try_emplace(key);
  CommRecord& folded = it->second;
  if (inserted) {
    folded.key = key;
    folded.rank = record.rank;
    folded.stats.name = name;
    folded.stats.kind = record.stats.kind;
    folded.stats.size = size;
    folded.stats.slack_initial = record.stats.slack_initial;
  }
  folded.missed_any += record.missed_any;
  folded.late_any += record.late_any;
  report::accumulate(folded.stats, record.stats);
}

std::vector<double> RecordStore::encode() const {
  std::lock_guard lock(mutex_);
  std::vector<double> out = kept_;
  for (const auto& [key, folded] : folded_) {
    out.front() += 1;
    append_record(out, folded);
  }
  return out;
}

void append_record(std::vector<double>& out, const CommRecord& r) {
  out.push_back(static_cast<double>(r.key.root_world_rank));
  out.push_back(static_cast<double>(r.key.serial));
  out.push_back(r.rank);
  append_text(out, r.stats.name);
  append_text(out, r.stats.kind);
  append_text(out, r.stats.not_harmonized_reason);
  out.push_back(static_cast<double>(r.missed_any));
  out.push_back(static_cast<double>(r.late_any));
  out.push_back(static_cast<double>(r.space_violations));
  out.push_back(static_cast<double>(r.pending.size()));
  for (const CallTimes& call : r.pending) {
    out.push_back(call.exit_global);
    out.push_back(call.enter_truth);
    out.push_back(call.exit_truth);
    out.push_back(call.missed ? 1.0 : 0.0);
    out.push_back(call.late ? 1.0 : 0.0);
    out.push_back(call.bound);
    out.push_back(call.likely);
    out.push_back(call.truth_error);
    out.push_back(call.delay);
    out.push_back(call.truth_delay);
  }
  report::append_to(out, r.stats);
}

std::optional<std::vector<CommRecord>> decode_records(std::span<const double> in) {
  std::size_t at = 0;
  if (in.empty()) return std::nullopt;
  const auto count = static_cast<std::size_t>(in[at++]);
  std::vector<CommRecord> records;
  for (std::size_t i = 0; i < count; ++i) {
    CommRecord r;
    if (in.size() - at < 3) return std::nullopt;
    r.key.root_world_rank = static_cast<std::uint64_t>(in[at++]);
    r.key.serial = static_cast<std::uint64_t>(in[at++]);
    r.rank = static_cast<int>(in[at++]);
    std::string name, kind, reason;
    if (!read_text(in, at, name) || !read_text(in, at, kind) || !read_text(in, at, reason))
      return std::nullopt;
    if (in.size() - at < 4) return std::nullopt;
    r.missed_any = static_cast<std::uint64_t>(in[at++]);
    r.late_any = static_cast<std::uint64_t>(in[at++]);
    r.space_violations = static_cast<std::uint64_t>(in[at++]);
    const auto pending = static_cast<std::size_t>(in[at++]);
    if (pending > (in.size() - at) / kPendingFields) return std::nullopt;
    for (std::size_t c = 0; c < pending; ++c) {
      CallTimes call;
      call.exit_global = in[at++];
      call.enter_truth = in[at++];
      call.exit_truth = in[at++];
      call.missed = in[at++] != 0;
      call.late = in[at++] != 0;
      call.bound = in[at++];
      call.likely = in[at++];
      call.truth_error = in[at++];
      call.delay = in[at++];
      call.truth_delay = in[at++];
      r.pending.push_back(call);
    }
    auto stats = report::read_comm_stats(in, at);
    if (!stats) return std::nullopt;
    r.stats = std::move(*stats);
    r.stats.name = name;
    r.stats.kind = kind;
    r.stats.not_harmonized_reason = reason;
    records.push_back(std::move(r));
  }
  return records;
}

std::vector<MergedCommunicator> merge_records(std::vector<std::vector<CommRecord>> by_process,
                                              bool with_truth) {
  JobRecords all;
  for (auto& records : by_process) {
    ProcessContribution process;
    process.records = std::move(records);
    merge_into(all, records_of(std::move(process)));
  }
  return finish(all, with_truth);
}

}  // namespace harmonize::logic
