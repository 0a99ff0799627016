#pragma once
// The sync traffic of one group of processes, carried point-to-point on one
// private communicator (the library's copy of MPI_COMM_WORLD): ranks are
// translated, and every group family has its own tag. Groups and their
// splits therefore cost no MPI communicator at all, which keeps a program's
// communicator budget its own (docs/barrier.md, "Communicator footprint").
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sync/transport.hpp"

namespace harmonize::sync {

// Same group and order as `comm`, none of its attributes (collective). A
// split, not a dup: MPI_Comm_dup runs the user's attribute copy callbacks
// (and later their delete callbacks) on what is ours alone. Throws MpiError.
MPI_Comm private_copy(MPI_Comm comm);

// A tag for the group family of a communicator, from its key: distinct for
// the communicators a process uses at the same time (threads), within the
// tag range every MPI guarantees.
int group_tag(std::uint64_t root_world_rank, std::uint64_t serial);
inline constexpr int kWorldGroupTag = 1;

class GroupTransport final : public Transport {
 public:
  // `members[i]` is the carrier rank of group rank i; this process must be
  // one of them. The carrier must outlive the transport unless owned.
  GroupTransport(MPI_Comm carrier, std::vector<int> members, int tag, bool owns_carrier = false);
  ~GroupTransport() override;
  GroupTransport(const GroupTransport&) = delete;
  GroupTransport& operator=(const GroupTransport&) = delete;

  // The members of `comm`, carried on `carrier` (local: group translation
  // only). Null, with `why`, when a member is not in the carrier (processes
  // spawned or connected after MPI_Init).
  static std::unique_ptr<GroupTransport> of_communicator(MPI_Comm carrier, MPI_Comm comm, int tag,
                                                         std::string& why);

  int rank() const override { return rank_; }
  int size() const override { return static_cast<int>(members_.size()); }
  void send(int peer, std::span<const double> values) override;
  void recv(int peer, std::span<double> values) override;
  void broadcast(std::vector<std::byte>& bytes, int root) override;
  std::unique_ptr<Transport> split(int color, int key) override;

  MPI_Comm carrier() const { return carrier_; }
  int carrier_rank(int group_rank) const { return members_[static_cast<std::size_t>(group_rank)]; }
  const std::vector<int>& members() const { return members_; }

  // On an oversubscribed node a blocking receive that spins inside MPI keeps
  // the peer it waits for off the core (MPICH never yields): then receives
  // poll and yield instead. Inherited by split() transports.
  void set_yield_while_waiting(bool yield) { yield_ = yield; }

 private:
  void send_raw(int peer, const void* data, int count, MPI_Datatype type);
  void recv_raw(int peer, void* data, int count, MPI_Datatype type);

  MPI_Comm carrier_;
  std::vector<int> members_;
  int rank_ = 0;
  int tag_;
  bool owns_carrier_;
  bool yield_ = false;
};

}  // namespace harmonize::sync
