#pragma once
// The clock of one communicator in a job: MPI_COMM_WORLD's is the world
// clock; any other starts from the world clock (inheriting its age) and, on
// its first resync, refines it with a sync among its own members only - a
// barrier on a sub-communicator never starts a world-wide collective.
#include <functional>
#include <memory>

#include "harmonize/protocol/comm_clock.hpp"
#include "harmonize/protocol/world_clock.hpp"
#include "sync/clock_sync.hpp"

namespace harmonize::protocol {

class SessionClock final : public CommClock {
 public:
  // Builds the communicator's own sync on its first resync (collective over
  // its members; throws).
  using SyncFactory = std::function<std::unique_ptr<sync::ClockSync>(clock::GlobalClock base)>;

  SessionClock(WorldClock& world, bool is_world, double configured_interval, SyncFactory factory);

  bool ready() const override { return ready_; }
  const clock::GlobalClock& clock() const override { return clock_; }
  double last_sync() const override { return last_sync_; }
  double expires_at() const override { return expires_at_; }
  void resync() override;

 private:
  void mark_synced(int syncs);
  void after_resync(bool kept_old, int syncs);

  WorldClock& world_;
  bool is_world_;
  double configured_interval_;
  SyncFactory factory_;
  std::unique_ptr<sync::ClockSync> own_;
  clock::GlobalClock clock_;
  std::uint64_t world_version_ = 0;  // of the world clock `clock_` sits on
  bool ready_ = false;
  double last_sync_ = 0;
  double expires_at_ = 0;
  int refused_in_a_row_ = 0;  // resyncs refused since the last adopted one
};

}  // namespace harmonize::protocol
