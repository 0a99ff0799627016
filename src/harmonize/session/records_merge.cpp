#include "harmonize/session/records_merge.hpp"

#include <span>
#include <string>

#include "sync/mpi/tree_merge.hpp"

namespace harmonize {

logic::JobRecords merge_records_up_tree(MPI_Comm world, int world_rank,
                                        logic::ProcessContribution own) {
  logic::JobRecords records = logic::records_of(std::move(own));
  // MPI_COMM_WORLD's copy carries no other tag-0 message (GroupTransport's
  // tags start at 1).
  constexpr int kTreeTag = 0;
  sync::merge_up_tree(
      world, kTreeTag,
      {.absorb =
           [&](std::span<const double> child) {
             auto decoded = logic::decode_job_records(child);
             if (decoded) logic::merge_into(records, *decoded);
             return decoded.has_value();
           },
       .missing =
           [&](const sync::MissingSubtree& lost) {
             records.missing.push_back(
                 "world ranks " + std::to_string(lost.first_rank) + "-" +
                 std::to_string(lost.last_rank) + " (message " + std::to_string(lost.step) +
                 " to world rank " + std::to_string(world_rank) +
                 " in the merge over the library's copy of MPI_COMM_WORLD): " + lost.what);
           },
       .encode = [&] { return logic::encode(records); }});
  return records;
}

}  // namespace harmonize
