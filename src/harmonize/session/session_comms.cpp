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

protocol::ProtocolSettings SessionImpl::protocol_settings(const std::string& name) const {
  protocol::ProtocolSettings settings;
  settings.slack = policy().slack;
  settings.slack_min = policy().slack_min;
  settings.slack_max = policy().slack_max;
  settings.miss_target = policy().miss_target;
  settings.resync_at_flush = policy().mode == config::Mode::observe;
  settings.yield_while_spinning = job_.crowding.oversubscribed;
  settings.truth = clocks_.setup().truth.get();
  settings.record_truth = clocks_.setup().test_clock_active;
  // Deadlines are on a clock whose reference is world rank 0's (mode off has
  // no world clock, so no known reference).
  if (clocks_.setup().test_clock_active && clocks_.world().exists()) {
    settings.reference_skew = clocks_.setup().skew_of_rank(0);
    settings.own_skew = clocks_.setup().skew;
  }
  const bool speaks = job_.rank == 0;
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
  feature::CommView& view = state->view;
  view.user = comm;
  view.timed = &state->timed;
  const sync::CommFacts facts = sync::describe_communicator(comm);
  view.kind = facts.inter       ? logic::CommKind::inter
              : facts.size == 1 ? logic::CommKind::self
                                : logic::CommKind::intra;
  if (view.kind == logic::CommKind::intra) {
    state->members = std::make_unique<sync::CommCollectives>(comm, facts.rank, facts.size,
                                                             job_.crowding.oversubscribed);
    // The key is decided by rank 0 and shared, so every member files its
    // statistics under the same name. Exact as doubles below 2^53.
    double key[2] = {static_cast<double>(job_.rank), 0};
    if (facts.rank == 0) key[1] = static_cast<double>(serial_.fetch_add(1));
    state->members->broadcast_from_root(key, 0);
    state->key = {static_cast<std::uint64_t>(key[0]), static_cast<std::uint64_t>(key[1])};
  } else {
    state->key = {static_cast<std::uint64_t>(job_.rank), serial_.fetch_add(1)};
  }
  logic::CommRecord record;
  record.key = state->key;
  record.rank = facts.rank;
  record.stats.size = facts.size;
  record.stats.kind = logic::to_string(view.kind);
  record.stats.name = comm_name(comm, facts.name, state->key, facts.size);
  if (view.kind != logic::CommKind::intra) {
    state->passed_through = std::move(record);
    return state;
  }
  const logic::CommKey key = state->key;
  state->clock = std::make_unique<protocol::SessionClock>(
      clocks_.world(), comm == MPI_COMM_WORLD, policy().resync_interval,
      [this, comm, key](clock::GlobalClock base) { return clocks_.group_sync(comm, key, base); });
  protocol::ProtocolSettings settings = protocol_settings(record.stats.name);
  feature::CommSetup setup{comm, facts.rank, facts.size, record.stats.name, settings};
  each_feature([&setup](feature::Feature& feature) { feature.comm_made(setup); });
  view.members = state->members.get();
  view.clock = &state->clock->clock();
  view.trace = settings.trace;
  state->protocol = std::make_unique<protocol::BarrierProtocol>(
      *state->members, *state->clock, std::move(settings), std::move(record));
  return state;
}

}  // namespace harmonize
