#include "sync/mpi/comm_clock_sync.hpp"

#include "sync/mpi/topology.hpp"

namespace harmonize::sync {

std::unique_ptr<CommClockSync> CommClockSync::create(
    MPI_Comm comm, const Settings& settings, clock::GlobalClock base,
    std::function<int(int world_rank)> virtual_node_of_rank) {
  auto transport = MpiTransport::duplicate(comm);
  transport->set_yield_while_waiting(settings.yield_while_waiting);
  const Topology topology =
      discover_topology(transport->comm(), virtual_node_of_rank, settings.scheme == Scheme::h3hca);
  return std::unique_ptr<CommClockSync>(new CommClockSync(
      std::move(transport), settings, std::move(base), topology.placement, topology.socket_note));
}

CommClockSync::CommClockSync(std::unique_ptr<MpiTransport> transport, const Settings& settings,
                             clock::GlobalClock base, Placement placement, std::string socket_note)
    : transport_(std::move(transport)),
      base_(base),
      current_(base),
      scheme_(*transport_, settings, placement) {
  const LevelStats& stats = scheme_.stats();
  report_.rounds = stats.rounds;
  report_.levels = stats.levels;
  report_.nodes = stats.nodes;
  report_.scheme_used = scheme_.settings().scheme;
  report_.fallback_note = stats.fallback_note;
  if (!report_.fallback_note.empty() && !socket_note.empty())
    report_.fallback_note += " (" + socket_note + ")";
  warm_up();
}

// Outside the timed synchronize(): see HierarchicalSync::warm_up.
void CommClockSync::warm_up() {
  scheme_.warm_up(base_);
}

clock::GlobalClock CommClockSync::synchronize() {
  // Timed on the untouched source: the duration is what the user waits.
  const double start = base_.source().now();
  current_ = scheme_.synchronize(base_);
  report_.seconds = base_.source().now() - start;
  report_.syncs += 1;
  const auto levels = current_.models().levels();
  report_.slope = levels.size() > base_.models().depth() ? levels.back().slope : 0.0;
  report_.history_batches = static_cast<int>(scheme_.history_batches());
  return current_;
}

void CommClockSync::rebase(clock::GlobalClock base) {
  if (!(base.models() == base_.models()) || &base.source() != &base_.source())
    scheme_.forget_history();
  base_ = base;
}

}  // namespace harmonize::sync
