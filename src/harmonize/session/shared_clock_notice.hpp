#pragma once
// The shared-clock check (sync/shared_clock_check.hpp) as the user hears of
// it: one warning per job on world rank 0, printed the first time any group
// falls back (at MPI_Init, a later world resync or a sub-communicator's sync),
// and the report's "shared_clock_check" entry; and the check of clocks taken
// as global (HARMONIZE_SYNC=none, sync/given_clock.hpp), the same way.
// Thread-safe: communicators of different threads sync on their own.
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "harmonize/logic/job_records.hpp"
#include "report/job_report.hpp"
#include "sync/clock_sync.hpp"
#include "sync/layout.hpp"

namespace harmonize {

class SharedClockNotice {
 public:
  // World rank 0 is the only one that prints. `layout` (node of every world
  // rank, filled in later) must outlive this object.
  SharedClockNotice(int world_rank, const sync::Layout& layout)
      : world_rank_(world_rank), layout_(layout) {}

  // Some node copies models (h2hca, h3hca), so syncs check them:
  // `host_of_rank`, world rank 0's only, names a node. Before, a process has
  // no fallback of its own to tell.
  void check_nodes(std::vector<std::string> host_of_rank);
  // After every synchronize() of a group this process is in. `group_root`:
  // it is the group's rank 0, which holds the group's totals; `world`: the
  // group is the world clock's.
  void observe(const sync::SyncReport& report, bool group_root, bool world);
  // What this process knows of its own groups that fell back (any sync),
  // for the merge at MPI_Finalize (worst 0: none).
  logic::SharedClockFallbacks own_fallback() const;
  // World rank 0 at MPI_Finalize: every process's own_fallback(), merged; a
  // fallback that only a sub-communicator without world rank 0 saw.
  void observe_everybody(const logic::SharedClockFallbacks& everybody);

  // Cheap enough for every barrier: one relaxed load.
  bool pending() const { return pending_.load(std::memory_order_relaxed); }
  // Prints the warning if one is due and none was printed yet.
  void flush();

  // The world clock's check, null when no group was ever checked (hca3, one
  // process per node, mode off).
  std::optional<report::SharedClockCheckInfo> info(const sync::SharedClockReport& world) const;

 private:
  std::string node_name(int node) const;
  void note(double disagreement, int node, int groups);  // under mutex_
  void note_given(const sync::GivenClockReport& given);  // under mutex_

  int world_rank_;
  const sync::Layout& layout_;
  mutable std::mutex mutex_;
  std::vector<std::string> host_of_rank_;
  bool checking_nodes_ = false;
  std::atomic<bool> pending_{false};
  bool warned_ = false;
  std::string warning_;
  double own_worst_ = 0;
  bool sub_communicator_fell_back_ = false;
};

// A ClockSync whose every synchronize() the notice hears of.
class NoticedSync final : public sync::ClockSync {
 public:
  NoticedSync(std::unique_ptr<sync::ClockSync> inner, SharedClockNotice& notice, bool group_root,
              bool world)
      : inner_(std::move(inner)), notice_(notice), group_root_(group_root), world_(world) {}

  clock::GlobalClock synchronize() override {
    clock::GlobalClock clk = inner_->synchronize();
    notice_.observe(inner_->last_report(), group_root_, world_);
    return clk;
  }
  void rebase(clock::GlobalClock base) override { inner_->rebase(std::move(base)); }
  void discard_last() override { inner_->discard_last(); }
  const sync::SyncReport& last_report() const override { return inner_->last_report(); }

 private:
  std::unique_ptr<sync::ClockSync> inner_;
  SharedClockNotice& notice_;
  bool group_root_;
  bool world_;
};

// "0-3,6,8-9": world ranks as ranges.
std::string rank_ranges(const std::vector<int>& ranks);

}  // namespace harmonize
