#include "harmonize/trace/events.hpp"

#include <cctype>
#include <cstdio>
#include <string_view>

#include "common/collective_kind.hpp"
#include "common/overlap_population.hpp"

namespace harmonize::trace {
namespace {

// Microseconds with nanosecond digits: the trace-event format's unit.
std::string micros(double seconds) {
  char text[48];
  std::snprintf(text, sizeof text, "%.3f", seconds * 1e6);
  return text;
}

// JSON string contents: communicator names are the library's own, a host
// name is the system's.
std::string escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(c));
      out += code;
    } else {
      out += c;
    }
  }
  return out;
}

// One event at a time, appended to `out`: begin, then the phase's own
// members, then args() and fields, then end().
class Writer {
 public:
  Writer(std::string& out, const Track& track) : out_(out), track_(track) {}

  void begin(const char* phase, std::string_view name, const char* category, double at) {
    out_ += ",\n{\"ph\":\"";
    out_ += phase;
    out_ += "\",\"name\":\"" + escaped(name) + "\",\"cat\":\"";
    out_ += category;
    out_ += "\",\"pid\":" + std::to_string(track_.node) + ",\"tid\":" + std::to_string(track_.rank);
    out_ += ",\"ts\":" + micros(at - track_.origin);
  }
  void duration(double seconds) { out_ += ",\"dur\":" + micros(seconds); }
  void instant() { out_ += ",\"s\":\"t\""; }
  void args() { out_ += ",\"args\":{"; }
  void field(const char* key, const std::string& value) {
    if (out_.back() != '{') out_ += ',';
    out_ += '"';
    out_ += key;
    out_ += "\":" + value;
  }
  void text(const char* key, std::string_view value) { field(key, "\"" + escaped(value) + "\""); }
  void flag(const char* key, bool value) { field(key, value ? "true" : "false"); }
  void span(const char* key, double seconds) { field(key, micros(seconds)); }
  void time(const char* key, double global) { field(key, micros(global - track_.origin)); }
  void end() { out_ += "}}"; }

 private:
  std::string& out_;
  const Track& track_;
};

// An instant of one barrier call, its args left open for the caller's own.
void call_instant(Writer& w, const char* name, double at, const CommTrace& comm,
                  std::uint64_t index) {
  w.begin("i", name, "barrier", at);
  w.instant();
  w.args();
  w.text("comm", comm.name);
  w.field("call", std::to_string(index));
}

void barrier_events(Writer& w, const CommTrace& comm) {
  for (const BarrierEvent& e : comm.barriers.kept()) {
    w.begin("X", "MPI_Barrier", "barrier", e.entry);
    w.duration(e.exit - e.entry);
    w.args();
    w.text("comm", comm.name);
    w.field("call", std::to_string(e.index));
    w.flag("harmonized", e.harmonized);
    if (e.harmonized) {
      w.time("deadline_us", e.deadline);
      w.field("flag", e.missed || e.late ? "0" : "1");
      w.span("slack_us", e.slack);
      if (e.delay > 0) w.span("delay_us", e.delay);
    }
    w.span("clock_error_bound_us", e.bound);
    w.end();
    if (e.missed) {
      // Where the deadline was when this process learned it was past.
      call_instant(w, "missed deadline", e.deadline, comm, e.index);
      w.end();
    }
    if (e.late) {
      call_instant(w, "late exit", e.exit, comm, e.index);
      w.span("late_by_us", e.exit - (e.deadline + e.delay));
      w.end();
    }
  }
}

void collective_events(Writer& w, const CommTrace& comm) {
  for (const CollectiveEvent& e : comm.collectives.kept()) {
    w.begin("X", mpi_name(e.operation), "collective", e.entry);
    w.duration(e.exit - e.entry);
    w.args();
    w.text("comm", comm.name);
    w.field("call", std::to_string(e.index));
    w.field("bytes", std::to_string(e.bytes));
    if (e.root >= 0) w.field("root", std::to_string(e.root));
    w.flag("after_valid_barrier", e.after_valid_barrier);
    if (e.overlap >= 0) {
      w.span("overlap_us", e.overlap);
      w.flag("overlap_worked", overlap_worked(e.overlap, e.exit - e.entry));
    }
    w.end();
  }
}

void sync_event(Writer& w, const SyncEvent& e, std::string_view comm) {
  w.begin("X", e.first ? "clock sync" : "clock resync", "sync", e.start);
  w.duration(e.end - e.start);
  w.args();
  w.text("comm", comm);
  w.end();
}

void sync_events(Writer& w, const CommTrace& comm) {
  for (const SyncEvent& e : comm.syncs.kept()) sync_event(w, e, comm.name);
}

// A metadata event of this process's tracks; `args` is the JSON object's inside.
void metadata(std::string& out, const Track& track, const char* name, const std::string& args) {
  out += ",\n{\"ph\":\"M\",\"name\":\"";
  out += name;
  out += "\",\"pid\":" + std::to_string(track.node) + ",\"tid\":" + std::to_string(track.rank) +
         ",\"args\":{" + args + "}}";
}

}  // namespace

std::string mpi_name(int operation) {
  std::string name(name_of(static_cast<Collective>(operation)));
  name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
  return "MPI_" + name;
}

std::uint64_t RankTrace::dropped() const {
  std::uint64_t total = 0;
  for (const auto& comm : comms_)
    total += comm->barriers.dropped() + comm->collectives.dropped() + comm->syncs.dropped();
  return total;
}

std::string render_events(const RankTrace& trace, const Track& track,
                          const std::string& node_name) {
  std::string out;
  Writer w(out, track);
  if (!node_name.empty()) {
    metadata(out, track, "process_name", "\"name\":\"" + escaped(node_name) + "\"");
    metadata(out, track, "process_sort_index", "\"sort_index\":" + std::to_string(track.node));
  }
  metadata(out, track, "thread_name", "\"name\":\"rank " + std::to_string(track.rank) + "\"");
  metadata(out, track, "thread_sort_index", "\"sort_index\":" + std::to_string(track.rank));
  if (trace.first_sync) sync_event(w, *trace.first_sync, "MPI_COMM_WORLD (MPI_Init)");
  for (const auto& comm : trace.comms()) {
    sync_events(w, *comm);
    barrier_events(w, *comm);
    collective_events(w, *comm);
  }
  return out;
}

std::string file_head(double origin) {
  char text[160];
  std::snprintf(text, sizeof text,
                "{\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"harmonize_origin\",\"pid\":0,"
                "\"tid\":0,\"args\":{\"global_seconds\":%.9f}}",
                origin);
  return text;
}

std::string file_tail(const std::string& window_text, int ranks, std::uint64_t dropped) {
  return "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"producer\":\"harmonize\","
         "\"format_version\":1,\"clock\":\"global (world rank 0's), microseconds from "
         "harmonize_origin\",\"window\":\"" +
         escaped(window_text) + "\",\"ranks\":" + std::to_string(ranks) +
         ",\"dropped_events\":" + std::to_string(dropped) + "}}\n";
}

}  // namespace harmonize::trace
