#include "harmonize/trace/otf2_archive.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>

#ifdef HARMONIZE_HAVE_OTF2
#include <otf2/otf2.h>
#endif

namespace harmonize::trace {

std::string fresh_directory_name(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return path;
  for (int n = 1;; ++n) {
    const std::string candidate = path + "-" + std::to_string(n);
    if (stat(candidate.c_str(), &info) != 0) return candidate;
  }
}

#ifndef HARMONIZE_HAVE_OTF2

bool otf2_available() {
  return false;
}

std::string write_otf2_archive(const std::string&, const std::vector<trace::LocationPart>&) {
  return "this build of harmonize has no OTF2";
}

#else

bool otf2_available() {
  return true;
}

namespace {

std::uint64_t nanoseconds(double global_seconds) {
  return static_cast<std::uint64_t>(std::llround(std::max(0.0, global_seconds) * 1e9));
}

// A buffer flush in the middle of the events gets the last time written
// (OTF2 stamps its BufferFlush record with it): a flush is no event of ours.
struct FlushState {
  OTF2_TimeStamp last = 0;
};

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
  return OTF2_FLUSH;
}

OTF2_TimeStamp post_flush(void* user_data, OTF2_FileType, OTF2_LocationRef) {
  return static_cast<FlushState*>(user_data)->last;
}

// Every OTF2 call's result is checked; the first failure is what is told.
class Checked {
 public:
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  void operator()(OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS && error_.empty())
      error_ = std::string(what) + ": " + OTF2_Error_GetName(code);
  }

 private:
  std::string error_;
};

// The string table of the global definitions: each text once.
class Strings {
 public:
  explicit Strings(OTF2_GlobalDefWriter* writer, Checked& check) : writer_(writer), check_(check) {}
  OTF2_StringRef operator()(const std::string& text) {
    const auto found = refs_.find(text);
    if (found != refs_.end()) return found->second;
    const auto ref = static_cast<OTF2_StringRef>(refs_.size());
    check_(OTF2_GlobalDefWriter_WriteString(writer_, ref, text.c_str()), "WriteString");
    refs_.emplace(text, ref);
    return ref;
  }

 private:
  OTF2_GlobalDefWriter* writer_;
  Checked& check_;
  std::map<std::string, OTF2_StringRef> refs_;
};

// Enter and leave each span of one location, nested as trace::nested made
// them: two events a span.
void write_events(OTF2_EvtWriter* writer, const std::vector<trace::Span>& spans, FlushState& flush,
                  Checked& check) {
  std::vector<const trace::Span*> open;
  const auto leave_until = [&](double time) {
    while (!open.empty() && open.back()->end <= time) {
      flush.last = nanoseconds(open.back()->end);
      check(OTF2_EvtWriter_Leave(writer, nullptr, flush.last, open.back()->region), "Leave");
      open.pop_back();
    }
  };
  for (const trace::Span& span : spans) {
    leave_until(span.start);
    flush.last = nanoseconds(span.start);
    check(OTF2_EvtWriter_Enter(writer, nullptr, flush.last, span.region), "Enter");
    open.push_back(&span);
  }
  leave_until(std::numeric_limits<double>::infinity());
}

OTF2_RegionRole role_of(std::uint32_t region) {
  if (region == trace::barrier_region()) return OTF2_REGION_ROLE_BARRIER;
  if (region >= trace::sync_region(true)) return OTF2_REGION_ROLE_ARTIFICIAL;
  return OTF2_REGION_ROLE_COLL_OTHER;
}

// OTF2's own error messages, kept rather than printed: a full disk once gave
// 14 raw "[OTF2]" lines around the one that says why. The first is the cause.
class QuietErrors {
 public:
  QuietErrors() : previous_(OTF2_Error_RegisterCallback(&QuietErrors::keep, this)) {}
  ~QuietErrors() { OTF2_Error_RegisterCallback(previous_, nullptr); }
  QuietErrors(const QuietErrors&) = delete;
  QuietErrors& operator=(const QuietErrors&) = delete;
  const std::string& first() const { return first_; }

 private:
  static OTF2_ErrorCode keep(void* self, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                             const char* format, va_list arguments) {
    const int cause = errno;  // what the failed POSIX call left: ENOSPC on a full disk
    auto* errors = static_cast<QuietErrors*>(self);
    if (errors != nullptr && errors->first_.empty()) {
      char text[512];
      std::vsnprintf(text, sizeof text, format, arguments);
      errors->first_ = text;
      if (cause != 0) errors->first_ += std::string(": ") + std::strerror(cause);
    }
    return code;
  }
  OTF2_ErrorCallback previous_;
  std::string first_;
};

std::string write_archive(const std::string& directory,
                          const std::vector<trace::LocationPart>& parts);

}  // namespace

std::string write_otf2_archive(const std::string& directory,
                               const std::vector<trace::LocationPart>& parts) {
  if (mkdir(directory.c_str(), 0777) != 0)
    return "cannot create " + directory + ": " + std::strerror(errno);
  QuietErrors errors;
  std::string error = write_archive(directory, parts);
  if (error.empty()) return error;
  if (!errors.first().empty()) error += " (" + errors.first() + ")";
  // Made here, so nobody else's: no broken archive is left under the name.
  std::error_code ignored;
  std::filesystem::remove_all(directory, ignored);
  return error;
}

