#pragma once
// What the library keeps per user communicator, attached to it as an MPI
// attribute (freed with it; see registry.hpp). It costs the program no
// communicator: the barrier's collectives run on the user's communicator
// (every member calls them in the same order inside MPI_Barrier), and
// point-to-point sync traffic runs on the library's private world.
#include <mpi.h>

#include <cstdint>
#include <memory>

#include "harmonize/feature/comm_view.hpp"
#include "harmonize/logic/record_store.hpp"
#include "harmonize/protocol/barrier_protocol.hpp"
#include "harmonize/protocol/session_clock.hpp"
#include "sync/mpi/comm_collectives.hpp"

namespace harmonize {

struct CommState {
  // As the features see it: the handle, kind, members, clock and timeline
  // below, and where the timed calls are counted (`timed`).
  feature::CommView view;
  logic::CommKey key;  // agreed by all members
  // Self and inter communicators are passed through and counted here.
  logic::CommRecord passed_through;
  int last_flag = -1;  // of MPIX_Harmonize on a self or inter communicator
  // MPI_Barrier calls so far (the same on every member): HARMONIZE_ALTERNATE
  // runs every second one natively, HARMONIZE_INTERLEAVE's schedule is
  // indexed by it.
  std::uint64_t barriers = 0;

  // Intracommunicators of size > 1 only.
  std::unique_ptr<sync::CommCollectives> members;
  std::unique_ptr<protocol::SessionClock> clock;
  std::unique_ptr<protocol::BarrierProtocol> protocol;

  // What the collective timer matched on this communicator (only the
  // collective fields are used).
  report::CommStats timed;

  logic::CommRecord final_record() const {
    logic::CommRecord record = protocol ? protocol->final_record() : passed_through;
    report::add_collectives(record.stats, timed);
    return record;
  }
};

}  // namespace harmonize
