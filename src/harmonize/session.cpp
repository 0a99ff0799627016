#include "harmonize/session.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <numeric>
#include <vector>

#include "harmonize/record_codec.hpp"
#include "harmonize/session_impl.hpp"
#include "harmonize/startup_check.hpp"
#include "report/format.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/topology.hpp"

namespace harmonize {
namespace {

// Communicators (per root process) reported one by one; later ones are folded.
constexpr std::uint64_t kDistinctCommunicators = 64;

// A miss this soon after a sync is latency or scheduling, not clock error:
// resynchronizing again would only add cost (on an oversubscribed node a sync
// takes up to a second). Paper 000 resyncs after every miss.
constexpr double kMinSyncAgeForMissResync = 0.1;

// Broadcast instead of a deadline to ask for a resync. Not a negative number:
// global time may legitimately be negative (a skewed or MPI_Wtime source).
constexpr double kResyncSignal = std::numeric_limits<double>::quiet_NaN();

constexpr int kFailed = 1;   // this process missed its last deadline
constexpr int kExpired = 2;  // the clock sync is older than the resync interval

int delete_state(MPI_Comm, int, void* attribute, void* extra) {
  auto* state = static_cast<CommState*>(attribute);
  static_cast<SessionImpl*>(extra)->retire(state);
  delete state;
  return MPI_SUCCESS;
}

std::string now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

const char* kind_name(CommKind kind) {
  switch (kind) {
    case CommKind::intra:
      return "intra";
    case CommKind::self:
      return "self";
    case CommKind::inter:
      return "inter";
  }
  return "intra";
}

}  // namespace

// The library's own collectives. On an oversubscribed node they poll and
// yield: a blocking collective spins inside MPI (MPICH never yields) and keeps
// the rank it waits for off the core.
int SessionImpl::wait(MPI_Request& request, int status) const {
  if (status != MPI_SUCCESS) return status;
  for (int done = 0;;) {
    status = PMPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done || status != MPI_SUCCESS) return status;
    sched_yield();
  }
}

int SessionImpl::reduce(const void* in, void* out, int count, MPI_Datatype type, MPI_Op op,
                        int root, MPI_Comm comm) const {
  if (!oversubscribed_) return PMPI_Reduce(in, out, count, type, op, root, comm);
  MPI_Request request = MPI_REQUEST_NULL;
  return wait(request, PMPI_Ireduce(in, out, count, type, op, root, comm, &request));
}

int SessionImpl::bcast(void* data, int count, MPI_Datatype type, int root, MPI_Comm comm) const {
  if (!oversubscribed_) return PMPI_Bcast(data, count, type, root, comm);
  MPI_Request request = MPI_REQUEST_NULL;
  return wait(request, PMPI_Ibcast(data, count, type, root, comm, &request));
}

std::unique_ptr<Session> Session::create(const config::PolicyResult& configuration,
                                         MPI_Comm private_world) {
  return std::make_unique<SessionImpl>(configuration, private_world);
}

SessionImpl::SessionImpl(const config::PolicyResult& configuration, MPI_Comm private_world)
    : configuration_(configuration), policy_(configuration_.policy), world_(private_world) {
  // Local calls on MPI_COMM_WORLD: in mode off there is no private world.
  sync::check_mpi(PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank_), "PMPI_Comm_rank");
  sync::check_mpi(PMPI_Comm_size(MPI_COMM_WORLD, &world_size_), "PMPI_Comm_size");
  started_ = now_iso8601();
  std::string error;
  clocks_ = make_clock_setup(policy_, world_rank_, error);
  stop_on_error(error);
  sync::check_mpi(PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &delete_state, &keyval_, this),
                  "PMPI_Comm_create_keyval");
  if (world_ == MPI_COMM_NULL) return;  // mode off: no collective at all
  crowding_ = sync::node_crowding(world_);
  oversubscribed_ = crowding_.oversubscribed;
  clocks_.sync_settings.yield_while_waiting = oversubscribed_;
  layout_ = sync::gather_layout(world_, clocks_.virtual_node_of_rank,
                                clocks_.sync_settings.scheme == sync::Scheme::h3hca);
  if (policy_.needs_clock()) sync_world_clock();
}

