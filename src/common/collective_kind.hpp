#pragma once
// The collectives the library times (HARMONIZE_COLLECTIVES), blocking and
// non-blocking, their names and sets of them. std only: the shim, the policy, the session and the
// report all speak of them.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace harmonize {

// Every timed collective besides the barrier, once: X(lower, Mixed, UPPER,
// SIGNATURE), the three spellings of its name (the enum and the
// HARMONIZE_COLLECTIVES names; the C entry MPI_Mixed; the Fortran entries
// mpi_lower_, MPI_UPPER, ...) and its signature, one of the shapes below.
// The enum, the names, the C entry points (shim/collective_entry_points.cpp),
// the Fortran ones (shim/fortran_collective_entry_points.cpp) and the
// non-blocking MPI_I<lower> of both (the same parameters and a request)
// follow from this list; the exports are shim/exports.map's MPI_* and mpi_*
// patterns. Adding a collective is a line here (and a shape if it has a new
// one) and a name in the README.
#define HARMONIZE_TIMED_COLLECTIVES(X)                                        \
  X(allreduce, Allreduce, ALLREDUCE, HARMONIZE_REDUCTION)                     \
  X(reduce, Reduce, REDUCE, HARMONIZE_ROOTED_REDUCTION)                       \
  X(bcast, Bcast, BCAST, HARMONIZE_BROADCAST)                                 \
  X(allgather, Allgather, ALLGATHER, HARMONIZE_EXCHANGE)                      \
  X(allgatherv, Allgatherv, ALLGATHERV, HARMONIZE_ALLGATHERV)                 \
  X(alltoall, Alltoall, ALLTOALL, HARMONIZE_EXCHANGE)                         \
  X(alltoallv, Alltoallv, ALLTOALLV, HARMONIZE_ALLTOALLV)                     \
  X(alltoallw, Alltoallw, ALLTOALLW, HARMONIZE_ALLTOALLW)                     \
  X(gather, Gather, GATHER, HARMONIZE_GATHER)                                 \
  X(gatherv, Gatherv, GATHERV, HARMONIZE_GATHERV)                             \
  X(scatter, Scatter, SCATTER, HARMONIZE_SCATTER)                             \
  X(scatterv, Scatterv, SCATTERV, HARMONIZE_SCATTERV)                         \
  X(reduce_scatter, Reduce_scatter, REDUCE_SCATTER, HARMONIZE_REDUCE_SCATTER) \
  X(reduce_scatter_block, Reduce_scatter_block, REDUCE_SCATTER_BLOCK,         \
    HARMONIZE_REDUCE_SCATTER_BLOCK)                                           \
  X(scan, Scan, SCAN, HARMONIZE_REDUCTION)                                    \
  X(exscan, Exscan, EXSCAN, HARMONIZE_REDUCTION)

// The signatures: (parameters), (arguments), root, bytes.
// - parameters: the MPI signature in the types of a `Binding`, the C or the
//   Fortran one (shim/c_binding.hpp, shim/fortran_binding.hpp), so that one
//   shape gives both; the C entry points do not compile when it differs
//   from mpi.h's;
// - arguments: the names, handed on;
// - root: the root rank (-1: none); bytes: the message size as OSU and IMB
//   name it (the bindings say how), both read after the call.
// Only words here: this header stays std only, the shim gives them meaning.
// clang-format off
#define HARMONIZE_REDUCTION                                                                      \
  (Binding::SendBuf sendbuf, Binding::RecvBuf recvbuf, Binding::Count count,                     \
   Binding::Type datatype, Binding::Op op, Binding::Comm comm),                                  \
  (sendbuf, recvbuf, count, datatype, op, comm),                                                 \
  -1, Binding::bytes(count, datatype)
#define HARMONIZE_ROOTED_REDUCTION                                                               \
  (Binding::SendBuf sendbuf, Binding::RecvBuf recvbuf, Binding::Count count,                     \
   Binding::Type datatype, Binding::Op op, Binding::Root root, Binding::Comm comm),              \
  (sendbuf, recvbuf, count, datatype, op, root, comm),                                           \
  Binding::root(root), Binding::bytes(count, datatype)
