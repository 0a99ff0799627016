#pragma once
// CommRecords as flat doubles, so that one PMPI_Gatherv moves every process's
// records to world rank 0 at the end (pure).
#include <optional>
#include <span>
#include <vector>

#include "harmonize/comm_state.hpp"

namespace harmonize {

void append_record(std::vector<double>& out, const CommRecord& record);
std::vector<double> encode_records(std::span<const CommRecord> records);
// nullopt when the data is malformed (a bug, never user input).
std::optional<std::vector<CommRecord>> decode_records(std::span<const double> in);

}  // namespace harmonize
