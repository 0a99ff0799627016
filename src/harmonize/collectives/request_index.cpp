#include "harmonize/collectives/request_index.hpp"

#include <bit>
#include <new>

namespace harmonize::collectives {

std::size_t RequestIndex::home(RequestId id) const noexcept {
  // Handles are pointers to aligned objects (Open MPI) or small ints with
  // kind bits on top (MPICH): mixed, so that neither clusters.
  auto bits = static_cast<std::uint64_t>(id);
  bits ^= bits >> 33;
  bits *= 0xff51afd7ed558ccdULL;
  bits ^= bits >> 33;
  return static_cast<std::size_t>(bits) & (buckets_.size() - 1);
}

bool RequestIndex::insert(RequestId id, std::uint32_t slot) noexcept {
  if (size_ >= capacity_ || slot == kNone) return false;
  if (buckets_.empty()) {
    try {
      buckets_.resize(std::bit_ceil(2 * capacity_));
    } catch (const std::bad_alloc&) {
      return false;
    }
  }
  std::size_t at = home(id);
  while (buckets_[at].slot != kNone) at = (at + 1) & (buckets_.size() - 1);
  buckets_[at] = {id, slot};
  size_ += 1;
  return true;
}

std::uint32_t RequestIndex::find(RequestId id) const noexcept {
  if (size_ == 0) return kNone;
  for (std::size_t at = home(id);; at = (at + 1) & (buckets_.size() - 1)) {
    if (buckets_[at].slot == kNone) return kNone;
    if (buckets_[at].id == id) return buckets_[at].slot;
  }
}

void RequestIndex::erase(RequestId id, std::uint32_t slot) noexcept {
  if (size_ == 0 || slot == kNone) return;
  const std::size_t mask = buckets_.size() - 1;
  std::size_t hole = home(id);
  while (buckets_[hole].id != id || buckets_[hole].slot != slot) {
    if (buckets_[hole].slot == kNone) return;  // not in the index
    hole = (hole + 1) & mask;
  }
  // Backward shift: no tombstones, so a miss (every point-to-point request
  // a completing call is given) stops at the first empty bucket.
  for (std::size_t next = (hole + 1) & mask; buckets_[next].slot != kNone;
       next = (next + 1) & mask) {
    const std::size_t wanted = home(buckets_[next].id);
    // Whether `next`'s entry may move back to `hole`: its home is not
    // cyclically within (hole, next].
    const bool stays =
        hole <= next ? (hole < wanted && wanted <= next) : (hole < wanted || wanted <= next);
    if (stays) continue;
    buckets_[hole] = buckets_[next];
    hole = next;
  }
  buckets_[hole] = {};
  size_ -= 1;
}

}  // namespace harmonize::collectives
