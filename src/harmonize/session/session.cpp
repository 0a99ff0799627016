#include "harmonize/session.hpp"

// The session's wiring (MPI_Init) and dispatch (each barrier, each free,
// MPI_Finalize). What a feature does lives in its room: arrival/,
// collectives/, protocol/ (the barrier), sync/ (the clocks).
#include <cstdio>
#include <numeric>
#include <utility>

#include "harmonize/session/session_impl.hpp"
#include "harmonize/startup/startup_check.hpp"
#include "report/format.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/mpi/host_of_rank.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {

std::unique_ptr<Session> Session::create(const config::PolicyResult& configuration,
                                         MPI_Comm private_world) {
  return std::make_unique<SessionImpl>(configuration, private_world);
}

SessionImpl::SessionImpl(const config::PolicyResult& configuration, MPI_Comm private_world)
    : configuration_(configuration),
      policy_(configuration_.policy),
      world_(private_world),
      // Local calls on MPI_COMM_WORLD: in mode off there is no private world.
      world_rank_(sync::describe_communicator(MPI_COMM_WORLD).rank),
      world_size_(sync::describe_communicator(MPI_COMM_WORLD).size),
      records_(world_rank_) {
  started_ = report::iso8601_utc(std::chrono::system_clock::now());
  std::string error;
  HostFinder find_hosts;
  if (world_ != MPI_COMM_NULL)
    find_hosts = [this] { return sync::gather_shared_memory_nodes(world_); };
  clocks_ = make_clock_setup(policy_, find_hosts, world_rank_, error);
  stop_on_error(error);
  registry_ = std::make_unique<Registry>([this](const CommState& state, bool at_finalize) {
    // Called by MPI from a delete callback: nothing may escape.
    try {
      logic::CommRecord record = state.final_record();
      // Freed before its calls were matched: counted, not kept.
      if (timed_) record.stats.collective_calls_unmatched += timed_->drop(state.user);
      records_.retire(record, state.kind, at_finalize);
    } catch (...) {
      std::fprintf(stderr,
                   "harmonize: warning: the statistics of a freed communicator were lost\n");
    }
  });
  world_clock_ = std::make_unique<protocol::WorldClock>(*clocks_.local);
  if (world_ == MPI_COMM_NULL) return;  // mode off: no collective at all
  thread_multiple_ = sync::thread_level() == MPI_THREAD_MULTIPLE;
  if (policy_.collectives != kNoCollectives)
    timed_ = std::make_unique<collectives::TimedCollectives>(clock::TickStamp(*clocks_.local),
                                                             policy_.collectives, thread_multiple_);
  crowding_ = sync::node_crowding(world_);
  clocks_.sync_settings.on_oversubscribed_node(crowding_.oversubscribed);
  // Per-host test clocks found the shared-memory nodes already (for the
  // skews): the layout takes them instead of splitting and gathering again
  // (9 s of a 4 096-rank simulation's start).
  std::function<int(int)> node_of_rank = clocks_.virtual_node_of_rank;
  if (!node_of_rank && clocks_.test_clock.per_host) {
    node_of_rank = [this](int rank) {
      return clocks_.test_clock.host_of_rank.at(static_cast<std::size_t>(rank));
    };
  }
  layout_ = sync::gather_layout(world_, node_of_rank,
                                clocks_.sync_settings.scheme == sync::Scheme::h3hca);
  node_ = sync::node_number(layout_, world_rank_);
  arrival_.emplace(policy_.arrival, policy_.mode == config::Mode::harmonize, world_size_,
                   node_.index, node_.count);
  // Alike on every rank (the pattern and the layout are the job's): all
  // stop, or none. Agreed only when a pattern is set: no collective is added
  // to every MPI_Init.
  if (policy_.arrival.kind != ArrivalKind::none) stop_on_error(arrival_->misfit_error());
  if (!policy_.needs_clock()) return;
  synchronize_world_clock();
  if (policy_.trace != "none") {
    timeline_ = std::make_unique<trace::TimelineWriter>(policy_, world_rank_, world_size_, node_);
    const protocol::WorldClock::Snapshot world = world_clock_->snapshot();
    timeline_->rank_trace().first_sync =
        trace::SyncEvent{world.synced_at - world_clock_->initial_seconds(), world.synced_at, true};
  }
}

