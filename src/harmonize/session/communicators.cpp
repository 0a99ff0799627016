#include "harmonize/session/communicators.hpp"

#include <cstdio>

#include "harmonize/session/barrier_settings.hpp"
#include "sync/mpi/comm_collectives.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {

Communicators::Communicators(const config::Policy& policy, const SessionJob& job,
                             SessionClocks& clocks, const Features& features)
    : policy_(policy),
      job_(job),
      clocks_(clocks),
      features_(features),
      records_(job.rank),
      registry_(std::make_unique<Registry>(
          [this](const CommState& state, bool at_finalize) { retire(state, at_finalize); })) {}

void Communicators::retire(const CommState& state, bool at_finalize) noexcept {
  try {
    logic::CommRecord record = state.final_record();
    each_feature(features_,
                 [&](feature::Feature& feature) { feature.comm_retired(state.view, record); });
    records_.retire(record, state.view.kind, at_finalize);
  } catch (...) {
    std::fprintf(stderr, "harmonize: warning: the statistics of a freed communicator were lost\n");
  }
}

CommState& Communicators::state_for(MPI_Comm comm) {
  if (CommState* found = registry_->find(comm)) return *found;
  return *registry_->attach(comm, create_state(comm));
}

std::unique_ptr<CommState> Communicators::create_state(MPI_Comm comm) {
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
      clocks_.world(), comm == MPI_COMM_WORLD, policy_.resync_interval,
      [this, comm, key](clock::GlobalClock base) { return clocks_.group_sync(comm, key, base); });
  protocol::ProtocolSettings settings = barrier_settings(policy_, job_, clocks_, record.stats.name);
  feature::CommSetup setup{comm, facts.rank, facts.size, record.stats.name, settings, view};
  each_feature(features_, [&setup](feature::Feature& feature) { feature.comm_made(setup); });
  view.members = state->members.get();
  view.clock = &state->clock->clock();
  view.trace = settings.trace;
  state->protocol = std::make_unique<protocol::BarrierProtocol>(
      *state->members, *state->clock, std::move(settings), std::move(record));
  return state;
}

feature::Finishing Communicators::finishing(bool world_affected) {
  const auto world = [this, world_affected](bool make) -> feature::CommView* {
    try {
      if (!world_affected) return nullptr;
      if (CommState* found = find(MPI_COMM_WORLD)) return &found->view;
      return make ? &state_for(MPI_COMM_WORLD).view : nullptr;
    } catch (const sync::MpiError&) {
      return nullptr;  // MPI has reported it through the user's handler
    }
  };
  const auto alive = [this] {
    std::vector<feature::CommView*> views;
    for (CommState* state : alive_in_order()) views.push_back(&state->view);
    return views;
  };
  return {.world = world, .alive = alive, .records_after = {}};
}

}  // namespace harmonize
