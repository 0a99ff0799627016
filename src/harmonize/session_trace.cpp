// HARMONIZE_TRACE at MPI_Finalize: every process renders its own timeline
// (trace-event JSON, OTF2 spans, or both: HARMONIZE_TRACE_FORMAT), and world
// rank 0 takes them one process at a time (it asks for each, so MPI never
// queues P unexpected messages there) into the file or archive it writes by
// the report's rules: a new name, never an overwritten one. Rank 0 holds the
// trace itself and nothing per process beyond it (docs/timeline.md).
#include <mpi.h>

#include <unistd.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "config/trace_window.hpp"
#include "harmonize/otf2_archive.hpp"
#include "harmonize/session_impl.hpp"
#include "harmonize/trace/spans.hpp"
#include "report/report_file.hpp"
#include "sync/mpi/gather.hpp"
#include "sync/mpi/host_of_rank.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {
namespace {

// MPI_COMM_WORLD's copy carries no other tag-0 message by now: the report's
// tree (tag 0) is done, and GroupTransport's tags start at 1.
constexpr int kTraceTag = 0;
// Pieces of at most 1 GiB: MPI counts are ints.
constexpr std::size_t kPiece = std::size_t{1} << 30;

// A rank's part: its length, then (if rank 0 could make room for it) its
// pieces. Rank 0 says yes or no in between, so that a part it cannot hold
// is never left blocking its sender.
void send_text(MPI_Comm world, const std::string& text) {
  unsigned long long length = text.size();
  sync::check_mpi(PMPI_Send(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, kTraceTag, world), "PMPI_Send");
  int room = 0;
  sync::check_mpi(PMPI_Recv(&room, 1, MPI_INT, 0, kTraceTag, world, MPI_STATUS_IGNORE),
                  "PMPI_Recv");
  if (room == 0) return;
  for (std::size_t at = 0; at < text.size(); at += kPiece) {
    const int count = static_cast<int>(std::min(kPiece, text.size() - at));
    sync::check_mpi(PMPI_Send(text.data() + at, count, MPI_CHAR, 0, kTraceTag, world), "PMPI_Send");
  }
}

// Appends `from`'s part to `into`; false when there was no room for it.
bool receive_text(MPI_Comm world, int from, std::string& into) {
  unsigned long long length = 0;
  sync::check_mpi(
      PMPI_Recv(&length, 1, MPI_UNSIGNED_LONG_LONG, from, kTraceTag, world, MPI_STATUS_IGNORE),
      "PMPI_Recv");
  const std::size_t start = into.size();
  int room = 1;
  try {
    into.resize(start + length);
  } catch (const std::exception&) {
    room = 0;
  }
  sync::check_mpi(PMPI_Send(&room, 1, MPI_INT, from, kTraceTag, world), "PMPI_Send");
  if (room == 0) return false;
  for (std::size_t at = 0; at < length; at += kPiece) {
    const int count = static_cast<int>(std::min<std::size_t>(kPiece, length - at));
    sync::check_mpi(PMPI_Recv(into.data() + start + at, count, MPI_CHAR, from, kTraceTag, world,
                              MPI_STATUS_IGNORE),
                    "PMPI_Recv");
  }
  return true;
}

std::string with_item(const std::string& list, const std::string& item) {
  return list + (list.empty() ? "" : ", ") + item;
}

// Where the archive goes: the directory HARMONIZE_TRACE names (format otf2),
// or beside the JSON file, its name less .json plus -otf2 (format both).
std::string archive_directory(const std::string& path, bool beside_json) {
  if (!beside_json) return fresh_directory_name(path);
  const std::string suffix = ".json";
  const bool has_suffix = path.size() > suffix.size() &&
                          path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  return fresh_directory_name((has_suffix ? path.substr(0, path.size() - suffix.size()) : path) +
                              "-otf2");
}

}  // namespace

