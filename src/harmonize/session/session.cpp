#include "harmonize/session.hpp"

// The session's start (MPI_Init) and dispatch (each barrier, each free,
// MPI_Finalize). What a feature does lives in its room; the session tells
// every enabled one of its moments (harmonize/feature/feature.hpp).
#include <cstdio>
#include <utility>

#include "harmonize/collectives/mpi/side_comm.hpp"
#include "harmonize/session/session_impl.hpp"
#include "harmonize/startup/startup_check.hpp"
#include "report/format.hpp"
#include "sync/mpi/comm_collectives.hpp"
#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/topology.hpp"

namespace harmonize {

std::unique_ptr<Session> Session::create(const config::PolicyResult& configuration,
                                         MPI_Comm private_world) {
  return std::make_unique<SessionImpl>(configuration, private_world);
}

SessionImpl::SessionImpl(const config::PolicyResult& configuration, MPI_Comm private_world)
    : configuration_(configuration),
      // Local calls on MPI_COMM_WORLD: in mode off there is no private world.
      job_{.world = private_world,
           .rank = sync::describe_communicator(MPI_COMM_WORLD).rank,
           .size = sync::describe_communicator(MPI_COMM_WORLD).size,
           .started = report::iso8601_utc(std::chrono::system_clock::now()),
           .crowding = {},
           .layout = {},
           .node = {}},
      clocks_(configuration_.policy, job_),
      comms_(configuration_.policy, job_, clocks_, features_) {
  stop_on_error(clocks_.setup_error());
  if (job_.world == MPI_COMM_NULL) return;  // mode off: no collective at all
  job_.crowding = sync::node_crowding(job_.world);
  clocks_.on_oversubscribed_node(job_.crowding.oversubscribed);
  job_.layout = sync::gather_layout(job_.world, clocks_.node_of_rank(),
                                    clocks_.setup().sync_settings.scheme == sync::Scheme::h3hca);
  job_.node = sync::node_number(job_.layout, job_.rank);
  features_ = make_features({.policy = policy(),
                             .world = job_.world,
                             .world_rank = job_.rank,
                             .world_size = job_.size,
                             .layout = job_.layout,
                             .node = job_.node,
                             .local = *clocks_.setup().local,
                             .thread_multiple = sync::thread_level() == MPI_THREAD_MULTIPLE});
  // Alike on every rank (the policy and the layout are the job's): all stop,
  // or none.
  each_feature([this](feature::Feature& feature) {
    if (const std::optional<std::string> misfit = feature.misfit()) stop_on_error(*misfit);
  });
  if (!policy().needs_clock()) return;
  clocks_.synchronize_world(policy().verbose);
  each_feature([this](feature::Feature& feature) { feature.started(clocks_.world()); });
}

void SessionImpl::stop_on_error(const std::string& error) {
  config::PolicyResult result;
  if (!error.empty()) result.errors.push_back(error);
  stop_on_policy_errors(result, job_.world);
}

collectives::CollectiveTimer* SessionImpl::collective_timer() {
  return collective_timer_of(features_);
}

bool SessionImpl::affects(MPI_Comm comm) const {
  return policy().comms == config::CommScope::all || comm == MPI_COMM_WORLD;
}

void SessionImpl::comm_freeing(MPI_Comm comm) {
  if (features_.empty()) return;
  CommState* state = nullptr;
  try {
    state = comms_.find(comm);
  } catch (const sync::MpiError&) {
    // An invalid handle: MPI has reported it (and the free will too).
  }
  feature::CommView* view = state ? &state->view : nullptr;
  collectives::run_collectives_of(comm, MPI_COMM_NULL);  // its handle may come back
  each_feature([&](feature::Feature& feature) { feature.comm_freeing(comm, view); });
}

// The user's MPI status comes back as an MpiError from the collectives on the
// user's communicator (MPI has already run the user's error handler).
int SessionImpl::barrier(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || policy().mode == config::Mode::off || !affects(comm)) {
    each_feature([comm](feature::Feature& feature) { feature.barrier_entering({.comm = comm}); });
    return sync::native_barrier(comm);  // MPI reports a null communicator its own way
  }
  // A fallback found inside an earlier call is told before this one starts.
  if (clocks_.notice().pending()) clocks_.notice().flush();
  try {
    CommState& state = comms_.state_for(comm);
    const std::uint64_t index = state.barriers++;
    return library_barrier(comm, state, policy().alternate && index % 2 == 1, index);
  } catch (const sync::MpiError& error) {
    return error.status();
  }
}

