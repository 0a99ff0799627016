#include "harmonize/session.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <numeric>
#include <tuple>
#include <utility>

#include "config/arrival.hpp"
#include "harmonize/logic/arrival_delays.hpp"
#include "harmonize/protocol/collective_matching.hpp"
#include "harmonize/session_impl.hpp"
#include "harmonize/startup_check.hpp"
#include "report/format.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/mpi/host_of_rank.hpp"
#include "sync/mpi/mpi_error.hpp"

namespace harmonize {
namespace {

std::string now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string comm_name(MPI_Comm comm, const std::string& set_name, const logic::CommKey& key,
                      int size) {
  if (comm == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (comm == MPI_COMM_SELF) return "MPI_COMM_SELF";
  if (!set_name.empty()) return set_name;
  return "comm#" + std::to_string(key.serial) + "@" + std::to_string(key.root_world_rank) +
         " (size " + std::to_string(size) + ")";
}

// Whether h2hca/h3hca copy models within some node, which the shared-clock
// check then verifies (alike on every rank: the layout is the job's).
// The node of every rank, sorted.
std::vector<int> sorted_nodes(const sync::Layout& layout) {
  std::vector<int> nodes;
  for (const sync::Placement& placement : layout.of_rank) nodes.push_back(placement.node);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

bool some_node_shares_a_clock(const sync::Layout& layout, sync::Scheme scheme) {
  if (scheme == sync::Scheme::hca3) return false;
  const std::vector<int> nodes = sorted_nodes(layout);
  return std::adjacent_find(nodes.begin(), nodes.end()) != nodes.end();
}

// `rank`'s node among the layout's, numbered densely in the order of their
// lowest ranks (the layout's node ids are those ranks, or virtual nodes in
// rank order), and how many nodes there are.
std::pair<int, int> node_index_and_count(const sync::Layout& layout, int rank) {
  std::vector<int> nodes = sorted_nodes(layout);
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const int mine = layout.of_rank.at(static_cast<std::size_t>(rank)).node;
  const auto at = std::lower_bound(nodes.begin(), nodes.end(), mine) - nodes.begin();
  return {static_cast<int>(at), static_cast<int>(nodes.size())};
}

}  // namespace

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
  started_ = now_iso8601();
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
      if (timer_) {
        // Freed before its calls were matched (its handle may come back
        // as another communicator's): counted, not kept.
        const protocol::PendingCalls lost = timer_->take(comm_id(state.user));
        record.stats.collective_calls_unmatched += lost.calls_seen;
      }
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
    timer_ = std::make_unique<protocol::CollectiveTimer>(clock::TickStamp(*clocks_.local),
                                                         policy_.collectives, thread_multiple_,
                                                         comm_id(MPI_COMM_NULL));
  crowding_ = sync::node_crowding(world_);
  clocks_.sync_settings.yield_while_waiting = crowding_.oversubscribed;
  layout_ = sync::gather_layout(world_, clocks_.virtual_node_of_rank,
                                clocks_.sync_settings.scheme == sync::Scheme::h3hca);
  std::tie(node_index_, node_count_) = node_index_and_count(layout_, world_rank_);
  if (policy_.arrival.kind != ArrivalKind::none) {
    // Every rank knows the pattern and the layout: all stop, or none.
    const auto misfit = logic::arrival_misfit(policy_.arrival, world_size_, node_count_);
    stop_on_error(misfit ? "HARMONIZE_ARRIVAL='" + config::arrival_text(policy_.arrival) +
                               "' does not fit this job: " + *misfit
                         : std::string());
  }
  if (!policy_.needs_clock()) return;
  // Only to name a node in the shared-clock warning: one gather here rather
  // than a collective when the warning is due (inside a timed call).
  shared_clock_checked_ = some_node_shares_a_clock(layout_, clocks_.sync_settings.scheme);
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
  if (policy_.mode == config::Mode::harmonize && policy_.arrival.kind != ArrivalKind::none)
    settings.arrival.emplace(policy_.arrival,
                             logic::ArrivalPlace{facts.rank, facts.size, node_index_});
  state->protocol = std::make_unique<protocol::BarrierProtocol>(
      *state->members, *state->clock, std::move(settings), std::move(record));
  return state;
}

CommState& SessionImpl::state_for(MPI_Comm comm) {
  if (CommState* found = registry_->find(comm)) return *found;
  return *registry_->attach(comm, create_state(comm));
}

void SessionImpl::match_timed_calls(CommState& state, bool all_left) {
  if (!timer_) return;
  if (state.kind == logic::CommKind::inter) {
    // Never matched (the two groups are not one set of members), but
    // counted where they were called: on the intercommunicators' record,
    // not as calls MPI_COMM_WORLD lost.
    state.timed.collective_calls_unmatched += timer_->take(comm_id(state.user)).calls_seen;
    return;
  }
  const bool alone = state.kind == logic::CommKind::self;
  if (!state.protocol && !alone) return;  // given up on: not matched
  if (!all_left && timer_->calls_seen(comm_id(state.user)) < protocol::kMatchBatch) return;
  if (alone) {
    protocol::match_alone(timer_->take(comm_id(state.user)), state.timed);
  } else {
    protocol::match_collectives(*state.members, state.clock->clock(),
                                timer_->take(comm_id(state.user)), state.timed);
  }
}

void SessionImpl::comm_freeing(MPI_Comm comm) {
  if (!timer_) return;
  // Freeing is collective: every member is here, so the calls not yet
  // matched are matched now rather than lost (IMB frees each communicator
  // right after its largest sizes).
  try {
    if (CommState* state = registry_->find(comm)) match_timed_calls(*state, true);
  } catch (const sync::MpiError&) {
    // An invalid handle, or a failed matching: MPI has reported it through
    // the user's handler (and the free will too); the free goes on.
  }
  timer_->forget(comm_id(comm));  // a communicator that never had a barrier: counted
}

// The user's MPI status comes back as an MpiError from the collectives on the
// user's communicator (MPI has already run the user's error handler).
int SessionImpl::barrier(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || policy_.mode == config::Mode::off || !affects(comm)) {
    if (timer_) timer_->barrier_left(comm_id(comm), false);
    return sync::native_barrier(comm);  // MPI reports a null communicator its own way
  }
  // A fallback found inside an earlier call is told before this one starts.
  if (shared_clock_notice_.pending()) shared_clock_notice_.flush();
  try {
    CommState& state = state_for(comm);
    const bool under_test = policy_.alternate && state.barriers++ % 2 == 1;
    const bool timed_under_test = under_test && timer_ && timer_->times(Collective::barrier);
    // Until this one is harmonized in time. A barrier under test timed is
    // the operation the last harmonized barrier was for (its record takes
    // the token); untimed, it ends that barrier's pattern all the same.
    if (timer_ && !timed_under_test) timer_->barrier_left(comm_id(comm), false);
    // Before the barrier's entry: nothing the program times is disturbed
    // (except a barrier under test, which starts where the pattern was set).
    if (!under_test) match_timed_calls(state, false);
    if (!state.protocol) {
      state.passed_through.stats.calls += 1;
      return sync::native_barrier(comm);
    }
    if (policy_.mode == config::Mode::harmonize && under_test) {
      // HARMONIZE_ALTERNATE: the native barrier after a harmonized one, as
      // the operation under test (its arrival pattern is the harmonized
      // one's exit pattern), timed like any collective.
      const double entry = timed_under_test ? timer_->now() : 0.0;
      const int status = sync::native_barrier(comm);
      if (timed_under_test)
        timer_->add({.entry = entry,
                     .exit = timer_->now(),
                     .comm = comm_id(comm),
                     .operation = Collective::barrier});
      return status;
    }
    if (policy_.mode == config::Mode::harmonize) {
      const int flag = harmonized(*state.protocol);
      if (timer_) timer_->barrier_left(comm_id(comm), flag == 1, state.protocol->last_delay());
    } else if (timer_ && timer_->times(Collective::barrier)) {
      // The native barrier may be what the program measures (osu_barrier):
      // timed like any collective, around the observed call.
      const double entry = timer_->now();
      state.protocol->observed();
      const double exit = timer_->now();
      timer_->add(
          {.entry = entry, .exit = exit, .comm = comm_id(comm), .operation = Collective::barrier});
    } else {
      state.protocol->observed();
    }
    return MPI_SUCCESS;
  } catch (const sync::MpiError& error) {
    return error.status();
  }
}

int SessionImpl::harmonized(protocol::BarrierProtocol& protocol) {
  if (!thread_multiple_) return protocol.harmonized();
  // Several threads of one process in harmonized barriers at once each spin
  // towards a deadline, and MPI polls inside each one's allreduce: with more
  // busy threads than cores a call waits for the scheduler's tick. Counted
  // here (two atomics, MPI_THREAD_MULTIPLE only) so the report can say so.
  const int inside = barrier_threads_.fetch_add(1, std::memory_order_relaxed) + 1;
  int peak = barrier_threads_peak_.load(std::memory_order_relaxed);
  while (inside > peak &&
         !barrier_threads_peak_.compare_exchange_weak(peak, inside, std::memory_order_relaxed)) {
  }
  struct Leave {
    std::atomic<int>& inside;
    ~Leave() { inside.fetch_sub(1, std::memory_order_relaxed); }
  } leave{barrier_threads_};
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
    if (timer_) timer_->barrier_left(comm_id(comm), mine == 1, state.protocol->last_delay());
    if (flag) *flag = mine;
    return MPI_SUCCESS;
  } catch (const sync::MpiError& error) {
    return error.status();
  }
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
  if (!timer_) return;
  // A program without a single barrier still has its world's calls matched
  // (every process is here: creating the state is collective).
  if (affects(MPI_COMM_WORLD) && timer_->calls_seen(comm_id(MPI_COMM_WORLD)) > 0) {
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
  // Communicators that never had a barrier (nobody agreed on a matching),
  // or were freed before one, and the process's spills: on the world's record;
  // intercommunicators' calls on theirs (written by finish()).
  std::uint64_t left = timer_->forgotten();
  inter_calls_left_ = timer_->forgotten_inter();
  for (const protocol::PendingCalls& pending : timer_->take_all())
    (pending.inter ? inter_calls_left_ : left) += pending.calls_seen;
  if (CommState* world = registry_->find(MPI_COMM_WORLD)) {
    world->timed.collective_calls_unmatched += left;
    world->timed.collective_log_spills += timer_->spills();
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
  if (policy_.mode != config::Mode::off) write_report();
}

}  // namespace harmonize
