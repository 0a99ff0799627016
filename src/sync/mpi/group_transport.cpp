#include "sync/mpi/group_transport.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

#include "sync/mpi/mpi_error.hpp"
#include "sync/mpi/wait.hpp"
#include "sync/split_groups.hpp"
#include "sync/tree_schedule.hpp"

namespace harmonize::sync {

MPI_Comm private_copy(MPI_Comm comm) {
  int rank = 0;
  check_mpi(PMPI_Comm_rank(comm, &rank), "PMPI_Comm_rank");
  MPI_Comm copy = MPI_COMM_NULL;
  check_mpi(PMPI_Comm_split(comm, 0, rank, &copy), "PMPI_Comm_split");
  if (copy == MPI_COMM_NULL) throw MpiError("PMPI_Comm_split", MPI_ERR_COMM);
  // Our failures are reported by us, never through the user's handler.
  check_mpi(PMPI_Comm_set_errhandler(copy, MPI_ERRORS_RETURN), "PMPI_Comm_set_errhandler");
  return copy;
}

int group_tag(std::uint64_t root_world_rank, std::uint64_t serial) {
  // MPI guarantees tags up to 32767. Keys of live communicators are small
  // numbers, so this is injective for every realistic set of them.
  constexpr std::uint64_t kFirst = kWorldGroupTag + 1;
  constexpr std::uint64_t kRange = 32767 - kFirst;
  return static_cast<int>(kFirst + (root_world_rank * 8191 + serial) % kRange);
}

GroupTransport::GroupTransport(MPI_Comm carrier, std::vector<int> members, int tag,
                               bool owns_carrier)
    : carrier_(carrier), members_(std::move(members)), tag_(tag), owns_carrier_(owns_carrier) {
  int me = 0;
  check_mpi(PMPI_Comm_rank(carrier_, &me), "PMPI_Comm_rank");
  const auto found = std::find(members_.begin(), members_.end(), me);
  if (found == members_.end()) throw MpiError("GroupTransport", MPI_ERR_RANK);
  rank_ = static_cast<int>(found - members_.begin());
}

GroupTransport::~GroupTransport() {
  if (!owns_carrier_) return;
  int finalized = 0;
  PMPI_Finalized(&finalized);
  // Nothing to do about a failing free in a destructor: the communicator is
  // gone with MPI_Finalize anyway.
  if (!finalized && carrier_ != MPI_COMM_NULL) (void)PMPI_Comm_free(&carrier_);
}

std::unique_ptr<GroupTransport> GroupTransport::of_communicator(MPI_Comm carrier, MPI_Comm comm,
                                                                int tag, std::string& why) {
  int size = 0;
  check_mpi(PMPI_Comm_size(comm, &size), "PMPI_Comm_size");
  MPI_Group group = MPI_GROUP_NULL;
  MPI_Group carrier_group = MPI_GROUP_NULL;
  check_mpi(PMPI_Comm_group(comm, &group), "PMPI_Comm_group");
  int status = PMPI_Comm_group(carrier, &carrier_group);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> members(ranks.size(), MPI_UNDEFINED);
  if (status == MPI_SUCCESS)
    status = PMPI_Group_translate_ranks(group, size, ranks.data(), carrier_group, members.data());
  (void)PMPI_Group_free(&group);
  if (carrier_group != MPI_GROUP_NULL) (void)PMPI_Group_free(&carrier_group);
  check_mpi(status, "PMPI_Group_translate_ranks");
  if (std::find(members.begin(), members.end(), MPI_UNDEFINED) != members.end()) {
    why = "some of its processes are not in MPI_COMM_WORLD (spawned or connected later)";
    return nullptr;
  }
  return std::make_unique<GroupTransport>(carrier, std::move(members), tag);
}

void GroupTransport::send_raw(int peer, const void* data, int count, MPI_Datatype type) {
  check_mpi(PMPI_Send(data, count, type, carrier_rank(peer), tag_, carrier_), "PMPI_Send");
}

void GroupTransport::recv_raw(int peer, void* data, int count, MPI_Datatype type) {
  if (!yield_) {
    check_mpi(PMPI_Recv(data, count, type, carrier_rank(peer), tag_, carrier_, MPI_STATUS_IGNORE),
              "PMPI_Recv");
    return;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  check_mpi(
      wait_for(request, PMPI_Irecv(data, count, type, carrier_rank(peer), tag_, carrier_, &request),
               true),
      "PMPI_Irecv");
}

void GroupTransport::send(int peer, std::span<const double> values) {
  send_raw(peer, values.data(), static_cast<int>(values.size()), MPI_DOUBLE);
}

void GroupTransport::recv(int peer, std::span<double> values) {
  recv_raw(peer, values.data(), static_cast<int>(values.size()), MPI_DOUBLE);
}

// Down the binomial tree, the size first.
void GroupTransport::broadcast(std::vector<std::byte>& bytes, int root) {
  binomial_broadcast(
      root,
      [&](int parent) {
        std::int64_t length = 0;
        recv_raw(parent, &length, 1, MPI_INT64_T);
        bytes.resize(static_cast<std::size_t>(length));
        recv_raw(parent, bytes.data(), static_cast<int>(length), MPI_BYTE);
      },
      [&](int child) {
        const auto length = static_cast<std::int64_t>(bytes.size());
        send_raw(child, &length, 1, MPI_INT64_T);
        send_raw(child, bytes.data(), static_cast<int>(length), MPI_BYTE);
      });
}

// Like MPI_Comm_split, without a communicator, in O(log P) messages per
// process: the (color, key) pairs travel up the binomial tree of the report
// merge to rank 0, which computes the groups; each parent then hands each
// child the groups of the colors in the child's subtree. A process holds its
// subtree's pairs and groups, not everybody's: broadcasting the table of
// every pair held 256 KB per process at 16 384 ranks (4 GB in one simulation)
// and rank 0 received the pairs one peer at a time.
std::unique_ptr<Transport> GroupTransport::split(int color, int key) {
  const int n = size();
  // This subtree's pairs: group ranks rank_ .. tree_subtree_last, in order.
  std::vector<int> pairs(2 * static_cast<std::size_t>(tree_subtree_last(rank_, n) - rank_ + 1));
  pairs[0] = color;
  pairs[1] = key;
  const std::vector<int> children = tree_children(rank_, n);
  const auto subtree_of = [&](int child) {
    const auto at = 2 * static_cast<std::size_t>(child - rank_);
    return std::span<int>(pairs).subspan(
        at, 2 * static_cast<std::size_t>(tree_subtree_last(child, n) - child + 1));
  };
  for (const int child : children) {
    const std::span<int> theirs = subtree_of(child);
    recv_raw(child, theirs.data(), static_cast<int>(theirs.size()), MPI_INT);
  }
  SplitGroups groups;
  if (rank_ == 0) {
    groups = split_groups(pairs);
  } else {
    send_raw(tree_parent(rank_), pairs.data(), static_cast<int>(pairs.size()), MPI_INT);
    int length = 0;
    recv_raw(tree_parent(rank_), &length, 1, MPI_INT);
    if (length < 0) throw MpiError("GroupTransport::split", MPI_ERR_COUNT);
    std::vector<int> message(static_cast<std::size_t>(length));
    recv_raw(tree_parent(rank_), message.data(), length, MPI_INT);
    try {
      groups = decode_groups(message, n);
    } catch (const std::invalid_argument&) {
      throw MpiError("GroupTransport::split", MPI_ERR_INTERN);
    }
  }
  for (const int child : children) {
    const std::vector<int> message = encode_groups(groups, subtree_of(child));
    const int length = static_cast<int>(message.size());
    send_raw(child, &length, 1, MPI_INT);
    send_raw(child, message.data(), length, MPI_INT);
  }
  if (color < 0) return nullptr;
  const auto mine = groups.find(color);
  if (mine == groups.end()) throw MpiError("GroupTransport::split", MPI_ERR_INTERN);
  std::vector<int> members;
  members.reserve(mine->second.size());
  for (const int r : mine->second) members.push_back(carrier_rank(r));
  // The same tag: a child's traffic follows its parent's in the same order
  // on every member, and MPI keeps messages of one pair and tag in order.
  auto child = std::make_unique<GroupTransport>(carrier_, std::move(members), tag_);
  child->set_yield_while_waiting(yield_);
  return child;
}

}  // namespace harmonize::sync
