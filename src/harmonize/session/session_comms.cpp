// A user communicator's state, made at its first barrier (collective over
// its members): its key, its record, its clock and its barrier protocol.
#include <cstdio>

#include "harmonize/session/session_impl.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {
namespace {

std::string comm_name(MPI_Comm comm, const std::string& set_name, const logic::CommKey& key,
                      int size) {
  if (comm == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (comm == MPI_COMM_SELF) return "MPI_COMM_SELF";
  if (!set_name.empty()) return set_name;
  return "comm#" + std::to_string(key.serial) + "@" + std::to_string(key.root_world_rank) +
         " (size " + std::to_string(size) + ")";
}

}  // namespace

CommState& SessionImpl::state_for(MPI_Comm comm) {
  if (CommState* found = registry_->find(comm)) return *found;
  return *registry_->attach(comm, create_state(comm));
}

std::unique_ptr<sync::ClockSync> SessionImpl::group_sync(MPI_Comm comm, const logic::CommKey& key,
                                                         clock::GlobalClock base) {
  if (world_ == MPI_COMM_NULL) {
    // Mode off: no private world to carry the traffic, so this communicator
    // (used through MPIX_Harmonize) gets a private copy of its own.
    return sync::CommClockSync::create_on_copy(comm, clocks_.sync_settings, base,
                                               clocks_.virtual_node_of_rank);
  }
  std::string why;
  auto transport = sync::GroupTransport::of_communicator(
      world_, comm, sync::group_tag(key.root_world_rank, key.serial), why);
  if (!transport) throw std::runtime_error(why);
  const bool group_root = transport->rank() == 0;
  // A node that fell back for the world clock falls back here too (in the
  // sync's warm-up): the members' world clocks differ, so the copied models
  // of this level cannot agree either.
  return std::make_unique<NoticedSync>(
      sync::CommClockSync::create(std::move(transport), clocks_.sync_settings, base, layout_),
      shared_clock_notice_, group_root, false);
}

protocol::ProtocolSettings SessionImpl::protocol_settings(const std::string& name) const {
  protocol::ProtocolSettings settings;
  settings.slack = policy_.slack;
  settings.slack_min = policy_.slack_min;
  settings.slack_max = policy_.slack_max;
  settings.miss_target = policy_.miss_target;
  settings.resync_at_flush = policy_.mode == config::Mode::observe;
  settings.yield_while_spinning = crowding_.oversubscribed;
  settings.truth = clocks_.truth.get();
  settings.record_truth = clocks_.test_clock_active;
  // Deadlines are on a clock whose reference is world rank 0's (mode off has
  // no world clock, so no known reference).
  if (clocks_.test_clock_active && world_clock_->exists()) {
    settings.reference_skew = clocks_.skew_of_rank(0);
    settings.own_skew = clocks_.skew;
  }
  const bool speaks = world_rank_ == 0;
  settings.on_give_up = [name, speaks](const std::string& reason) {
    if (speaks) {
      std::fprintf(stderr, "harmonize: warning: %s: barriers are native from now on: %s\n",
                   name.c_str(), reason.c_str());
    }
  };
  return settings;
}

std::unique_ptr<CommState> SessionImpl::create_state(MPI_Comm comm) {
  auto state = std::make_unique<CommState>();
  state->user = comm;
  const sync::CommFacts facts = sync::describe_communicator(comm);
  state->kind = facts.inter       ? logic::CommKind::inter
                : facts.size == 1 ? logic::CommKind::self
                                  : logic::CommKind::intra;
  if (state->kind == logic::CommKind::intra) {
    state->members = std::make_unique<sync::CommCollectives>(comm, facts.rank, facts.size,
                                                             crowding_.oversubscribed);
    // The key is decided by rank 0 and shared, so every member files its
    // statistics under the same name. Exact as doubles below 2^53.
    double key[2] = {static_cast<double>(world_rank_), 0};
    if (facts.rank == 0) key[1] = static_cast<double>(serial_.fetch_add(1));
    state->members->broadcast_from_root(key, 0);
    state->key = {static_cast<std::uint64_t>(key[0]), static_cast<std::uint64_t>(key[1])};
  } else {
    state->key = {static_cast<std::uint64_t>(world_rank_), serial_.fetch_add(1)};
  }
  logic::CommRecord record;
  record.key = state->key;
  record.rank = facts.rank;
  record.stats.size = facts.size;
  record.stats.kind = logic::to_string(state->kind);
  record.stats.name = comm_name(comm, facts.name, state->key, facts.size);
  if (state->kind != logic::CommKind::intra) {
    state->passed_through = std::move(record);
    return state;
  }
  const logic::CommKey key = state->key;
  state->clock = std::make_unique<protocol::SessionClock>(
      *world_clock_, comm == MPI_COMM_WORLD, policy_.resync_interval,
      [this, comm, key](clock::GlobalClock base) { return group_sync(comm, key, base); });
  protocol::ProtocolSettings settings = protocol_settings(record.stats.name);
  if (arrival_) {
    settings.arrival = arrival_->delays(facts.rank, facts.size);
    if (settings.arrival) settings.arrival_delta = arrival_->imposed_delay(facts.size);
  }
  if (timeline_) state->trace = settings.trace = &timeline_->rank_trace().comm(record.stats.name);
  state->protocol = std::make_unique<protocol::BarrierProtocol>(
      *state->members, *state->clock, std::move(settings), std::move(record));
  return state;
}

}  // namespace harmonize