SessionImpl::~SessionImpl() = default;

void SessionImpl::stop_on_error(const std::string& error) {
  config::PolicyResult result;
  if (!error.empty()) result.errors.push_back(error);
  if (world_ == MPI_COMM_NULL) {
    stop_alone_on_policy_errors(result);
  } else {
    stop_job_on_policy_errors(result, world_);
  }
}

void SessionImpl::sync_world_clock() {
  std::vector<int> everybody(static_cast<std::size_t>(world_size_));
  std::iota(everybody.begin(), everybody.end(), 0);
  world_sync_ = sync::CommClockSync::create(
      std::make_unique<sync::GroupTransport>(world_, std::move(everybody), sync::kWorldGroupTag),
      clocks_.sync_settings, clock::GlobalClock(*clocks_.local, {}), layout_);
  // One sync here cannot know the drift; the resync ramp (resync_interval())
  // refines it during the first second of barriers.
  world_clock_ = world_sync_->synchronize();
  world_synced_at_ = world_clock_->now();
  initial_sync_seconds_ = world_sync_->last_report().seconds;
  world_syncs_ = 1;
  has_world_clock_ = true;
  world_sync_seconds_ = initial_sync_seconds_;
  world_version_ = 1;
  if (policy_.verbose && world_rank_ == 0) {
    const sync::SyncReport& r = world_sync_->last_report();
    std::fprintf(stderr,
                 "harmonize: world clock synchronized with %s in %s (%d nodes, %d levels, %d "
                 "rounds)%s%s\n",
                 sync::to_string(r.scheme_used), report::format_duration(r.seconds).c_str(),
                 r.nodes, r.levels, r.rounds, r.fallback_note.empty() ? "" : "; ",
                 r.fallback_note.c_str());
  }
}

clock::GlobalClock SessionImpl::world_clock(std::uint64_t* version, double* synced_at) {
  std::lock_guard lock(world_mutex_);
  if (version) *version = world_version_;
  if (synced_at) *synced_at = world_synced_at_;
  return world_clock_ ? *world_clock_ : clock::GlobalClock(*clocks_.local, {});
}

bool SessionImpl::affects(MPI_Comm comm) const {
  return policy_.comms == config::CommScope::all || comm == MPI_COMM_WORLD;
}

int SessionImpl::state_for(MPI_Comm comm, CommState*& state) {
  void* attribute = nullptr;
  int found = 0;
  int status = PMPI_Comm_get_attr(comm, keyval_, &attribute, &found);
  if (status != MPI_SUCCESS) return status;
  if (found) {
    state = static_cast<CommState*>(attribute);
    return MPI_SUCCESS;
  }
  std::unique_ptr<CommState> created;
  status = create_state(comm, created);
  if (status != MPI_SUCCESS) return status;
  status = PMPI_Comm_set_attr(comm, keyval_, created.get());
  if (status != MPI_SUCCESS) return status;
  std::lock_guard lock(registry_mutex_);
  live_.insert(created.get());
  state = created.release();
  return MPI_SUCCESS;
}

