#pragma once
// HARMONIZE_TRACE as a feature of the session: this process's timeline while the job runs, and at
// MPI_Finalize every process's, merged up the binomial tree of the report
// (sync/mpi/tree_merge.hpp: world rank 0 receives ceil(log2 P) messages) into
// the file or archive world rank 0 writes by the report's rules (a new name,
// never an overwritten one). docs/timeline.md.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/policy.hpp"
#include "harmonize/feature/feature.hpp"
#include "harmonize/trace/events.hpp"
#include "harmonize/trace/spans.hpp"
#include "report/job_report.hpp"
#include "sync/layout.hpp"

namespace harmonize::trace {

class TimelineWriter final : public feature::Feature {
 public:
  // Null without HARMONIZE_TRACE (or without a world clock to stamp on).
  static std::unique_ptr<feature::Feature> make(const feature::JobContext& job);
  // `node`: this process's node (its index names the process track).
  TimelineWriter(const config::Policy& policy, int world_rank, int world_size,
                 sync::NodeNumber node);

  // The world clock's first sync, the timeline's origin.
  void started(const protocol::WorldClock& world_clock) override;
  // What the communicator's barrier protocol and collective matching record into.
  void comm_made(feature::CommSetup& comm) override {
    comm.settings.trace = &trace_.comm(comm.name);
  }

  // Collective over `world` (the library's private copy): every process's
  // timeline to world rank 0, which writes it; MPI failures name the ranks
  // whose events are missing, nothing is thrown. `layout`: the node of every
  // world rank (a node's first rank names its process track).
  void finish(MPI_Comm world, const sync::Layout& layout) override;

  // World rank 0, after finish(): what the report says of the timeline.
  void contribute(report::JobReport& job, const logic::JobRecords&) const override {
    job.trace = info_;
  }

 private:
  void write_json(const std::string& path, const std::string& text);
  void write_otf2(const std::string& path, bool beside_json, const std::vector<LocationPart>& parts,
                  std::uint64_t not_nested);

  const config::Policy& policy_;
  int world_rank_;
  int world_size_;
  sync::NodeNumber node_;
  RankTrace trace_;
  std::optional<report::TraceInfo> info_;
};

}  // namespace harmonize::trace