#define HARMONIZE_BROADCAST                                                                      \
  (Binding::RecvBuf buffer, Binding::Count count, Binding::Type datatype, Binding::Root root,    \
   Binding::Comm comm),                                                                          \
  (buffer, count, datatype, root, comm),                                                         \
  Binding::root(root), Binding::bytes(count, datatype)
// Allgather and alltoall.
#define HARMONIZE_EXCHANGE                                                                       \
  (Binding::SendBuf sendbuf, Binding::Count sendcount, Binding::Type sendtype,                   \
   Binding::RecvBuf recvbuf, Binding::Count recvcount, Binding::Type recvtype,                   \
   Binding::Comm comm),                                                                          \
  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),                            \
  -1, Binding::in_place(sendbuf) ? Binding::bytes(recvcount, recvtype)                           \
                                 : Binding::bytes(sendcount, sendtype)
#define HARMONIZE_ALLGATHERV                                                                     \
  (Binding::SendBuf sendbuf, Binding::Count sendcount, Binding::Type sendtype,                   \
   Binding::RecvBuf recvbuf, Binding::Counts recvcounts, Binding::Counts displs,                 \
   Binding::Type recvtype, Binding::Comm comm),                                                  \
  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm),                   \
  -1, Binding::in_place(sendbuf) ? Binding::bytes_at(recvcounts, Binding::rank(comm), recvtype)  \
                                 : Binding::bytes(sendcount, sendtype)
#define HARMONIZE_ALLTOALLV                                                                      \
  (Binding::SendBuf sendbuf, Binding::Counts sendcounts, Binding::Counts sdispls,                \
   Binding::Type sendtype, Binding::RecvBuf recvbuf, Binding::Counts recvcounts,                 \
   Binding::Counts rdispls, Binding::Type recvtype, Binding::Comm comm),                         \
  (sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm),        \
  -1, Binding::in_place(sendbuf) ? Binding::bytes_of_members(recvcounts, recvtype, comm)         \
                                 : Binding::bytes_of_members(sendcounts, sendtype, comm)
#define HARMONIZE_ALLTOALLW                                                                      \
  (Binding::SendBuf sendbuf, Binding::Counts sendcounts, Binding::Counts sdispls,                \
   Binding::Types sendtypes, Binding::RecvBuf recvbuf, Binding::Counts recvcounts,               \
   Binding::Counts rdispls, Binding::Types recvtypes, Binding::Comm comm),                       \
  (sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm),      \
  -1, Binding::in_place(sendbuf) ? Binding::typed_bytes_of_members(recvcounts, recvtypes, comm)  \
                                 : Binding::typed_bytes_of_members(sendcounts, sendtypes, comm)
#define HARMONIZE_GATHER                                                                         \
  (Binding::SendBuf sendbuf, Binding::Count sendcount, Binding::Type sendtype,                   \
   Binding::RecvBuf recvbuf, Binding::Count recvcount, Binding::Type recvtype,                   \
   Binding::Root root, Binding::Comm comm),                                                      \
  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),                      \
  Binding::root(root), Binding::in_place(sendbuf) ? Binding::bytes(recvcount, recvtype)          \
                                                  : Binding::bytes(sendcount, sendtype)
#define HARMONIZE_GATHERV                                                                        \
  (Binding::SendBuf sendbuf, Binding::Count sendcount, Binding::Type sendtype,                   \
   Binding::RecvBuf recvbuf, Binding::Counts recvcounts, Binding::Counts displs,                 \
   Binding::Type recvtype, Binding::Root root, Binding::Comm comm),                              \
  (sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm),             \
  Binding::root(root),                                                                           \
  Binding::in_place(sendbuf) ? Binding::bytes_at(recvcounts, Binding::root(root), recvtype)      \
                             : Binding::bytes(sendcount, sendtype)
// The gather's parameters; the bytes are the receive side's.
#define HARMONIZE_SCATTER                                                                        \
  (Binding::SendBuf sendbuf, Binding::Count sendcount, Binding::Type sendtype,                   \
   Binding::RecvBuf recvbuf, Binding::Count recvcount, Binding::Type recvtype,                   \
   Binding::Root root, Binding::Comm comm),                                                      \
  (sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm),                      \
  Binding::root(root), Binding::in_place(recvbuf) ? Binding::bytes(sendcount, sendtype)          \
                                                  : Binding::bytes(recvcount, recvtype)
