#pragma once
// What the library keeps per user communicator, attached to it as an MPI
// attribute (freed with it). It costs the program no communicator: the
// barrier's own reduce and broadcast run on the user's communicator (every
// member calls them in the same order inside MPI_Barrier), and point-to-point
// sync traffic runs on the library's private world (docs/barrier.md).
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "clock/global_clock.hpp"
#include "harmonize/logic/call_log.hpp"
#include "harmonize/logic/slack_controller.hpp"
#include "report/comm_stats.hpp"
#include "sync/mpi/comm_clock_sync.hpp"

namespace harmonize {

enum class CommKind { intra, self, inter };

// Identity of a communicator across processes, for merging at the end: the
// world rank of its rank 0 and a counter on that process.
struct CommKey {
  std::uint64_t root_world_rank = 0;
  std::uint64_t serial = 0;
  bool operator<(const CommKey& other) const {
    return root_world_rank != other.root_world_rank ? root_world_rank < other.root_world_rank
                                                    : serial < other.serial;
  }
  bool operator==(const CommKey&) const = default;
};

// Keys of aggregate records: freed communicators beyond the first few of a
// root are folded per (root, size) under serial kFoldedSerialBase + size;
// self communicators and intercommunicators, which exist per process, are
// summed over all processes under root kPerProcessRoot.
inline constexpr std::uint64_t kFoldedSerialBase = std::uint64_t{1} << 40;
inline constexpr std::uint64_t kPerProcessRoot = std::uint64_t{1} << 40;
inline bool is_aggregate(const CommKey& key) {
  return key.serial >= kFoldedSerialBase || key.root_world_rank >= kPerProcessRoot;
}

// What survives a communicator: its statistics on this process and the calls
// not yet reduced to its rank 0. Shipped to world rank 0 at MPI_Finalize.
struct CommRecord {
  CommKey key;
  int rank = 0;  // in the communicator
  report::CommStats stats;
  std::uint64_t missed_any = 0;        // rank 0 of the communicator only
  std::uint64_t space_violations = 0;  // rank 0 only, test clocks only
  std::vector<logic::CallTimes> pending;
};

struct CommState {
  MPI_Comm user = MPI_COMM_NULL;
  CommKind kind = CommKind::intra;
  bool is_world = false;
  // Set when the library cannot serve this communicator (an internal MPI call
  // failed, members outside MPI_COMM_WORLD): its barriers are native from
  // then on, counted and reported with this reason. Agreed by all members.
  std::string not_harmonized;
  int rank = 0;
  int size = 1;
  CommRecord record;

  // Harmonized/observed intracommunicators only.
  std::optional<clock::GlobalClock> clock;
  // Own sync, built on the first resync of a sub-communicator (or at once
  // when there is no world clock to start from).
  std::unique_ptr<sync::CommClockSync> own_sync;
  std::uint64_t world_clock_version = 0;  // of the world clock `clock` sits on
  double last_sync = 0;                   // on `clock`
  double expires_at = 0;                  // last_sync + the resync interval then
  bool last_failed = false;
  int last_flag = -1;
  std::optional<logic::SlackController> slack;  // decided on rank 0
  bool slack_measured = false;
  // Small enough that, in observe mode, the flush (where resyncs are agreed)
  // comes often even in slow benchmarks.
  logic::CallLog log{512};
};

}  // namespace harmonize
