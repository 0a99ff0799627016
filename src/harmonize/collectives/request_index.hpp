#pragma once
// Which MPI requests are started non-blocking collectives not yet completed:
// a fixed-size open-addressing map from a request's handle bits to the
// timer's slot for the call (collective_timer.hpp). Fixed, so that a program
// with 100 000 requests outstanding costs no more memory than one with a
// few: a request beyond the capacity is not tracked (the timer counts it).
// Looked up on every request a completing call (MPI_Wait, MPI_Test, ...)
// is given while one is open, so a lookup is a few probes, no allocation.
// Not thread safe: the timer locks around it. Pure: unit tested without MPI.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace harmonize::collectives {

// A request as the timer tells them apart: its handle's bits.
enum class RequestId : std::uintptr_t {};

class RequestIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // Up to `capacity` ids at once; the table is allocated on the first
  // insert (a job that starts no non-blocking collective never pays).
  explicit RequestIndex(std::size_t capacity) : capacity_(capacity) {}

  // False when full (or out of memory): `id` is then not in the index.
  bool insert(RequestId id, std::uint32_t slot) noexcept;
  // The slot of `id`, kNone when it is not in the index.
  std::uint32_t find(RequestId id) const noexcept;
  // Removes `id` if its slot is `slot` (a completed request's handle may
  // come back at once as another's, whose entry stays).
  void erase(RequestId id, std::uint32_t slot) noexcept;
  std::size_t size() const noexcept { return size_; }

 private:
  struct Bucket {
    RequestId id{};
    std::uint32_t slot = kNone;  // kNone: empty
  };
  std::size_t home(RequestId id) const noexcept;

  std::size_t capacity_;
  std::size_t size_ = 0;
  std::vector<Bucket> buckets_;  // a power of two, at least twice the capacity
};

}  // namespace harmonize::collectives