void SessionImpl::synchronize_world_clock() {
  // Only to name a node in the shared-clock warning: one gather here rather
  // than a collective when the warning is due (inside a timed call).
  shared_clock_checked_ = sync::copies_models_within_a_node(layout_, clocks_.sync_settings.scheme);
  if (shared_clock_checked_) shared_clock_notice_.set_hosts(sync::gather_host_of_rank(world_));
  std::vector<int> everybody(static_cast<std::size_t>(world_size_));
  std::iota(everybody.begin(), everybody.end(), 0);
  world_clock_ = std::make_unique<protocol::WorldClock>(
      *clocks_.local,
      std::make_unique<NoticedSync>(
          sync::CommClockSync::create(std::make_unique<sync::GroupTransport>(
                                          world_, std::move(everybody), sync::kWorldGroupTag),
                                      clocks_.sync_settings, clock::GlobalClock(*clocks_.local, {}),
                                      layout_),
          shared_clock_notice_, world_rank_ == 0, true));
  shared_clock_notice_.flush();  // still inside MPI_Init
  if (policy_.verbose && world_rank_ == 0) {
    const sync::SyncReport& r = world_clock_->last_report();
    std::fprintf(stderr,
                 "harmonize: world clock synchronized with %s in %s (%d nodes, %d levels, %d "
                 "rounds)%s%s\n",
                 sync::to_string(r.scheme_used), report::format_duration(r.seconds).c_str(),
                 r.nodes, r.levels, r.rounds, r.fallback_note.empty() ? "" : "; ",
                 r.fallback_note.c_str());
  }
}

void SessionImpl::stop_on_error(const std::string& error) {
  config::PolicyResult result;
  if (!error.empty()) result.errors.push_back(error);
  if (world_ == MPI_COMM_NULL) {
    stop_alone_on_policy_errors(result);
  } else {
    stop_job_on_policy_errors(result, world_);
  }
}

bool SessionImpl::affects(MPI_Comm comm) const {
  return policy_.comms == config::CommScope::all || comm == MPI_COMM_WORLD;
}

void SessionImpl::match_timed_calls(CommState& state, bool all_left) {
  if (timed_) timed_->match(state.matched(), all_left);
}

void SessionImpl::comm_freeing(MPI_Comm comm) {
  if (!timed_) return;
  // Freeing is collective: every member is here, so the calls not yet
  // matched are matched now rather than lost (IMB frees each communicator
  // right after its largest sizes).
  try {
    if (CommState* state = registry_->find(comm)) match_timed_calls(*state, true);
  } catch (const sync::MpiError&) {
    // An invalid handle, or a failed matching: MPI has reported it through
    // the user's handler (and the free will too); the free goes on.
  }
  timed_->forget(comm);  // a communicator that never had a barrier: counted
}

// The user's MPI status comes back as an MpiError from the collectives on the
// user's communicator (MPI has already run the user's error handler).
int SessionImpl::barrier(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || policy_.mode == config::Mode::off || !affects(comm)) {
    if (timed_) timed_->barrier_left(comm, false);
    return sync::native_barrier(comm);  // MPI reports a null communicator its own way
  }
  // A fallback found inside an earlier call is told before this one starts.
  if (shared_clock_notice_.pending()) shared_clock_notice_.flush();
  try {
    CommState& state = state_for(comm);
    const bool under_test = policy_.alternate && state.barriers++ % 2 == 1;
    const bool timed_under_test = under_test && timed_ && timed_->times_barrier();
    // Until this one is harmonized in time. A barrier under test timed is
    // the operation the last harmonized barrier was for (its record takes
    // the token); untimed, it ends that barrier's pattern all the same.
    if (timed_ && !timed_under_test) timed_->barrier_left(comm, false);
    // Before the barrier's entry: nothing the program times is disturbed
    // (except a barrier under test, which starts where the pattern was set).
    if (!under_test) match_timed_calls(state, false);
    const auto native = [comm] { return sync::native_barrier(comm); };
    if (!state.protocol) {
      state.passed_through.stats.calls += 1;
      return native();
    }
    if (policy_.mode == config::Mode::harmonize && under_test) {
      // HARMONIZE_ALTERNATE: the native barrier after a harmonized one, as
      // the operation under test (its arrival pattern is the harmonized
      // one's exit pattern), timed like any collective.
      return timed_under_test ? timed_->timed_barrier(comm, native) : native();
    }
    if (policy_.mode == config::Mode::harmonize) {
      const int flag = harmonized(*state.protocol);
      if (timed_) timed_->barrier_left(comm, flag == 1, state.protocol->last_delay());
      return MPI_SUCCESS;
    }
    const auto observed = [&state] {
      state.protocol->observed();
      return MPI_SUCCESS;
    };
    // The native barrier may be what the program measures (osu_barrier).
    return timed_ && timed_->times_barrier() ? timed_->timed_barrier(comm, observed) : observed();
  } catch (const sync::MpiError& error) {
    return error.status();
  }
}

