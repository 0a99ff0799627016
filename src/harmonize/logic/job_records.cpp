#include "harmonize/logic/job_records.hpp"

#include <utility>

#include "harmonize/logic/flat_text.hpp"
#include "report/flat_count.hpp"

namespace harmonize::logic {
namespace {

// 1: the layout below; a reader of another layout rejects it.
constexpr double kFormat = 1.0;

void append_texts(std::vector<double>& out, const auto& texts) {
  out.push_back(static_cast<double>(texts.size()));
  for (const std::string& text : texts) append_text(out, text);
}

bool read_count(std::span<const double> in, std::size_t& at, std::size_t& count) {
  if (at >= in.size() || !report::is_count(in[at])) return false;
  count = static_cast<std::size_t>(in[at++]);
  return count <= in.size() - at;  // every item takes a double at least
}

}  // namespace

JobRecords records_of(ProcessContribution process) {
  JobRecords out;
  for (const CommRecord& record : process.records) {
    PartialComm partial = partial_of(record);
    const auto [it, inserted] = out.comms.try_emplace(record.key, partial);
    if (!inserted) merge_into(it->second, partial);
  }
  out.hosts.insert(std::move(process.host));
  if (process.clock_fallback.worst > 0) out.fallbacks = std::move(process.clock_fallback);
  out.threaded_processes = process.threaded ? 1 : 0;
  out.refused_resyncs = process.refused_resyncs;
  return out;
}

void merge_into(JobRecords& into, const JobRecords& more) {
  for (const auto& [key, partial] : more.comms) {
    const auto [it, inserted] = into.comms.try_emplace(key, partial);
    if (!inserted) merge_into(it->second, partial);
  }
  into.hosts.insert(more.hosts.begin(), more.hosts.end());
  SharedClockFallbacks& f = into.fallbacks;
  if (more.fallbacks.worst > f.worst) {
    f.worst = more.fallbacks.worst;
    f.worst_node = more.fallbacks.worst_node;
  }
  f.nodes.insert(more.fallbacks.nodes.begin(), more.fallbacks.nodes.end());
  f.sub_communicator = f.sub_communicator || more.fallbacks.sub_communicator;
  into.threaded_processes += more.threaded_processes;
  into.refused_resyncs += more.refused_resyncs;
  into.missing.insert(into.missing.end(), more.missing.begin(), more.missing.end());
}

std::vector<double> encode(const JobRecords& records) {
  std::vector<double> out{kFormat, static_cast<double>(records.comms.size())};
  for (const auto& [key, partial] : records.comms) append_partial(out, partial);
  append_texts(out, records.hosts);
  const SharedClockFallbacks& f = records.fallbacks;
  out.push_back(f.worst);
  out.push_back(f.worst_node);
  out.push_back(f.sub_communicator ? 1.0 : 0.0);
  out.push_back(static_cast<double>(f.nodes.size()));
  for (const int node : f.nodes) out.push_back(node);
  out.push_back(static_cast<double>(records.threaded_processes));
  out.push_back(static_cast<double>(records.refused_resyncs));
  append_texts(out, records.missing);
  return out;
}

std::optional<JobRecords> decode_job_records(std::span<const double> in) {
  std::size_t at = 0;
  std::size_t count = 0;
  if (in.empty() || in[at++] != kFormat || !read_count(in, at, count)) return std::nullopt;
  JobRecords records;
  for (std::size_t i = 0; i < count; ++i) {
    auto partial = read_partial(in, at);
    if (!partial) return std::nullopt;
    const CommKey key = partial->key;
    records.comms.emplace(key, std::move(*partial));
  }
  std::string text;
  if (!read_count(in, at, count)) return std::nullopt;
  for (std::size_t i = 0; i < count; ++i) {
    if (!read_text(in, at, text)) return std::nullopt;
    records.hosts.insert(text);
  }
  if (in.size() - at < 4) return std::nullopt;
  SharedClockFallbacks& f = records.fallbacks;
  f.worst = in[at++];
  f.worst_node = static_cast<int>(in[at++]);
  f.sub_communicator = in[at++] != 0;
  if (!read_count(in, at, count)) return std::nullopt;
  for (std::size_t i = 0; i < count; ++i) f.nodes.insert(static_cast<int>(in[at++]));
  if (at >= in.size() || !report::is_count(in[at])) return std::nullopt;
  records.threaded_processes = static_cast<std::uint64_t>(in[at++]);
  if (at >= in.size() || !report::is_count(in[at])) return std::nullopt;
  records.refused_resyncs = static_cast<std::uint64_t>(in[at++]);
  if (!read_count(in, at, count)) return std::nullopt;
  for (std::size_t i = 0; i < count; ++i) {
    if (!read_text(in, at, text)) return std::nullopt;
    records.missing.push_back(text);
  }
  if (at != in.size()) return std::nullopt;
  return records;
}

std::vector<MergedCommunicator> finish(const JobRecords& records, bool with_truth) {
  std::vector<MergedCommunicator> merged;
  for (const bool world : {true, false}) {
    for (const auto& [key, partial] : records.comms) {
      if ((partial.stats.name == "MPI_COMM_WORLD") == world)
        merged.push_back(finish(partial, with_truth));
    }
  }
  return merged;
}

}  // namespace harmonize::logic