int SessionImpl::create_state(MPI_Comm comm, std::unique_ptr<CommState>& out) {
  auto state = std::make_unique<CommState>();
  state->user = comm;
  state->is_world = comm == MPI_COMM_WORLD;
  int inter = 0;
  int status = PMPI_Comm_test_inter(comm, &inter);
  if (status == MPI_SUCCESS) status = PMPI_Comm_size(comm, &state->size);
  if (status == MPI_SUCCESS) status = PMPI_Comm_rank(comm, &state->rank);
  if (status != MPI_SUCCESS) return status;
  state->kind = inter ? CommKind::inter : state->size == 1 ? CommKind::self : CommKind::intra;
  state->record.rank = state->rank;
  state->record.stats.size = state->size;
  state->record.stats.kind = kind_name(state->kind);

  if (state->kind == CommKind::intra) {
    // The key is decided by rank 0 and shared, so every member files its
    // statistics under the same name.
    std::uint64_t key[2] = {static_cast<std::uint64_t>(world_rank_), 0};
    if (state->rank == 0) key[1] = serial_.fetch_add(1);
    status = bcast(key, 2, MPI_UINT64_T, 0, comm);
    if (status != MPI_SUCCESS) return status;
    state->record.key = {key[0], key[1]};
  } else {
    state->record.key = {static_cast<std::uint64_t>(world_rank_), serial_.fetch_add(1)};
  }

  char name[MPI_MAX_OBJECT_NAME] = {0};
  int length = 0;
  if (PMPI_Comm_get_name(comm, name, &length) != MPI_SUCCESS) length = 0;
  if (state->is_world) {
    state->record.stats.name = "MPI_COMM_WORLD";
  } else if (comm == MPI_COMM_SELF) {
    state->record.stats.name = "MPI_COMM_SELF";
  } else if (length > 0) {
    state->record.stats.name = name;
  } else {
    state->record.stats.name = "comm#" + std::to_string(state->record.key.serial) + "@" +
                               std::to_string(state->record.key.root_world_rank) + " (size " +
                               std::to_string(state->size) + ")";
  }
  if (state->kind == CommKind::intra && has_world_clock_) {
    // The clock is as old as the world's last sync, not as the communicator.
    state->clock = world_clock(&state->world_clock_version, &state->last_sync);
    state->expires_at = state->last_sync + resync_interval(*state);
  }
  // Without a world clock (mode off, an explicit MPIX_Harmonize) the first
  // harmonized call synchronizes a clock among this communicator's members.
  out = std::move(state);
  return MPI_SUCCESS;
}

int SessionImpl::agree_on_failure(CommState& state, const std::string& failure) {
  int failed = failure.empty() ? 0 : 1;
  int any = 0;
  int status = reduce(&failed, &any, 1, MPI_INT, MPI_BOR, 0, state.user);
  if (status == MPI_SUCCESS) status = bcast(&any, 1, MPI_INT, 0, state.user);
  if (status != MPI_SUCCESS) return status;
  if (any) {
    state.not_harmonized =
        failure.empty() ? "an internal MPI call failed on another member" : failure;
    if (world_rank_ == 0 || !failure.empty())
      std::fprintf(stderr, "harmonize: warning: %s: barriers are native from now on: %s\n",
                   state.record.stats.name.c_str(), state.not_harmonized.c_str());
  }
  return MPI_SUCCESS;
}

int SessionImpl::resync_agreed(CommState& state) {
  std::string failure;
  try {
    resync(state);
  } catch (const std::exception& error) {
    failure = std::string("clock sync: ") + error.what();
  }
  // Also a short pause after the sync's traffic, before a deadline is taken.
  const int status = agree_on_failure(state, failure);
  if (status == MPI_SUCCESS && state.not_harmonized.empty()) mark_synced(state);
  return status;
}

int SessionImpl::prepare_first_harmonized_call(CommState& state) {
  // All members are here. The slack is measured on the global clock, so an
  // inherited clock that has aged (a communicator created seconds after the
  // last world sync, offset-only, drifting) would turn its error into the
  // slack: resync first when it has expired (or when there is no clock yet).
  int expired = !state.clock || state.clock->now() > state.expires_at ? 1 : 0;
  int any = 0;
  int status = reduce(&expired, &any, 1, MPI_INT, MPI_BOR, 0, state.user);
  if (status == MPI_SUCCESS) status = bcast(&any, 1, MPI_INT, 0, state.user);
  if (status == MPI_SUCCESS && any) status = resync_agreed(state);
  if (status != MPI_SUCCESS || !state.not_harmonized.empty()) return status;
  return measure_slack(state);
}