int SessionImpl::harmonized(protocol::BarrierProtocol& protocol) {
  if (!thread_multiple_) return protocol.harmonized();
  const ThreadCensus::Inside counted(barrier_threads_);
  return protocol.harmonized();
}

int SessionImpl::harmonize(MPI_Comm comm, int* flag) {
  if (comm == MPI_COMM_NULL) return sync::native_barrier(comm);
  if (shared_clock_notice_.pending()) shared_clock_notice_.flush();
  try {
    CommState& state = state_for(comm);
    if (!state.protocol) {
      state.last_flag = 1;  // nothing to harmonize with: always in time
      if (flag) *flag = 1;
      state.passed_through.stats.calls += 1;
      return sync::native_barrier(comm);
    }
    match_timed_calls(state, false);
    const int mine = harmonized(*state.protocol);
    if (timed_) timed_->barrier_left(comm, mine == 1, state.protocol->last_delay());
    if (flag) *flag = mine;
    return MPI_SUCCESS;
  } catch (const sync::MpiError& error) {
    return error.status();
  }
}

bool SessionImpl::global_time(double& time, double& bound) const {
  if (!world_clock_->exists()) return false;
  time = world_clock_->now(&bound);
  return true;
}

int SessionImpl::last_flag(MPI_Comm comm, int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
  try {
    const CommState* state = registry_->find(comm);
    *flag = state == nullptr  ? -1
            : state->protocol ? state->protocol->last_flag()
                              : state->last_flag;
    return MPI_SUCCESS;
  } catch (const sync::MpiError& error) {
    *flag = -1;
    return error.status();
  }
}

void SessionImpl::match_left_at_finish() {
  if (!timed_) return;
  // A program without a single barrier still has its world's calls matched
  // (every process is here: creating the state is collective).
  if (affects(MPI_COMM_WORLD) && timed_->calls_seen(MPI_COMM_WORLD) > 0) {
    try {
      state_for(MPI_COMM_WORLD);
    } catch (const sync::MpiError&) {
    }
  }
  // Every member holds the same communicators: matched in the same order.
  for (CommState* state : registry_->alive_in_order()) {
    try {
      match_timed_calls(*state, true);
    } catch (const sync::MpiError&) {
      // MPI has reported it through the user's handler; the rest can go on.
    }
  }
  // What no matching took goes on the world's record, intercommunicators'
  // on theirs (written by finish()).
  const collectives::Leftovers left = timed_->leftovers();
  inter_calls_left_ = left.inter_unmatched;
  if (CommState* world = registry_->find(MPI_COMM_WORLD)) {
    world->timed.collective_calls_unmatched += left.unmatched;
    world->timed.collective_log_spills += left.spills;
  }
}

void SessionImpl::finish() {
  match_left_at_finish();
  registry_->retire_all();
  if (inter_calls_left_ > 0) {
    // After the intercommunicators that had a barrier, whose record names
    // the aggregate's size; these had none (or were freed without one).
    logic::CommRecord record;
    record.stats.kind = logic::to_string(logic::CommKind::inter);
    record.stats.collective_calls_unmatched = inter_calls_left_;
    records_.retire(std::move(record), logic::CommKind::inter, true);
  }
  // The timeline first: the report says where it went.
  if (timeline_) timeline_->finish(world_, layout_);
  if (policy_.mode != config::Mode::off) write_report();
}

}  // namespace harmonize