int SessionImpl::library_barrier(MPI_Comm comm, CommState& state, bool under_test,
                                 std::uint64_t index) {
  each_feature([&](feature::Feature& feature) {
    feature.barrier_entering({.comm = comm, .view = &state.view, .under_test = under_test});
  });
  const auto native = [comm] { return sync::native_barrier(comm); };
  if (!state.protocol) {
    state.passed_through.stats.calls += 1;
    return native();
  }
  const feature::BarrierSide side = barrier_side_of(features_, state.view, index);
  if (side.tag != 0) collectives::run_collectives_of(comm, side.run_on);
  const auto measured = [&](const feature::BarrierBody& body) {
    return measure_barrier_with(features_, comm, body);
  };
  if (policy().mode == config::Mode::harmonize && under_test) {
    // HARMONIZE_ALTERNATE: the native barrier after a harmonized one, as
    // the operation under test (its arrival pattern is the harmonized
    // one's exit pattern), timed like any collective.
    return measured(native);
  }
  if (policy().mode == config::Mode::harmonize && side.tag != 0 && !side.harmonized) {
    // HARMONIZE_INTERLEAVE's native side: the barrier the benchmark would
    // have run, kept out of the harmonized barrier's records.
    const int status = native();
    each_feature([&](feature::Feature& feature) {
      feature.barrier_left({.comm = comm, .side_tag = side.tag});
    });
    return status;
  }
  if (policy().mode == config::Mode::harmonize) {
    harmonized(comm, *state.protocol, side);
    return MPI_SUCCESS;
  }
  return measured([&state] {
    state.protocol->observed();
    return MPI_SUCCESS;
  });
}

int SessionImpl::harmonized(MPI_Comm comm, protocol::BarrierProtocol& protocol,
                            const feature::BarrierSide& side) {
  struct Told {  // the features hear of the end even when the protocol throws
    const SessionImpl& session;
    ~Told() {
      session.each_feature([](feature::Feature& feature) { feature.harmonized_ended(); });
    }
  };
  int flag = 0;
  {
    each_feature([](feature::Feature& feature) { feature.harmonized_started(); });
    const Told told{*this};
    flag = protocol.harmonized(side.arrival);
  }
  each_feature([&](feature::Feature& feature) {
    feature.barrier_left(
        {.comm = comm, .in_time = flag == 1, .delay = protocol.last_delay(), .side_tag = side.tag});
  });
  return flag;
}

int SessionImpl::harmonize(MPI_Comm comm, int* flag) {
  if (comm == MPI_COMM_NULL) return sync::native_barrier(comm);
  if (clocks_.notice().pending()) clocks_.notice().flush();
  try {
    CommState& state = comms_.state_for(comm);
    if (!state.protocol) {
      state.last_flag = 1;  // nothing to harmonize with: always in time
      if (flag) *flag = 1;
      state.passed_through.stats.calls += 1;
      return sync::native_barrier(comm);
    }
    each_feature([&](feature::Feature& feature) {
      feature.barrier_entering({.comm = comm, .view = &state.view});
    });
    const int mine = harmonized(comm, *state.protocol);
    if (flag) *flag = mine;
    return MPI_SUCCESS;
  } catch (const sync::MpiError& error) {
    return error.status();
  }
}

bool SessionImpl::global_time(double& time, double& bound) const {
  if (!clocks_.world().exists()) return false;
  time = clocks_.world().now(&bound);
  return true;
}

int SessionImpl::last_flag(MPI_Comm comm, int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
  try {
    const CommState* state = comms_.find(comm);
    *flag = state == nullptr  ? -1
            : state->protocol ? state->protocol->last_flag()
                              : state->last_flag;
    return MPI_SUCCESS;
  } catch (const sync::MpiError& error) {
    *flag = -1;
    return error.status();
  }
}

void SessionImpl::finish() {
  feature::Finishing at = comms_.finishing(affects(MPI_COMM_WORLD));
  each_feature([&](feature::Feature& feature) { feature.finishing(at); });
  comms_.retire_all();
  for (auto& [record, kind] : at.records_after)
    comms_.records().retire(std::move(record), kind, true);
  // Before the report, which says where each feature's files went.
  each_feature([this](feature::Feature& feature) { feature.finish(job_.world, job_.layout); });
  if (policy().mode != config::Mode::off) write_report();
}

}  // namespace harmonize