int SessionImpl::measure_slack(CommState& state) {
  // The deadline must reach every process before it passes: measure how long
  // the root's broadcast takes to arrive, on the global clock, after a
  // warm-up that pays for lazy connection set-up (over TCP the first
  // messages of a pair take milliseconds and would inflate the slack).
  constexpr int kWarmUp = 8;
  constexpr int kRounds = 32;
  std::vector<double> latencies;
  for (int round = 0; round < kWarmUp + kRounds; ++round) {
    double sent = state.rank == 0 ? state.clock->now() : 0.0;
    int status = bcast(&sent, 1, MPI_DOUBLE, 0, state.user);
    const double arrival = state.rank == 0 ? 0.0 : state.clock->now() - sent;
    double latest = 0;
    if (status == MPI_SUCCESS)
      status = reduce(&arrival, &latest, 1, MPI_DOUBLE, MPI_MAX, 0, state.user);
    if (status != MPI_SUCCESS) return status;
    if (round >= kWarmUp) latencies.push_back(latest);
  }
  state.slack_measured = true;
  if (state.rank != 0) return MPI_SUCCESS;
  std::sort(latencies.begin(), latencies.end());
  logic::MeasuredLatency measured{latencies[latencies.size() / 2],
                                  latencies[latencies.size() * 9 / 10]};
  const double* initial = policy_.slack ? &*policy_.slack : nullptr;
  const double* minimum = policy_.slack_min ? &*policy_.slack_min : nullptr;
  const double* maximum = policy_.slack_max ? &*policy_.slack_max : nullptr;
  state.slack.emplace(
      logic::derive_slack(measured, policy_.slack_growth, initial, minimum, maximum));
  return MPI_SUCCESS;
}

int SessionImpl::barrier(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || policy_.mode == config::Mode::off || !affects(comm))
    return PMPI_Barrier(comm);  // MPI reports a null communicator its own way
  CommState* state = nullptr;
  const int status = state_for(comm, state);
  if (status != MPI_SUCCESS) return status;
  if (state->kind != CommKind::intra) return passed_through(*state);
  if (!state->not_harmonized.empty()) return native_barrier(*state, nullptr);
  return policy_.mode == config::Mode::harmonize ? harmonized_barrier(*state, nullptr)
                                                 : observed_barrier(*state);
}

int SessionImpl::harmonize(MPI_Comm comm, int* flag) {
  if (comm == MPI_COMM_NULL) return PMPI_Barrier(comm);
  CommState* state = nullptr;
  const int status = state_for(comm, state);
  if (status != MPI_SUCCESS) return status;
  if (state->kind != CommKind::intra) {
    state->last_flag = 1;  // nothing to harmonize with: always in time
    if (flag) *flag = 1;
    return passed_through(*state);
  }
  if (!state->not_harmonized.empty()) return native_barrier(*state, flag);
  return harmonized_barrier(*state, flag);
}

int SessionImpl::last_flag(MPI_Comm comm, int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  void* attribute = nullptr;
  int found = 0;
  if (comm == MPI_COMM_NULL) return MPI_ERR_COMM;
  const int status = PMPI_Comm_get_attr(comm, keyval_, &attribute, &found);
  *flag = status == MPI_SUCCESS && found ? static_cast<CommState*>(attribute)->last_flag : -1;
  return status;
}

int SessionImpl::passed_through(CommState& state) {
  state.record.stats.calls += 1;
  return PMPI_Barrier(state.user);
}

int SessionImpl::native_barrier(CommState& state, int* flag) {
  state.record.stats.not_harmonized_calls += 1;
  state.last_flag = 0;  // nobody left at a common deadline
  if (flag) *flag = 0;
  return passed_through(state);
}

int SessionImpl::unharmonized_call(CommState& state, int* flag) {
  // The protocol's reduce and broadcast already made this call a barrier:
  // every member had entered before any member got past the broadcast.
  state.record.stats.calls += 1;
  state.record.stats.not_harmonized_calls += 1;
  state.last_flag = 0;
  if (flag) *flag = 0;
  return MPI_SUCCESS;
}