namespace {

std::string write_archive(const std::string& directory,
                          const std::vector<trace::LocationPart>& parts) {
  OTF2_Archive* archive =
      OTF2_Archive_Open(directory.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                        4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (archive == nullptr) return "cannot open an OTF2 archive in " + directory;
  Checked check;
  FlushState flush;
  OTF2_FlushCallbacks callbacks{pre_flush, post_flush};
  check(OTF2_Archive_SetFlushCallbacks(archive, &callbacks, &flush), "SetFlushCallbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "SetSerialCollectiveCallbacks");

  std::uint64_t first = std::numeric_limits<std::uint64_t>::max(), last = 0;
  check(OTF2_Archive_OpenEvtFiles(archive), "OpenEvtFiles");
  for (std::size_t rank = 0; check.ok() && rank < parts.size(); ++rank) {
    OTF2_EvtWriter* writer = OTF2_Archive_GetEvtWriter(archive, rank);
    if (writer == nullptr) {
      check(OTF2_ERROR_INVALID, "GetEvtWriter");
      break;
    }
    write_events(writer, parts[rank].spans, flush, check);
    for (const trace::Span& span : parts[rank].spans) {
      first = std::min(first, nanoseconds(span.start));
      last = std::max(last, nanoseconds(span.end));
    }
    check(OTF2_Archive_CloseEvtWriter(archive, writer), "CloseEvtWriter");
  }
  check(OTF2_Archive_CloseEvtFiles(archive), "CloseEvtFiles");
  // Every location has its (empty) local definitions, which readers expect.
  check(OTF2_Archive_OpenDefFiles(archive), "OpenDefFiles");
  for (std::size_t rank = 0; check.ok() && rank < parts.size(); ++rank) {
    OTF2_DefWriter* writer = OTF2_Archive_GetDefWriter(archive, rank);
    if (writer == nullptr) {
      check(OTF2_ERROR_INVALID, "GetDefWriter");
      break;
    }
    check(OTF2_Archive_CloseDefWriter(archive, writer), "CloseDefWriter");
  }
  check(OTF2_Archive_CloseDefFiles(archive), "CloseDefFiles");

  OTF2_GlobalDefWriter* defs = OTF2_Archive_GetGlobalDefWriter(archive);
  if (defs == nullptr) check(OTF2_ERROR_INVALID, "GetGlobalDefWriter");
  if (check.ok()) {
    if (first > last) first = last = 0;  // no event kept
    check(OTF2_GlobalDefWriter_WriteClockProperties(defs, 1000000000, first, last - first,
                                                    OTF2_UNDEFINED_TIMESTAMP),
          "WriteClockProperties");
    Strings strings(defs, check);
    const std::vector<std::string> names = trace::region_names();
    for (std::uint32_t region = 0; region < names.size(); ++region) {
      const bool call = region < trace::sync_region(true);
      check(OTF2_GlobalDefWriter_WriteRegion(
                defs, region, strings(names[region]), strings(names[region]),
                strings(call ? "MPI call (harmonize)" : "harmonize's clock synchronization"),
                role_of(region), call ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_MEASUREMENT_SYSTEM,
                OTF2_REGION_FLAG_NONE, strings(""), 0, 0),
            "WriteRegion");
    }
    // The machine, its nodes (the library's), a process per rank.
    const OTF2_SystemTreeNodeRef machine = 0;
    check(OTF2_GlobalDefWriter_WriteSystemTreeNode(
              defs, machine, strings("job"), strings("machine"), OTF2_UNDEFINED_SYSTEM_TREE_NODE),
          "WriteSystemTreeNode");
    std::map<int, OTF2_SystemTreeNodeRef> nodes;
    for (const trace::LocationPart& part : parts) {
      if (nodes.count(part.node) != 0) continue;
      const auto ref = static_cast<OTF2_SystemTreeNodeRef>(nodes.size() + 1);
      nodes.emplace(part.node, ref);
      check(
          OTF2_GlobalDefWriter_WriteSystemTreeNode(
              defs, ref, strings("node " + std::to_string(part.node) + " (" + part.node_name + ")"),
              strings("node"), machine),
          "WriteSystemTreeNode");
    }
    for (std::size_t rank = 0; rank < parts.size(); ++rank) {
      const std::string name = "rank " + std::to_string(rank);
      check(OTF2_GlobalDefWriter_WriteLocationGroup(defs, static_cast<OTF2_LocationGroupRef>(rank),
                                                    strings(name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                    nodes[parts[rank].node],
                                                    OTF2_UNDEFINED_LOCATION_GROUP),
            "WriteLocationGroup");
      check(OTF2_GlobalDefWriter_WriteLocation(
                defs, rank, strings(name), OTF2_LOCATION_TYPE_CPU_THREAD,
                2 * parts[rank].spans.size(), static_cast<OTF2_LocationGroupRef>(rank)),
            "WriteLocation");
    }
    check(OTF2_Archive_CloseGlobalDefWriter(archive, defs), "CloseGlobalDefWriter");
  }
  check(OTF2_Archive_Close(archive), "Close");
  return check.error();
}

}  // namespace

#endif

}  // namespace harmonize::trace
