#pragma once
// HARMONIZE_TRACE_FORMAT=otf2|both: the OTF2 archive world rank 0 writes at
// MPI_Finalize from every rank's spans (trace/spans.hpp): one location per
// rank in a location group of its own, under its node in the system tree,
// every timestamp a nanosecond of the global clock (docs/timeline.md).
#include <string>
#include <vector>

#include "harmonize/trace/spans.hpp"

namespace harmonize::trace {

// Whether this build writes OTF2 (Debian's libopen-trace-format2-dev found).
bool otf2_available();

// Writes the archive into `directory` (which must not exist yet: it is
// created), anchor file traces.otf2; `parts[r]` is world rank r's. Returns
// what failed, or an empty string.
std::string write_otf2_archive(const std::string& directory,
                               const std::vector<trace::LocationPart>& parts);

// `path` if nothing is there, else the first of path-1, path-2, ... that is
// free (the report's rule: nothing is overwritten).
std::string fresh_directory_name(const std::string& path);

}  // namespace harmonize::trace
