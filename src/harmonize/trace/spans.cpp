#include "harmonize/trace/spans.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "common/collective_kind.hpp"

namespace harmonize::trace {
namespace {

constexpr std::uint32_t kCollectives = static_cast<std::uint32_t>(kCollectiveNames.size());
constexpr std::size_t kSpanBytes = 2 * sizeof(double) + sizeof(std::uint32_t);

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

namespace {

template <typename T>
void put(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
bool take(std::string_view& in, T& value) {
  if (in.size() < sizeof value) return false;
  std::memcpy(&value, in.data(), sizeof value);
  in.remove_prefix(sizeof value);
  return true;
}

}  // namespace

std::string encode(const LocationPart& part) {
  std::string bytes;
  bytes.reserve(8 + part.node_name.size() + part.spans.size() * kSpanBytes);
  put(bytes, static_cast<std::int32_t>(part.node));
  put(bytes, static_cast<std::uint32_t>(part.node_name.size()));
  bytes += part.node_name;
  for (const Span& span : part.spans) {
    put(bytes, span.start);
    put(bytes, span.end);
    put(bytes, span.region);
  }
  return bytes;
}

bool decode(std::string_view bytes, LocationPart& part) {
  std::int32_t node = 0;
  std::uint32_t name_size = 0;
  if (!take(bytes, node) || !take(bytes, name_size) || bytes.size() < name_size) return false;
  part.node = node;
  part.node_name.assign(bytes.substr(0, name_size));
  bytes.remove_prefix(name_size);
  if (bytes.size() % kSpanBytes != 0) return false;
  part.spans.clear();
  while (!bytes.empty()) {
    Span span;
    take(bytes, span.start);
    take(bytes, span.end);
    take(bytes, span.region);
    part.spans.push_back(span);
  }
  return true;
}

}  // namespace harmonize::trace
