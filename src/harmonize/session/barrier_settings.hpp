#pragma once
// What a communicator's barrier protocol is made with: the policy's slack
// and miss budget, the job's crowding, the clocks' truth (test clocks), its
// name as the report and the warnings say it. The features add theirs
// (feature::Feature::comm_made).
#include <mpi.h>

#include <string>

#include "config/policy.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/protocol/barrier_protocol.hpp"
#include "harmonize/session/session_clocks.hpp"
#include "harmonize/session/session_job.hpp"

namespace harmonize {

protocol::ProtocolSettings barrier_settings(const config::Policy& policy, const SessionJob& job,
                                            const SessionClocks& clocks, const std::string& name);

// "MPI_COMM_WORLD", "MPI_COMM_SELF", the name the program set, or
// "comm#<serial>@<rank 0's world rank> (size N)".
std::string comm_name(MPI_Comm comm, const std::string& set_name, const logic::CommKey& key,
                      int size);

}  // namespace harmonize
