#include "sync/mpi/comm_clock_sync.hpp"

#include <numeric>

#include "sync/mpi/topology.hpp"

namespace harmonize::sync {

std::unique_ptr<CommClockSync> CommClockSync::create(std::unique_ptr<GroupTransport> transport,
                                                     const Settings& settings,
                                                     clock::GlobalClock base,
                                                     const Layout& layout) {
  transport->set_yield_while_waiting(settings.yield_while_waiting);
  const Placement placement = placement_in_group(layout, transport->members(), transport->rank());
  return std::unique_ptr<CommClockSync>(new CommClockSync(
      std::move(transport), settings, std::move(base), placement, layout.socket_note));
}

std::unique_ptr<CommClockSync> CommClockSync::create_on_copy(
    MPI_Comm comm, const Settings& settings, clock::GlobalClock base,
    const std::function<int(int world_rank)>& virtual_node_of_rank) {
  MPI_Comm carrier = private_copy(comm);
  int size = 1;
  (void)PMPI_Comm_size(carrier, &size);
  std::vector<int> everybody(static_cast<std::size_t>(size));
  std::iota(everybody.begin(), everybody.end(), 0);
  auto transport =
      std::make_unique<GroupTransport>(carrier, std::move(everybody), kWorldGroupTag, true);
  const Layout layout =
      gather_layout(carrier, virtual_node_of_rank, settings.scheme == Scheme::h3hca);
  return create(std::move(transport), settings, std::move(base), layout);
}

CommClockSync::CommClockSync(std::unique_ptr<GroupTransport> transport, const Settings& settings,
                             clock::GlobalClock base, Placement placement,
                             const std::string& socket_note)
    : transport_(std::move(transport)), base_(base), scheme_(*transport_, settings, placement) {
  const LevelStats& stats = scheme_.stats();
  report_.rounds = stats.rounds;
  report_.levels = stats.levels;
  report_.nodes = stats.nodes;
  report_.scheme_used = scheme_.settings().scheme;
  report_.fallback_note = stats.fallback_note;
  if (!report_.fallback_note.empty() && !socket_note.empty())
    report_.fallback_note += " (" + socket_note + ")";
  // Outside the timed synchronize(): see HierarchicalSync::warm_up. Its
  // check of the shared clocks counts: a group that fails it falls back now.
  scheme_.warm_up(base_);
  report_.shared_clock = scheme_.shared_clock();
  report_.given_clock = scheme_.given_clock();
}

clock::GlobalClock CommClockSync::synchronize() {
  // Timed on the untouched source: the duration is what the user waits.
  const double start = base_.source().now();
  clock::GlobalClock current = scheme_.synchronize(base_);
  report_.seconds = base_.source().now() - start;
  report_.syncs += 1;
  report_.shared_clock = scheme_.shared_clock();
  report_.given_clock = scheme_.given_clock();
  return current;
}

void CommClockSync::rebase(clock::GlobalClock base) {
  if (!(base.models() == base_.models()) || &base.source() != &base_.source())
    scheme_.forget_history();
  base_ = base;
}

}  // namespace harmonize::sync
