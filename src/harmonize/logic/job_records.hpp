#pragma once
// Everything a group of processes contributes to the report at
// MPI_Finalize, merged so far (pure): each communicator's records, the host
// names, the shared-clock fallbacks, the processes that ran harmonized
// barriers in several threads, and what could not be merged. Merged up a
// tree (sync/mpi/tree_merge), so world rank 0 holds O(communicators + hosts)
// bytes whatever the number of processes.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "harmonize/logic/partial_comm.hpp"

namespace harmonize::logic {

// Processes whose own shared-clock check disagreed (a sub-communicator's
// fallback world rank 0 did not see itself): the worst disagreement and its
// node, and the nodes where any was seen.
struct SharedClockFallbacks {
  double worst = 0;
  int worst_node = -1;
  std::set<int> nodes;
  bool sub_communicator = false;
};

struct JobRecords {
  std::map<CommKey, PartialComm> comms;
  std::set<std::string> hosts;
  SharedClockFallbacks fallbacks;
  std::uint64_t threaded_processes = 0;
  // Resyncs whose clock was refused as much worse than the one kept, all
  // processes (protocol::WorldClock::refused_resyncs).
  std::uint64_t refused_resyncs = 0;
  // Sentences naming what is missing from the merge (a failed message).
  std::vector<std::string> missing;
};

// What one process brings: its records, its host, its own shared-clock
// fallbacks, and whether it ran harmonized barriers in several threads at
// once.
struct ProcessContribution {
  std::vector<CommRecord> records;
  std::string host;
  SharedClockFallbacks clock_fallback;
  bool threaded = false;
  std::uint64_t refused_resyncs = 0;
};
JobRecords records_of(ProcessContribution process);

void merge_into(JobRecords& into, const JobRecords& more);

std::vector<double> encode(const JobRecords& records);
// nullopt when malformed (a bug, never user input).
std::optional<JobRecords> decode_job_records(std::span<const double> in);

// The report's communicators: MPI_COMM_WORLD first, the others by key.
std::vector<MergedCommunicator> finish(const JobRecords& records, bool with_truth);

}  // namespace harmonize::logic