// Clock reads cost tens of nanoseconds on a VM: the hot paths below read each
// clock as few times as they can, and the untouched truth only when test
// clocks make it meaningful.
int SessionImpl::observed_barrier(CommState& state) {
  if (state.log.full()) {
    const int status = flush_log(state);
    if (status != MPI_SUCCESS) return status;
    if (!state.not_harmonized.empty()) return native_barrier(state, nullptr);
  }
  const bool truth = clocks_.test_clock_active;
  logic::CallTimes call;
  if (truth) call.enter_truth = clocks_.truth->now();
  const double entered = state.clock->now();
  const int status = PMPI_Barrier(state.user);
  // Exit times first, bookkeeping after: nothing between the barrier and the
  // program but the clock reads.
  call.exit_global = state.clock->now();
  if (truth) call.exit_truth = clocks_.truth->now();
  state.log.add(call);
  state.record.stats.calls += 1;
  state.record.stats.time_in_call.add(call.exit_global - entered);
  return status;
}

int SessionImpl::harmonized_barrier(CommState& state, int* flag) {
  if (state.log.full()) {
    const int status = flush_log(state);
    if (status != MPI_SUCCESS) return status;
  }
  if (!state.slack_measured) {
    const int status = prepare_first_harmonized_call(state);
    if (status != MPI_SUCCESS) return status;
    if (!state.not_harmonized.empty()) return unharmonized_call(state, flag);
  }
  const bool truth = clocks_.test_clock_active;
  logic::CallTimes call;
  if (truth) call.enter_truth = clocks_.truth->now();
  report::CommStats& stats = state.record.stats;
  const clock::GlobalClock* clock = &*state.clock;
  double entered = clock->now();

  // Paper 000, Algorithm 1.
  int local = state.last_failed ? kFailed : 0;
  if (entered > state.expires_at) local |= kExpired;
  int global = 0;
  int status = reduce(&local, &global, 1, MPI_INT, MPI_BOR, 0, state.user);
  if (status != MPI_SUCCESS) return status;
  double deadline = 0;
  if (state.rank == 0) {
    state.slack->on_outcome((global & kFailed) != 0);
    const double now = clock->now();
    const bool resync = (global & kExpired) ||
                        ((global & kFailed) && now - state.last_sync > kMinSyncAgeForMissResync);
    deadline = resync ? kResyncSignal : now + state.slack->current();
  }
  status = bcast(&deadline, 1, MPI_DOUBLE, 0, state.user);
  if (status != MPI_SUCCESS) return status;
  if (std::isnan(deadline)) {
    const clock::GlobalClock before = *state.clock;
    status = resync_agreed(state);
    if (status != MPI_SUCCESS) return status;
    if (!state.not_harmonized.empty()) return unharmonized_call(state, flag);
    clock = &*state.clock;
    entered = clock->now() - (before.now() - entered);  // the entry time on the new clock
    if (state.rank == 0) deadline = clock->now() + state.slack->current();
    status = bcast(&deadline, 1, MPI_DOUBLE, 0, state.user);
    if (status != MPI_SUCCESS) return status;
  }

  double t = clock->now();
  if (deadline < t) {
    state.last_failed = true;
    state.last_flag = 0;
    call.missed = true;
    stats.missed_calls += 1;
    stats.lateness.add(t - deadline);
  } else {
    state.last_failed = false;
    state.last_flag = 1;
    stats.wait.add(deadline - t);
    if (oversubscribed_) {
      // Sharing a core with another rank: spinning would keep that rank
      // from reaching its own deadline (or the broadcast from arriving).
      while (t < deadline) {
        sched_yield();
        t = clock->now();
      }
    }
    while (t < deadline) t = clock->now();
  }
  // The read that ended the spin is the exit time: one read less per call.
  call.exit_global = t;
  if (truth) call.exit_truth = clocks_.truth->now();
  state.log.add(call);
  stats.calls += 1;
  stats.harmonized_calls += 1;
  stats.time_in_call.add(t - entered);
  if (flag) *flag = state.last_flag;
  return MPI_SUCCESS;
}

