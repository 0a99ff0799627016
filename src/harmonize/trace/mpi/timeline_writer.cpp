#include "harmonize/trace/mpi/timeline_writer.hpp"

#include <unistd.h>
#include <cstdio>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/raw_bytes.hpp"
#include "config/trace_window.hpp"
#include "harmonize/trace/otf2_archive.hpp"
#include "harmonize/trace/packed_bytes.hpp"
#include "harmonize/trace/spans.hpp"
#include "report/report_fallback.hpp"
#include "report/report_file.hpp"
#include "sync/mpi/comm_collectives.hpp"
#include "sync/mpi/gather.hpp"
#include "sync/mpi/host_of_rank.hpp"
#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/tree_merge.hpp"

namespace harmonize::trace {
namespace {

// The trace's tree runs before the report's, on the same tag: between one
// child and its parent MPI keeps them in that order. GroupTransport's tags
// start at 1.
constexpr int kTreeTag = 0;
// Room for the file's tail (its metadata) when the text is reserved.
constexpr std::size_t kTailReserve = 64 * 1024;

// One rank's part of the timeline: its trace-event JSON and its OTF2 spans
// (trace::encode), each empty when not asked for or when the rank had no
// memory for it. Views into the bytes that carry it: a subtree's parts are
// held once, where they arrived.
struct RankPart {
  int rank = 0;
  std::string_view json;
  std::string_view otf2;
};

// A subtree's parts travel as one byte string (rank, lengths, bytes) packed
// into doubles, the tree's unit.
void append_part(PackedBytes& out, const RankPart& part) {
  out.append_value(static_cast<std::int32_t>(part.rank));
  out.append_value(static_cast<std::uint64_t>(part.json.size()));
  out.append(part.json);
  out.append_value(static_cast<std::uint64_t>(part.otf2.size()));
  out.append(part.otf2);
}

// The parts of `bytes`; nullopt if it is not a sequence of parts.
std::optional<std::vector<RankPart>> parts_of(std::string_view bytes) {
  const std::span<const char> raw(bytes.data(), bytes.size());
  std::vector<RankPart> parts;
  std::size_t at = 0;
  const auto text = [&](std::string_view& into) {
    if (bytes.size() - at < sizeof(std::uint64_t)) return false;
    const auto length = read_raw<std::uint64_t>(raw, at);
    at += sizeof length;
    if (bytes.size() - at < length) return false;
    into = bytes.substr(at, length);
    at += length;
    return true;
  };
  while (at < bytes.size()) {
    if (bytes.size() - at < sizeof(std::int32_t)) return std::nullopt;
    RankPart part;
    part.rank = read_raw<std::int32_t>(raw, at);
    at += sizeof(std::int32_t);
    if (!text(part.json) || !text(part.otf2)) return std::nullopt;
    parts.push_back(std::move(part));
  }
  return parts;
}

std::string with_item(const std::string& list, const std::string& item) {
  return list + (list.empty() ? "" : ", ") + item;
}

// Where the archive goes: the directory HARMONIZE_TRACE names (format otf2),
// or beside the JSON file, its name less .json plus -otf2 (format both).
std::string archive_directory(const std::string& path, bool beside_json) {
  if (!beside_json) return path;
  const std::string suffix = ".json";
  const bool has_suffix = path.size() > suffix.size() &&
                          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return (has_suffix ? path.substr(0, path.size() - suffix.size()) : path) + "-otf2";
}

// The archive into `directory`, or the first free name after it (nothing is
// overwritten), as a report file is written.
report::WrittenReport write_archive(const std::string& directory,
                                    const std::vector<LocationPart>& parts) {
  report::WrittenReport written;
  written.final_path = fresh_directory_name(directory);
  written.renamed_because_exists = written.final_path != directory;
  written.error = write_otf2_archive(written.final_path, parts);
  if (!written.error.empty()) written.final_path.clear();
  return written;
}

// The name of this process's track: the node's first rank names it.
std::string node_track_name(const sync::Layout& layout, int world_rank, int node_index,
                            const std::string& host) {
  const std::vector<sync::Placement>& placed = layout.of_rank;
  if (static_cast<std::size_t>(world_rank) < placed.size()) {
    const int node_id = placed[static_cast<std::size_t>(world_rank)].node;
    for (int r = 0; r < world_rank; ++r)
      if (placed[static_cast<std::size_t>(r)].node == node_id) return std::string();
  }
  return "node " + std::to_string(node_index) + " (" + host + ")";
}

// The ranks whose parts did not arrive, as ranges ("3, 8-11").
std::string lost_ranges(const std::vector<bool>& arrived) {
  std::string list;
  for (std::size_t first = 0; first < arrived.size(); ++first) {
    if (arrived[first]) continue;
    std::size_t last = first;
    while (last + 1 < arrived.size() && !arrived[last + 1]) ++last;
    list =
        with_item(list, std::to_string(first) + (last > first ? "-" + std::to_string(last) : ""));
    first = last;
  }
  return list;
}

}  // namespace

std::unique_ptr<feature::Feature> TimelineWriter::make(const feature::JobContext& job) {
  if (job.policy.trace == "none" || !job.policy.needs_clock()) return nullptr;
  return std::make_unique<TimelineWriter>(job.policy, job.world_rank, job.world_size, job.node);
}

void TimelineWriter::started(const protocol::WorldClock& world_clock) {
  const protocol::WorldClock::Snapshot world = world_clock.snapshot();
  trace_.first_sync =
      SyncEvent{world.synced_at - world_clock.initial_seconds(), world.synced_at, true};
}

TimelineWriter::TimelineWriter(const config::Policy& policy, int world_rank, int world_size,
                               sync::NodeNumber node)
    : policy_(policy),
      world_rank_(world_rank),
      world_size_(world_size),
      node_(node),
      trace_(policy.trace_window) {}

void TimelineWriter::finish(MPI_Comm world, const sync::Layout& layout) {
  const bool json = policy_.trace_format != config::TraceFormat::otf2;
  const bool otf2 = policy_.trace_format != config::TraceFormat::json;
  const std::string host = sync::processor_name();
  NestedSpans spans;
  if (otf2) spans = spans_of(trace_);
  const std::uint64_t mine[2] = {trace_.dropped(), spans.not_nested};
  std::uint64_t sums[2] = {0, 0};
  const bool summed = sync::sum_to_root(world, mine, sums);
  const std::uint64_t dropped_total = summed ? sums[0] : mine[0];
  const std::uint64_t not_nested_total = summed ? sums[1] : mine[1];
  // The origin every rank renders from: the earliest start of any rank's
  // sync at MPI_Init, before which nothing is traced, so that every event
  // is at ts >= 0 (Perfetto drops negative timestamps; the end of rank 0's
  // sync, the origin before, put every sync span before it).
  const double own_start[1] = {trace_.first_sync ? trace_.first_sync->start : 0.0};
  double origin[1] = {own_start[0]};
  try {
    sync::CommCollectives(world, world_rank_, world_size_, false)
        .all_reduce(own_start, origin, sync::ReduceOp::min);
  } catch (const sync::MpiError&) {
    // Rendered from this rank's own origin: misplaced in time, not lost.
  }
  // A part a rank has no memory for travels empty: rank 0 names the rank.
  const auto rendered = [](auto render) {
    try {
      return render();
    } catch (const std::exception&) {
      return std::string();
    }
  };
  PackedBytes subtree;
  try {
    const std::string own_json = !json ? std::string() : rendered([&] {
      return render_events(trace_, {node_.index, world_rank_, origin[0]},
                           node_track_name(layout, world_rank_, node_.index, host));
    });
    const std::string own_otf2 = !otf2 ? std::string() : rendered([&] {
      return encode({node_.index, host, std::move(spans.spans)});
    });
    // Rendered: the events are not needed while the tree runs.
    trace_.release_events();
    append_part(subtree, {.rank = world_rank_, .json = own_json, .otf2 = own_otf2});
  } catch (const std::exception&) {
    subtree.clear();  // rank 0 names this rank as missing
  }
  std::string lost;
  sync::merge_up_tree(world, kTreeTag,
                      {.absorb =
                           [&](std::span<const double> child) {
                             const std::optional<std::string_view> bytes = unpacked(child);
                             if (!bytes || !parts_of(*bytes)) return false;
                             subtree.append(*bytes);
                             return true;
                           },
                       .missing =
                           [&](const sync::MissingSubtree& gone) {
                             lost = with_item(
                                 lost, "message " + std::to_string(gone.step) + " to world rank " +
                                           std::to_string(world_rank_) + ": " + gone.what);
                           },
                       // Given up, not copied: a rank below world rank 0
                       // is done with it.
                       .encode = [&] { return subtree.take(); }});
  if (world_rank_ != 0) {
    // World rank 0 names the ranks; the cause is seen here.
    if (!lost.empty())
      std::fprintf(stderr, "harmonize: error: a part of the timeline was lost: %s\n", lost.c_str());
    return;
  }

  std::vector<RankPart> by_rank(static_cast<std::size_t>(world_size_));
  std::vector<bool> arrived(by_rank.size(), false);
  for (const RankPart& part : parts_of(subtree.bytes()).value_or(std::vector<RankPart>{})) {
    if (part.rank < 0 || part.rank >= world_size_) continue;
    arrived[static_cast<std::size_t>(part.rank)] = true;
    by_rank[static_cast<std::size_t>(part.rank)] = part;
  }
  std::string text;
  if (json) {
    // One allocation: a text grown by doubling holds both copies at each step.
    std::size_t parts_bytes = 0;
    for (std::size_t rank = 0; rank < by_rank.size(); ++rank)
      if (arrived[rank]) parts_bytes += by_rank[rank].json.size();
    text = file_head(origin[0]);
    text.reserve(text.size() + parts_bytes + kTailReserve);
  }
  std::vector<LocationPart> locations(otf2 ? by_rank.size() : 0);
  std::string missing = lost_ranges(arrived);
  if (!missing.empty() && !lost.empty()) missing += " (" + lost + ")";
  for (std::size_t rank = 0; rank < by_rank.size(); ++rank) {
    if (!arrived[rank]) continue;
    const RankPart& part = by_rank[rank];
    bool whole = !json || !part.json.empty();
    if (json) text += part.json;
    if (otf2 && (part.otf2.empty() || !decode(part.otf2, locations[rank]))) {
      whole = false;
      locations[rank] = {};
    }
    if (!whole) missing = with_item(missing, std::to_string(rank) + " (no memory for it)");
  }
  if (!missing.empty())
    std::fprintf(stderr, "harmonize: error: the timeline lacks the events of world ranks %s\n",
                 missing.c_str());
  const std::string window = config::trace_window_text(policy_.trace_window);
  char host_name[256] = {0};
  gethostname(host_name, sizeof host_name - 1);
  const std::string path = report::expand_report_path(
      policy_.trace, report::report_job_id(static_cast<int>(getpid())), host_name);
  info_ = report::TraceInfo{{}, window, dropped_total, {}, {}};
  if (json) {
    // Every part is copied out (the text, the decoded locations): the bytes
    // they were views into go before the file's text grows its tail.
    subtree.clear();
    text += file_tail(window, world_size_, dropped_total);
    write_json(path, text);
  }
  if (otf2) write_otf2(json ? info_->file : path, json, locations, not_nested_total);
}

void TimelineWriter::write_json(const std::string& path, const std::string& text) {
  // Where the report goes when its place is gone (a directory removed during
  // the run, a full disk): the working directory, then $TMPDIR.
  const std::string job_id = report::report_job_id(static_cast<int>(getpid())) + "-timeline";
  const report::SavedReport saved = report::save_with_fallbacks(path, text, job_id);
  const report::WrittenReport& written = saved.written;
  info_->file = written.final_path;
  if (const std::string problem = report::save_problem(saved, "timeline"); !problem.empty()) {
    std::fprintf(stderr, "harmonize: %s\n", problem.c_str());
    if (written.final_path.empty()) info_->lost = path;
  } else if (written.renamed_because_exists) {
    std::fprintf(stderr, "harmonize: %s exists, not overwritten; timeline written to %s\n",
                 path.c_str(), written.final_path.c_str());
  } else if (!policy_.quiet) {
    std::fprintf(stderr, "harmonize: timeline %s (%.1f MB; open it in https://ui.perfetto.dev)\n",
                 written.final_path.c_str(), static_cast<double>(text.size()) / 1e6);
  }
}

void TimelineWriter::write_otf2(const std::string& path, bool beside_json,
                                const std::vector<LocationPart>& parts, std::uint64_t not_nested) {
  if (beside_json && path.empty()) return;  // no JSON file: said above, and no name to go beside
  // Where the report would go when its place is gone (a full disk, a
  // directory removed during the run): the working directory, then $TMPDIR.
  const std::string asked = archive_directory(path, beside_json);
  const auto slash = asked.rfind('/');
  const report::SavedReport saved = report::save_somewhere(
      asked, slash == std::string::npos ? asked : asked.substr(slash + 1),
      report::fallback_places(), true,
      [&parts](const std::string& where) { return write_archive(where, parts); });
  const std::string& directory = saved.written.final_path;
  if (const std::string problem = report::save_problem(saved, "OTF2 timeline"); !problem.empty()) {
    std::fprintf(stderr, "harmonize: %s\n", problem.c_str());
    if (directory.empty()) {
      if (!beside_json) info_->lost = path;
      return;
    }
  }
  info_->otf2 = directory + "/traces.otf2";
  if (!beside_json) info_->file = info_->otf2;
  if (saved.written.renamed_because_exists && saved.error.empty() && !beside_json)
    std::fprintf(stderr, "harmonize: %s exists, not overwritten; OTF2 timeline written to %s\n",
                 path.c_str(), directory.c_str());
  else if (!policy_.quiet && saved.error.empty())
    std::fprintf(stderr, "harmonize: OTF2 timeline %s\n", info_->otf2.c_str());
  if (not_nested > 0)
    std::fprintf(stderr,
                 "harmonize: the OTF2 timeline leaves out %llu calls that overlapped an earlier "
                 "one only in part (non-blocking; the JSON has them)\n",
                 static_cast<unsigned long long>(not_nested));
}

}  // namespace harmonize::trace
