#include "harmonize/session/session_clocks.hpp"

#include <cstdio>
#include <exception>
#include <numeric>
#include <stdexcept>

#include "harmonize/session/end_check.hpp"
#include "report/format.hpp"
#include "sync/mpi/comm_clock_sync.hpp"
#include "sync/mpi/group_transport.hpp"
#include "sync/mpi/host_of_rank.hpp"

namespace harmonize {

SessionClocks::SessionClocks(const config::Policy& policy, const SessionJob& job)
    : policy_(policy), job_(job), notice_(job.rank, job.layout) {
  HostFinder find_hosts;
  if (job.world != MPI_COMM_NULL)
    find_hosts = [&job] { return sync::gather_shared_memory_nodes(job.world); };
  setup_ = make_clock_setup(policy, find_hosts, job.rank, setup_error_);
  // Until the sync (and for good in mode off): the local clock.
  if (setup_.local) world_ = std::make_unique<protocol::WorldClock>(*setup_.local);
}

std::function<int(int)> SessionClocks::node_of_rank() const {
  if (setup_.virtual_node_of_rank) return setup_.virtual_node_of_rank;
  // Per-host test clocks found the shared-memory nodes already (for the
  // skews): the layout takes them instead of splitting and gathering again
  // (9 s of a 4 096-rank simulation's start).
  if (!setup_.test_clock.per_host) return {};
  return [this](int rank) {
    return setup_.test_clock.host_of_rank.at(static_cast<std::size_t>(rank));
  };
}

void SessionClocks::synchronize_world(bool verbose) {
  // Only to name a node in the shared-clock warning: one gather here rather
  // than a collective when the warning is due (inside a timed call).
  if (sync::copies_models_within_a_node(job_.layout, setup_.sync_settings.scheme))
    notice_.check_nodes(sync::gather_host_of_rank(job_.world));
  std::vector<int> everybody(static_cast<std::size_t>(job_.size));
  std::iota(everybody.begin(), everybody.end(), 0);
  world_ = std::make_unique<protocol::WorldClock>(
      *setup_.local,
      std::make_unique<NoticedSync>(
          sync::CommClockSync::create(std::make_unique<sync::GroupTransport>(
                                          job_.world, std::move(everybody), sync::kWorldGroupTag),
                                      setup_.sync_settings, clock::GlobalClock(*setup_.local, {}),
                                      job_.layout),
          notice_, job_.rank == 0, true));
  notice_.flush();  // still inside MPI_Init
  if (verbose && job_.rank == 0) {
    const sync::SyncReport& r = world_->last_report();
    std::fprintf(stderr,
                 "harmonize: world clock synchronized with %s in %s (%d nodes, %d levels, %d "
                 "rounds)%s%s\n",
                 sync::to_string(r.scheme_used), report::format_duration(r.seconds).c_str(),
                 r.nodes, r.levels, r.rounds, r.fallback_note.empty() ? "" : "; ",
                 r.fallback_note.c_str());
  }
}

std::unique_ptr<sync::ClockSync> SessionClocks::group_sync(MPI_Comm comm, const logic::CommKey& key,
                                                           clock::GlobalClock base) {
  if (job_.world == MPI_COMM_NULL) {
    // Mode off: no private world to carry the traffic, so this communicator
    // (used through MPIX_Harmonize) gets a private copy of its own.
    return sync::CommClockSync::create_on_copy(comm, setup_.sync_settings, base,
                                               setup_.virtual_node_of_rank);
  }
  std::string why;
  auto transport = sync::GroupTransport::of_communicator(
      job_.world, comm, sync::group_tag(key.root_world_rank, key.serial), why);
  if (!transport) throw std::runtime_error(why);
  const bool group_root = transport->rank() == 0;
  // A node that fell back for the world clock falls back here too (in the
  // sync's warm-up): the members' world clocks differ, so the copied models
  // of this level cannot agree either.
  return std::make_unique<NoticedSync>(
      sync::CommClockSync::create(std::move(transport), setup_.sync_settings, base, job_.layout),
      notice_, group_root, false);
}

std::optional<report::ClockCheckInfo> SessionClocks::end_check() const {
  if (!world_->exists()) return std::nullopt;
  const protocol::WorldClock::Snapshot world = world_->snapshot();
  EndCheckInputs inputs{.world = job_.world,
                        .clock = world.clock,
                        .synced_at = world.synced_at,
                        .layout = &job_.layout,
                        .yield_while_waiting = job_.crowding.oversubscribed,
                        .reference_skew = std::nullopt,
                        .own_skew = setup_.skew,
                        .truth = setup_.truth.get()};
  if (setup_.test_clock_active) inputs.reference_skew = setup_.skew_of_rank(0);
  try {
    return check_world_clock_at_end(inputs);
  } catch (const std::exception& error) {
    if (job_.rank == 0)
      std::fprintf(stderr, "harmonize: warning: the clock check at the end failed: %s\n",
                   error.what());
    return std::nullopt;
  }
}

report::ClockInfo SessionClocks::section(std::optional<report::ClockCheckInfo> end_check) const {
  report::ClockInfo clock;
  const bool synced = world_->exists();
  clock.scheme =
      synced ? sync::to_string(world_->last_report().scheme_used) : config::to_string(policy_.sync);
  clock.time_source = config::to_string(policy_.time_source);
  clock.model = config::to_string(policy_.clock_model);
  clock.offset_alg = config::to_string(policy_.offset_algorithm);
  clock.fitpoints = policy_.fitpoints;
  clock.pingpongs = policy_.pingpongs;
  clock.initial_sync_seconds = world_->initial_seconds();
  clock.sync_count = static_cast<std::uint64_t>(world_->syncs());
  clock.sync_seconds_total = world_->total_seconds();
  clock.end_check = std::move(end_check);
  if (setup_.test_clock_active) {
    const clock::TestClockSpec& test = setup_.test_clock;
    clock.test_clock =
        report::TestClockInfo{test.max_offset, test.max_drift, test.seed, test.node_size,
                              config::to_string(policy_.test_clock_scope)};
  }
  if (synced) {
    const sync::SyncReport& r = world_->last_report();
    clock.sync_layer = report::SyncLayerInfo{r.nodes, r.levels, r.fallback_note};
    clock.shared_clock_check = notice_.info(r.shared_clock);
  }
  return clock;
}

}  // namespace harmonize