int SessionImpl::flush_log(CommState& state) {
  const std::size_t n = state.log.size();
  std::vector<double> maxima = state.log.pack_for_max();
  std::vector<double> minima = state.log.pack_for_min();
  std::vector<double> max_out(state.rank == 0 ? maxima.size() : 0);
  std::vector<double> min_out(state.rank == 0 ? minima.size() : 0);
  int status = reduce(maxima.data(), max_out.data(), static_cast<int>(maxima.size()), MPI_DOUBLE,
                      MPI_MAX, 0, state.user);
  if (status == MPI_SUCCESS)
    status = reduce(minima.data(), min_out.data(), static_cast<int>(minima.size()), MPI_DOUBLE,
                    MPI_MIN, 0, state.user);
  if (status != MPI_SUCCESS) return status;
  state.log.clear();
  // In observe mode this is the only point where the processes agree on
  // anything, so it is also where an expired clock is resynchronized.
  int expired = 0;
  if (state.rank == 0) {
    const logic::CallBatchOutcome outcome =
        logic::combine_batch(max_out, min_out, n, clocks_.test_clock_active);
    for (double skew : outcome.exit_skew) state.record.stats.exit_skew.add(skew);
    for (double skew : outcome.truth_exit_skew) state.record.stats.truth_exit_skew.add(skew);
    state.record.missed_any += outcome.missed_any;
    state.record.space_violations += outcome.space_violations;
    expired = state.clock->now() > state.expires_at;
  }
  if (policy_.mode != config::Mode::observe) return MPI_SUCCESS;
  status = bcast(&expired, 1, MPI_INT, 0, state.user);
  if (status == MPI_SUCCESS && expired) status = resync_agreed(state);
  return status;
}

void SessionImpl::mark_synced(CommState& state) const {
  state.last_sync = state.clock->now();
  // Computed once per sync, not per call: the hot path compares one number.
  state.expires_at = state.last_sync + resync_interval(state);
}

double SessionImpl::resync_interval(const CommState& state) const {
  // A first sync cannot know the drift (its points span a millisecond), so
  // the clock runs offset-only and errs by drift x elapsed time. Resyncs come
  // quickly at first - 10 ms, 30 ms, 90 ms, ... - each one lengthening the
  // baseline of the drift estimate, until HARMONIZE_RESYNC_INTERVAL is
  // reached (after ~1 s with the default).
  constexpr double kFirstInterval = 10e-3;
  constexpr double kRamp = 3.0;
  const int syncs =
      state.own_sync ? state.own_sync->last_report().syncs : static_cast<int>(world_syncs_.load());
  const double ramp = kFirstInterval * std::pow(kRamp, std::max(0, syncs - 1));
  return std::min(policy_.resync_interval, ramp);
}

std::unique_ptr<sync::CommClockSync> SessionImpl::group_sync(const CommState& state,
                                                             clock::GlobalClock base) const {
  if (world_ == MPI_COMM_NULL) {
    // Mode off: no private world to carry the traffic, so this communicator
    // (used through MPIX_Harmonize) gets a private copy of its own.
    return sync::CommClockSync::create_on_copy(state.user, clocks_.sync_settings, base,
                                               clocks_.virtual_node_of_rank);
  }
  std::string why;
  auto transport = sync::GroupTransport::of_communicator(
      world_, state.user,
      sync::group_tag(state.record.key.root_world_rank, state.record.key.serial), why);
  if (!transport) throw std::runtime_error(why);
  return sync::CommClockSync::create(std::move(transport), clocks_.sync_settings, base, layout_);
}

