#pragma once
// The timeline as OTF2 holds it (docs/timeline.md, "OTF2"): per process its
// calls and syncs as regions entered and left, properly nested, so that every
// reader draws them (a non-blocking call completed after a later one started
// overlaps it only in part, and is left out, counted). Pure; the archive is
// written in trace/otf2_archive.cpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harmonize/trace/events.hpp"

namespace harmonize::trace {

// Regions by a fixed number, the same on every process: MPI_Barrier, then
// one per collective (common/collective_kind.hpp's order), then the sync at
// MPI_Init and the resyncs.
std::uint32_t barrier_region();
std::uint32_t collective_region(int operation);
std::uint32_t sync_region(bool first);
// Index = region number.
std::vector<std::string> region_names();

struct Span {
  double start = 0;  // global clock, seconds
  double end = 0;
  std::uint32_t region = 0;
  bool operator==(const Span&) const = default;
};

struct NestedSpans {
  std::vector<Span> spans;       // by start; each inside the open ones or after them
  std::uint64_t not_nested = 0;  // left out: overlapping an earlier one in part
};

// Every kept call and sync of this process (the MPI_Init sync included),
// nested as above.
NestedSpans spans_of(const RankTrace& trace);
NestedSpans nested(std::vector<Span> spans);

// One rank's part of the archive: its node (index and name) and its spans.
struct LocationPart {
  int node = 0;
  std::string node_name;
  std::vector<Span> spans;
  bool operator==(const LocationPart&) const = default;
};
// What travels from a rank to rank 0, in this machine's byte order (all
// ranks run the same build): 20 bytes a span after the node.
std::string encode(const LocationPart& part);
// False when `bytes` is not a part (then `part` is unspecified).
bool decode(std::string_view bytes, LocationPart& part);

}  // namespace harmonize::trace
