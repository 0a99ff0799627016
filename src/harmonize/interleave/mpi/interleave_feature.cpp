#include "harmonize/interleave/mpi/interleave_feature.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <random>
#include <span>
#include <tuple>
#include <type_traits>

#include "common/collective_kind.hpp"
#include "harmonize/interleave/comm_comparisons.hpp"
#include "harmonize/logic/flat_text.hpp"
#include "sync/mpi/comm_collectives.hpp"
#include "sync/mpi/gather.hpp"
#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/tree_merge.hpp"

namespace harmonize::interleave {
namespace {

// A comparison as it travels to world rank 0: its communicator's name, then
// numbers.
struct WireRow {
  double size, operation, bytes, root, figure, side, blocks, positive, negative, calls,
      baseline_calls, median, baseline_median, delta, exists, low, high;
};
constexpr std::size_t kWireNumbers = sizeof(WireRow) / sizeof(double);
static_assert(std::is_trivially_copyable_v<WireRow> && sizeof(WireRow) == 17 * sizeof(double));
struct Row {
  std::string communicator;
  WireRow wire;
};

std::vector<double> encode_rows(const std::vector<Row>& rows) {
  std::vector<double> out{static_cast<double>(rows.size())};
  for (const Row& row : rows) {
    logic::append_text(out, row.communicator);
    const std::size_t at = out.size();
    out.resize(at + kWireNumbers);
    std::memcpy(&out[at], &row.wire, sizeof(WireRow));
  }
  return out;
}

// Appends the rows of `in` to `rows`; false when malformed, or naming a side,
// operation or figure there is not.
bool decode_rows(std::span<const double> in, std::size_t sides, std::vector<Row>& rows) {
  if (in.empty()) return false;
  std::size_t at = 1;
  for (double n = in[0]; n > 0; --n) {
    Row row;
    if (!logic::read_text(in, at, row.communicator) || in.size() - at < kWireNumbers) return false;
    std::memcpy(&row.wire, &in[at], sizeof(WireRow));
    at += kWireNumbers;
    const WireRow& wire = row.wire;
    if (!(wire.operation >= 0 && wire.operation < static_cast<double>(kCollectiveNames.size()) &&
          wire.side >= 1 && wire.side < static_cast<double>(sides) && wire.figure >= 0 &&
          wire.figure < static_cast<double>(std::size(kFigureNames))))
      return false;
    rows.push_back(std::move(row));
  }
  return at == in.size();
}

report::InterleaveComparison to_report(const Row& row, const config::InterleaveSides& sides) {
  const WireRow& wire = row.wire;
  report::InterleaveComparison comparison{
      .communicator = row.communicator,
      .size = static_cast<int>(wire.size),
      .operation = std::string(kCollectiveNames[static_cast<std::size_t>(wire.operation)]),
      .bytes = static_cast<std::uint64_t>(wire.bytes),
      .root = static_cast<int>(wire.root),
      .figure = kFigureNames[static_cast<std::size_t>(wire.figure)],
      .side = sides.sides[static_cast<std::size_t>(wire.side)].name,
      .blocks = static_cast<std::uint64_t>(wire.blocks),
      .positive = static_cast<std::uint64_t>(wire.positive),
      .negative = static_cast<std::uint64_t>(wire.negative),
      .calls = static_cast<std::uint64_t>(wire.calls),
      .baseline_calls = static_cast<std::uint64_t>(wire.baseline_calls),
      .median = wire.median,
      .baseline_median = wire.baseline_median,
      .delta = wire.delta,
      .low = {},
      .high = {},
      .decided = false};
  if (wire.exists != 0) {
    comparison.low = wire.low;
    comparison.high = wire.high;
    comparison.decided = wire.low > 0 || wire.high < 0;
  }
  return comparison;
}

}  // namespace

std::unique_ptr<feature::Feature> InterleaveFeature::make(const feature::JobContext& job) {
  if (job.policy.interleave.sides.empty()) return nullptr;
  return std::make_unique<InterleaveFeature>(job);
}

InterleaveFeature::InterleaveFeature(const feature::JobContext& job)
    : sides_(job.policy.interleave),
      run_(job.policy.interleave_run),
      seed_(job.policy.interleave_seed),
      world_(job.world),
      world_rank_(job.world_rank),
      world_size_(job.world_size) {
  for (const config::InterleaveSide& side : sides_.sides)
    arrivals_.emplace_back(side.arrival, side.harmonized, job.world_size, job.node.index,
                           job.node.count);
  // Alike on every rank (the sides and the MPI are the job's): all stop at
  // misfit(), or none.
  algorithms_ = AlgorithmSwitch::make(sides_, algorithm_error_);
}

std::optional<std::string> InterleaveFeature::misfit() const {
  for (std::size_t side = 0; side < arrivals_.size(); ++side) {
    if (const std::string error = arrivals_[side].misfit_error(); !error.empty())
      return "HARMONIZE_INTERLEAVE side '" + sides_.sides[side].name + "': " + error;
  }
  return algorithm_error_;
}

void InterleaveFeature::started(const protocol::WorldClock&) {
  if (seed_ != 0) return;
  // Drawn on world rank 0 and sent to all: the report names it, so that a
  // run's order can be repeated (HARMONIZE_INTERLEAVE_SEED).
  double seed[1] = {0};
  if (world_rank_ == 0) {
    auto drawn =
        static_cast<std::uint32_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    try {
      drawn ^= std::random_device()();
    } catch (const std::exception&) {
      // No entropy source: the clock's bits alone.
    }
    seed[0] = 1.0 + static_cast<double>(drawn % 4294967295u);
  }
  sync::CommCollectives(world_, world_rank_, world_size_, false).broadcast_from_root(seed, 0);
  seed_ = static_cast<std::uint64_t>(seed[0]);
}

void InterleaveFeature::comm_made(feature::CommSetup& comm) {
  const std::lock_guard lock(comms_lock_);
  CommSides& sides =
      comms_.emplace_back(CommSides{comm.name,
                                    comm.size,
                                    Schedule(static_cast<int>(sides_.sides.size()), run_, seed_),
                                    {},
                                    {},
                                    std::vector<MPI_Comm>(sides_.sides.size(), MPI_COMM_NULL)});
  for (const arrival::JobArrival& pattern : arrivals_)
    sides.arrivals.push_back(pattern.delays(comm.rank, comm.size));
  comm.view.sides = &sides;
  comm.view.interleaved = &sides.calls;
}

std::optional<feature::BarrierSide> InterleaveFeature::barrier_side(const feature::CommView& comm,
                                                                    std::uint64_t index) {
  // The side is drawn from what the tag keeps of the index (32 bits, the
  // matching's wire), so that the comparison at MPI_Finalize finds it again;
  // the one index in 2^32 whose tag would be 0 runs untagged.
  const auto tag = static_cast<std::uint32_t>(index + 1);
  if (comm.sides == nullptr || tag == 0) return std::nullopt;
  const auto side = static_cast<std::size_t>(comm.sides->schedule.side_of(tag - 1));
  // Before the barrier: the collectives after it are the side's.
  MPI_Comm run_on = MPI_COMM_NULL;
  if (algorithms_ && !algorithms_->per_communicator()) algorithms_->apply(side);
  if (algorithms_ && algorithms_->per_communicator() && algorithms_->sets_algorithm(side)) {
    // Made at the side's first barrier, by every member (the same index
    // draws the same side everywhere).
    MPI_Comm& made = comm.sides->side_comms[side];
    if (made == MPI_COMM_NULL) made = algorithms_->side_communicator(comm.user, side);
    run_on = made;
  }
  const std::optional<arrival::ArrivalDelays>& delays = comm.sides->arrivals[side];
  return feature::BarrierSide{.tag = tag,
                              .harmonized = sides_.sides[side].harmonized,
                              .arrival = delays ? &*delays : nullptr,
                              .run_on = run_on};
}

void InterleaveFeature::comm_freeing(MPI_Comm, feature::CommView* view) {
  if (view != nullptr && view->sides != nullptr) free_side_comms(*view->sides);
}

void InterleaveFeature::free_side_comms(CommSides& comm) {
  // With the user's communicator, collectively: a failure changes nothing
  // the program sees (the communicator is unused from here on).
  for (MPI_Comm& made : comm.side_comms)
    if (made != MPI_COMM_NULL) (void)PMPI_Comm_free(&made);
}

namespace {

// This process's comparisons: of the communicators it is rank 0 of.
std::vector<Row> own_rows(const std::list<CommSides>& comms, int sides, int run, std::uint64_t seed,
                          double alpha) {
  std::vector<Row> rows;
  for (const CommSides& comm : comms) {
    if (comm.calls.empty()) continue;  // not its rank 0, or no tagged call
    for (const KeyComparison& compared : compare_calls(comm.calls, sides, run, seed, alpha)) {
      const PairedComparison& paired = compared.paired;
      const MedianInterval& delta = paired.delta;
      rows.push_back(
          {comm.name,
           {static_cast<double>(comm.size), static_cast<double>(compared.key.operation),
            static_cast<double>(compared.key.bytes), static_cast<double>(compared.key.root),
            static_cast<double>(compared.figure), static_cast<double>(paired.side),
            static_cast<double>(paired.blocks), static_cast<double>(paired.positive),
            static_cast<double>(paired.negative), static_cast<double>(paired.calls),
            static_cast<double>(paired.baseline_calls), paired.median, paired.baseline_median,
            delta.median, delta.exists ? 1.0 : 0.0, delta.exists ? delta.low : 0.0,
            delta.exists ? delta.high : 0.0}});
    }
  }
  return rows;
}

}  // namespace

void InterleaveFeature::finish(MPI_Comm world, const sync::Layout&) {
  for (CommSides& comm : comms_) free_side_comms(comm);
  const int sides = static_cast<int>(sides_.sides.size());
  info_ = {};
  for (const config::InterleaveSide& side : sides_.sides)
    info_.sides.push_back(config::side_text(side));
  info_.run = run_;
  info_.seed = seed_;
  if (algorithms_) info_.algorithm_switch = algorithms_->how();
  info_.family_level = kFamilyLevel;
  // The family is the job's: every communicator's comparisons share the
  // level (Bonferroni), so world rank 0 counts them first.
  std::uint64_t mine[2] = {0, 0};
  for (const CommSides& comm : comms_)
    if (!comm.calls.empty()) mine[0] += comparisons_in(comm.calls, sides);
  std::uint64_t total[2] = {0, 0};
  double family[1] = {static_cast<double>(mine[0])};
  try {
    if (sync::sum_to_root(world, mine, total)) family[0] = static_cast<double>(total[0]);
    sync::CommCollectives(world, world_rank_, world_size_, false).broadcast_from_root(family, 0);
  } catch (const sync::MpiError& error) {
    // Each rank divides by its own count: its intervals are wider than the
    // job's level asks, never narrower than their own.
    std::fprintf(stderr, "harmonize: warning: interleaved comparisons: %s\n", error.what());
  }
  info_.level_each = kFamilyLevel / std::max({1.0, family[0], static_cast<double>(mine[0])});
  std::vector<Row> rows;
  try {
    rows = own_rows(comms_, sides, run_, seed_, info_.level_each);
  } catch (const std::bad_alloc&) {
    // This process's part is lost (said); the merge goes on, nobody waits.
    std::fprintf(stderr,
                 "harmonize: warning: world rank %d: no memory for its interleaved "
                 "comparisons\n",
                 world_rank_);
  }
  std::vector<std::string> lost;
  constexpr int kTreeTag = 0;  // after the records' merge, in order between the same pairs
  sync::merge_up_tree(world, kTreeTag,
                      {.absorb =
                           [&](std::span<const double> child) {
                             return decode_rows(child, sides_.sides.size(), rows);
                           },
                       .missing =
                           [&](const sync::MissingSubtree& subtree) {
                             lost.push_back("world ranks " + std::to_string(subtree.first_rank) +
                                            "-" + std::to_string(subtree.last_rank) + " (" +
                                            subtree.what + ")");
                           },
                       .encode = [&] { return encode_rows(rows); }});
  if (world_rank_ != 0) return;
  for (const std::string& what : lost)
    std::fprintf(stderr, "harmonize: warning: the interleaved comparisons of %s were lost\n",
                 what.c_str());
  for (const Row& row : rows) info_.comparisons.push_back(to_report(row, sides_));
  std::sort(info_.comparisons.begin(), info_.comparisons.end(), [](const auto& a, const auto& b) {
    return std::tie(a.communicator, a.operation, a.bytes, a.root, a.figure, a.side) <
           std::tie(b.communicator, b.operation, b.bytes, b.root, b.figure, b.side);
  });
  info_.decided = static_cast<std::uint64_t>(
      std::count_if(info_.comparisons.begin(), info_.comparisons.end(),
                    [](const report::InterleaveComparison& c) { return c.decided; }));
}

void InterleaveFeature::contribute(report::JobReport& job, const logic::JobRecords&) const {
  job.interleave = info_;
}

void InterleaveFeature::explain(report::RunConditions& conditions,
                                const report::CommSummary& comm) const {
  for (const arrival::JobArrival& pattern : arrivals_)
    conditions.imposed_delay = std::max(conditions.imposed_delay, pattern.imposed_delay(comm.size));
}

void InterleaveFeature::say_at_end(const report::JobReport& job) const {
  if (!job.interleave) return;
  const report::InterleaveInfo& info = *job.interleave;
  std::string sides;
  for (const config::InterleaveSide& side : sides_.sides)
    sides += (sides.empty() ? "" : ", ") + side.name;
  std::fprintf(stderr,
               "harmonize: interleaved sides %s (seed %llu): %llu of %zu comparisons decided at "
               "%.0f%% family-wise (report: \"interleave\"; OSU's and IMB's own averages mix "
               "the sides)\n",
               sides.c_str(), static_cast<unsigned long long>(info.seed),
               static_cast<unsigned long long>(info.decided), info.comparisons.size(),
               100 * info.family_level);
}

}  // namespace harmonize::interleave