void SessionImpl::write_trace() {
  const bool json = policy_.trace_format != config::TraceFormat::otf2;
  const bool otf2 = policy_.trace_format != config::TraceFormat::json;
  // The node's first rank names its process track.
  const std::vector<sync::Placement>& placed = layout_.of_rank;
  int first_of_node = world_rank_;
  if (static_cast<std::size_t>(world_rank_) < placed.size()) {
    const int node_id = placed[static_cast<std::size_t>(world_rank_)].node;
    for (int r = 0; r < world_rank_; ++r)
      if (placed[static_cast<std::size_t>(r)].node == node_id) {
        first_of_node = r;
        break;
      }
  }
  const std::string host = sync::processor_name();
  const std::string node_name = first_of_node == world_rank_
                                    ? "node " + std::to_string(node_.index) + " (" + host + ")"
                                    : std::string();
  trace::NestedSpans spans;
  if (otf2) spans = trace::spans_of(*trace_);
  const std::uint64_t mine[2] = {trace_->dropped(), spans.not_nested};
  std::uint64_t dropped[2] = {0, 0};
  const bool summed = sync::sum_to_root(world_, mine, dropped);
  const std::uint64_t dropped_total = summed ? dropped[0] : mine[0];
  const std::uint64_t not_nested_total = summed ? dropped[1] : mine[1];
  // A part a rank has no memory for is sent empty: rank 0 waits for it all
  // the same, and names the rank.
  const auto rendered = [&](auto render) {
    try {
      return render();
    } catch (const std::exception&) {
      return std::string();
    }
  };
  const auto json_part = [&](double origin) {
    return rendered([&] {
      return trace::render_events(*trace_, {node_.index, world_rank_, origin}, node_name);
    });
  };
  const auto otf2_part = [&] {
    return rendered([&] { return trace::encode({node_.index, host, std::move(spans.spans)}); });
  };

  if (world_rank_ != 0) {
    // Rank 0's origin is the go-ahead: the instant its first sync ended.
    double origin = 0;
    try {
      sync::check_mpi(PMPI_Recv(&origin, 1, MPI_DOUBLE, 0, kTraceTag, world_, MPI_STATUS_IGNORE),
                      "PMPI_Recv");
      if (json) send_text(world_, json_part(origin));
      if (otf2) send_text(world_, otf2_part());
    } catch (const sync::MpiError&) {
      // Rank 0 names the ranks it misses.
    }
    return;
  }
  const double origin = trace_->first_sync ? trace_->first_sync->end : 0.0;
  std::string text;
  if (json) {
    text = trace::file_head(origin);
    const std::string own = json_part(origin);
    if (own.empty())
      std::fprintf(stderr,
                   "harmonize: error: the timeline lacks world rank 0's events (no memory)\n");
    text += own;
  }
  std::vector<trace::LocationPart> parts(otf2 ? static_cast<std::size_t>(world_size_) : 0);
  if (otf2) {
    parts[0].node = node_.index;
    parts[0].node_name = host;
    parts[0].spans = std::move(spans.spans);
  }
  std::string missing;
  for (int rank = 1; rank < world_size_; ++rank) {
    const std::size_t before = text.size();
    try {
      sync::check_mpi(PMPI_Send(&origin, 1, MPI_DOUBLE, rank, kTraceTag, world_), "PMPI_Send");
      bool whole = !json || receive_text(world_, rank, text);
      if (otf2) {
        std::string bytes;
        auto& part = parts[static_cast<std::size_t>(rank)];
        if (!receive_text(world_, rank, bytes) || !trace::decode(bytes, part)) {
          whole = false;
          part = {};
        }
      }
      if (!whole) missing = with_item(missing, std::to_string(rank) + " (no memory for it)");
    } catch (const sync::MpiError& error) {
      text.resize(before);
      missing = with_item(missing, std::to_string(rank) + " (" + error.what() + ")");
    }
  }
  if (!missing.empty())
    std::fprintf(stderr, "harmonize: error: the timeline lacks the events of world ranks %s\n",
                 missing.c_str());
  const std::string window = config::trace_window_text(policy_.trace_window);
  char host_name[256] = {0};
  gethostname(host_name, sizeof host_name - 1);
  const std::string path = report::expand_report_path(
      policy_.trace, report::report_job_id(static_cast<int>(getpid())), host_name);
  trace_info_ = report::TraceInfo{{}, window, dropped_total, {}};
  if (json) write_json_trace(path, text + trace::file_tail(window, world_size_, dropped_total));
  if (otf2) write_otf2_trace(json ? trace_info_->file : path, json, parts, not_nested_total);
}

void SessionImpl::write_json_trace(const std::string& path, const std::string& text) {
  const report::WrittenReport written = report::write_report_file(path, text);
  trace_info_->file = written.final_path;
  if (written.final_path.empty()) {
    std::fprintf(stderr, "harmonize: error: the timeline was not written to %s: %s\n", path.c_str(),
                 written.error.c_str());
  } else if (written.renamed_because_exists) {
    std::fprintf(stderr, "harmonize: %s exists, not overwritten; timeline written to %s\n",
                 path.c_str(), written.final_path.c_str());
  } else if (!policy_.quiet) {
    std::fprintf(stderr, "harmonize: timeline %s (%.1f MB; open it in https://ui.perfetto.dev)\n",
                 written.final_path.c_str(), static_cast<double>(text.size()) / 1e6);
  }
}

void SessionImpl::write_otf2_trace(const std::string& path, bool beside_json,
                                   const std::vector<trace::LocationPart>& parts,
                                   std::uint64_t not_nested) {
  if (beside_json && path.empty()) return;  // no JSON file: said above, and no name to go beside
  const std::string directory = archive_directory(path, beside_json);
  const std::string error = write_otf2_archive(directory, parts);
  if (!error.empty()) {
    std::fprintf(stderr, "harmonize: error: the OTF2 timeline was not written to %s: %s\n",
                 directory.c_str(), error.c_str());
    return;
  }
  trace_info_->otf2 = directory + "/traces.otf2";
  if (!beside_json) trace_info_->file = trace_info_->otf2;
  if (directory != path && !beside_json)
    std::fprintf(stderr, "harmonize: %s exists, not overwritten; OTF2 timeline written to %s\n",
                 path.c_str(), directory.c_str());
  else if (!policy_.quiet)
    std::fprintf(stderr, "harmonize: OTF2 timeline %s\n", trace_info_->otf2.c_str());
  if (not_nested > 0)
    std::fprintf(stderr,
                 "harmonize: the OTF2 timeline leaves out %llu calls that overlapped an earlier "
                 "one only in part (non-blocking; the JSON has them)\n",
                 static_cast<unsigned long long>(not_nested));
}

}  // namespace harmonize
