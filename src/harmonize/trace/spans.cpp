#include "harmonize/trace/spans.hpp"

#include <algorithm>
#include <span>
#include <string_view>

#include "common/collective_kind.hpp"
#include "common/raw_bytes.hpp"

namespace harmonize::trace {
namespace {

constexpr std::uint32_t kCollectives = static_cast<std::uint32_t>(kCollectiveNames.size());
constexpr std::size_t kSpanBytes = 2 * sizeof(double) + sizeof(std::uint32_t);
// A part's node index and the length of its node's name.
constexpr std::size_t kPartHead = sizeof(std::int32_t) + sizeof(std::uint32_t);

}  // namespace

std::uint32_t barrier_region() {
  return 0;
}

std::uint32_t collective_region(int operation) {
  return 1 + static_cast<std::uint32_t>(operation);
}

std::uint32_t sync_region(bool first) {
  return 1 + kCollectives + (first ? 0 : 1);
}

std::vector<std::string> region_names() {
  std::vector<std::string> names{"MPI_Barrier"};
  for (std::uint32_t operation = 0; operation < kCollectives; ++operation)
    names.push_back(mpi_name(static_cast<int>(operation)));
  names.push_back("clock sync");
  names.push_back("clock resync");
  return names;
}

NestedSpans nested(std::vector<Span> spans) {
  // Earlier first; of two that start together the longer encloses the other.
  std::stable_sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.start < b.start || (a.start == b.start && a.end > b.end);
  });
  NestedSpans out;
  std::vector<double> open_ends;  // of the spans kept that enclose the current start
  for (const Span& span : spans) {
    while (!open_ends.empty() && open_ends.back() <= span.start) open_ends.pop_back();
    if (!open_ends.empty() && span.end > open_ends.back()) {
      out.not_nested += 1;
      continue;
    }
    open_ends.push_back(span.end);
    out.spans.push_back(span);
  }
  return out;
}

NestedSpans spans_of(const RankTrace& trace) {
  std::vector<Span> spans;
  if (trace.first_sync)
    spans.push_back({trace.first_sync->start, trace.first_sync->end, sync_region(true)});
  for (const auto& comm : trace.comms()) {
    for (const SyncEvent& e : comm->syncs.kept())
      spans.push_back({e.start, e.end, sync_region(e.first)});
    for (const BarrierEvent& e : comm->barriers.kept())
      spans.push_back({e.entry, e.exit, barrier_region()});
    for (const CollectiveEvent& e : comm->collectives.kept())
      spans.push_back({e.entry, e.exit, collective_region(e.operation)});
  }
  return nested(std::move(spans));
}

std::string encode(const LocationPart& part) {
  std::string bytes;
  bytes.reserve(kPartHead + part.node_name.size() + part.spans.size() * kSpanBytes);
  append_raw(bytes, static_cast<std::int32_t>(part.node));
  append_raw(bytes, static_cast<std::uint32_t>(part.node_name.size()));
  bytes += part.node_name;
  for (const Span& span : part.spans) {
    append_raw(bytes, span.start);
    append_raw(bytes, span.end);
    append_raw(bytes, span.region);
  }
  return bytes;
}

bool decode(std::string_view bytes, LocationPart& part) {
  if (bytes.size() < kPartHead) return false;
  const std::span<const char> raw(bytes.data(), bytes.size());
  const auto name_size = read_raw<std::uint32_t>(raw, sizeof(std::int32_t));
  if (bytes.size() - kPartHead < name_size) return false;
  const std::size_t first_span = kPartHead + name_size;
  if ((bytes.size() - first_span) % kSpanBytes != 0) return false;
  part.node = read_raw<std::int32_t>(raw, 0);
  part.node_name.assign(bytes.substr(kPartHead, name_size));
  part.spans.clear();
  for (std::size_t at = first_span; at < bytes.size(); at += kSpanBytes)
    part.spans.push_back({read_raw<double>(raw, at), read_raw<double>(raw, at + sizeof(double)),
                          read_raw<std::uint32_t>(raw, at + 2 * sizeof(double))});
  return true;
}

}  // namespace harmonize::trace