#define HARMONIZE_SCATTERV                                                                       \
  (Binding::SendBuf sendbuf, Binding::Counts sendcounts, Binding::Counts displs,                 \
   Binding::Type sendtype, Binding::RecvBuf recvbuf, Binding::Count recvcount,                   \
   Binding::Type recvtype, Binding::Root root, Binding::Comm comm),                              \
  (sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm),             \
  Binding::root(root),                                                                           \
  Binding::in_place(recvbuf) ? Binding::bytes_at(sendcounts, Binding::root(root), sendtype)      \
                             : Binding::bytes(recvcount, recvtype)
#define HARMONIZE_REDUCE_SCATTER                                                                 \
  (Binding::SendBuf sendbuf, Binding::RecvBuf recvbuf, Binding::Counts recvcounts,               \
   Binding::Type datatype, Binding::Op op, Binding::Comm comm),                                  \
  (sendbuf, recvbuf, recvcounts, datatype, op, comm),                                            \
  -1, Binding::bytes_of_members(recvcounts, datatype, comm)
#define HARMONIZE_REDUCE_SCATTER_BLOCK                                                           \
  (Binding::SendBuf sendbuf, Binding::RecvBuf recvbuf, Binding::Count recvcount,                 \
   Binding::Type datatype, Binding::Op op, Binding::Comm comm),                                  \
  (sendbuf, recvbuf, recvcount, datatype, op, comm),                                             \
  -1, Binding::bytes(recvcount, datatype)
// clang-format on

// A SIGNATURE handed on as its four parts: HARMONIZE_WITH_SIGNATURE(M, a, b,
// c, SIGNATURE) is M(a, b, c, parameters, arguments, root, bytes).
#define HARMONIZE_WITH_SIGNATURE(M, ...) M(__VA_ARGS__)

#define HARMONIZE_COLLECTIVE_ENUMERATOR(lower, Mixed, UPPER, ...) lower,
#define HARMONIZE_NONBLOCKING_ENUMERATOR(lower, Mixed, UPPER, ...) i##lower,
enum class Collective : std::uint8_t {
  HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_COLLECTIVE_ENUMERATOR)
  // Where the native barrier is the operation under test (osu_barrier):
  // mode observe, and every second barrier with HARMONIZE_ALTERNATE; the
  // harmonized barrier has figures of its own.
  barrier,
  // The non-blocking collectives (MPI-3): each blocking one's MPI_I<lower>,
  // timed from the start call to the completion the program observes
  // (docs/collectives.md "Non-blocking collectives"), then MPI_Ibarrier.
  HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_NONBLOCKING_ENUMERATOR) ibarrier,
};
#undef HARMONIZE_NONBLOCKING_ENUMERATOR
#undef HARMONIZE_COLLECTIVE_ENUMERATOR

#define HARMONIZE_COLLECTIVE_NAME(lower, Mixed, UPPER, ...) std::string_view{#lower},
#define HARMONIZE_NONBLOCKING_NAME(lower, Mixed, UPPER, ...) std::string_view{"i" #lower},
inline constexpr std::array kCollectiveNames{
    HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_COLLECTIVE_NAME) std::string_view{"barrier"},
    HARMONIZE_TIMED_COLLECTIVES(HARMONIZE_NONBLOCKING_NAME) std::string_view{"ibarrier"}};
#undef HARMONIZE_NONBLOCKING_NAME
#undef HARMONIZE_COLLECTIVE_NAME
static_assert(static_cast<std::size_t>(Collective::ibarrier) + 1 == kCollectiveNames.size());

constexpr std::string_view name_of(Collective collective) {
  return kCollectiveNames[static_cast<std::size_t>(collective)];
}

// Started by one call and completed by another (MPI_Wait, MPI_Test, ...).
constexpr bool is_nonblocking(Collective collective) {
  return collective > Collective::barrier;
}

// Bit i: kCollectiveNames[i].
using CollectiveSet = std::uint64_t;
inline constexpr CollectiveSet kNoCollectives = 0;
inline constexpr CollectiveSet kAllCollectives = (CollectiveSet{1} << kCollectiveNames.size()) - 1;

constexpr CollectiveSet bit_of(Collective collective) {
  return CollectiveSet{1} << static_cast<unsigned>(collective);
}

}  // namespace harmonize