void SessionImpl::resync(CommState& state) {
  const double start = clocks_.truth->now();
  if (state.is_world && world_sync_) {
    std::lock_guard lock(world_mutex_);
    world_clock_ = world_sync_->synchronize();
    world_synced_at_ = world_clock_->now();
    ++world_version_;
    ++world_syncs_;
    world_sync_seconds_ += world_sync_->last_report().seconds;
    state.clock = *world_clock_;
    state.world_clock_version = world_version_;
  } else {
    std::uint64_t version = 0;
    clock::GlobalClock base = world_clock(&version);
    if (!state.own_sync) {
      // Only this communicator's members take part: a barrier on a
      // sub-communicator never starts a world-wide collective.
      state.own_sync = group_sync(state, base);
    } else if (has_world_clock_ && version != state.world_clock_version) {
      state.own_sync->rebase(base);
    }
    state.world_clock_version = version;
    state.clock = state.own_sync->synchronize();
  }
  state.record.stats.resyncs += 1;
  state.record.stats.resync_seconds += clocks_.truth->now() - start;
}

void SessionImpl::retire(CommState* state) {
  CommRecord record = std::move(state->record);
  if (state->slack) {
    record.stats.slack_initial = state->slack->initial();
    record.stats.slack_final = state->slack->current();
    record.stats.slack_max = state->slack->largest();
    record.stats.slack_min = state->slack->smallest();
  }
  record.pending.assign(state->log.calls().begin(), state->log.calls().end());
  record.stats.not_harmonized_reason = state->not_harmonized;
  state->own_sync.reset();
  std::lock_guard lock(registry_mutex_);
  live_.erase(state);
  CommKey key;
  std::string name;
  if (state->kind != CommKind::intra) {
    // Every process has its own: one record for all of them, not N.
    const bool self = state->kind == CommKind::self;
    key = {kPerProcessRoot + (self ? 0 : 1), 0};
    name = self ? "size-1 communicators (MPI_COMM_SELF and others, all processes)"
                : "intercommunicators (all processes)";
    record.rank = world_rank_;
  } else if (finishing_ || record.key.serial < kDistinctCommunicators) {
    retired_.front() += 1;  // the count leads the encoding
    append_record(retired_, record);
    return;
  } else {
    // The calls of different communicators cannot be matched across
    // processes, so a folded record keeps counts and local times, not exit
    // skews nor misses of the whole communicator (see the report).
    key = {record.key.root_world_rank, kFoldedSerialBase + static_cast<std::uint64_t>(state->size)};
    name = "freed communicators of size " + std::to_string(state->size) + " rooted at world rank " +
           std::to_string(key.root_world_rank) + " (folded)";
  }
  auto [it, inserted] = folded_.try_emplace(key);
  CommRecord& folded = it->second;
  if (inserted) {
    folded.key = key;
    folded.rank = record.rank;
    folded.stats.name = name;
    folded.stats.kind = record.stats.kind;
    folded.stats.size = state->size;
    folded.stats.slack_initial = record.stats.slack_initial;
  }
  folded.missed_any += record.missed_any;
  report::accumulate(folded.stats, record.stats);
}

void SessionImpl::finish() {
  // Retire what is still alive; deleting the attribute runs delete_state.
  std::vector<CommState*> alive;
  {
    std::lock_guard lock(registry_mutex_);
    alive.assign(live_.begin(), live_.end());
  }
  // Same order on every process (by key), since freeing communicators is
  // collective in principle.
  std::sort(alive.begin(), alive.end(),
            [](const CommState* a, const CommState* b) { return a->record.key < b->record.key; });
  finishing_ = true;
  // Failures here cannot be helped: the statistics are already safe in the
  // records, and the communicators go with MPI_Finalize.
  for (CommState* state : alive) (void)PMPI_Comm_delete_attr(state->user, keyval_);
  (void)PMPI_Comm_free_keyval(&keyval_);
  std::vector<double> records;
  {
    std::lock_guard lock(registry_mutex_);
    for (const auto& [key, folded] : folded_) {
      retired_.front() += 1;
      append_record(retired_, folded);
    }
    records.swap(retired_);
  }
  if (policy_.mode != config::Mode::off) write_report(records);
  world_sync_.reset();
}

}  // namespace harmonize
