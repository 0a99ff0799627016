#include "harmonize/arrival/arrival_delays.hpp"

#include <algorithm>

#include "common/splitmix.hpp"

namespace harmonize::arrival {
namespace {

bool is_late(const ArrivalPattern& pattern, int rank) {
  return std::binary_search(pattern.late.begin(), pattern.late.end(), rank);
}

}  // namespace

double ArrivalDelays::at(std::uint64_t call) const {
  return arrival_delay(pattern_, place_, call);
}

double arrival_draw(std::uint64_t seed, std::uint64_t call, int rank) {
  const std::uint64_t bits =
      splitmix64(splitmix64(splitmix64(seed) ^ call) ^ static_cast<std::uint64_t>(rank));
  return static_cast<double>(bits >> 11) * 0x1.0p-53;  // 53 bits: exact in a double
}

double arrival_delay(const ArrivalPattern& pattern, const ArrivalPlace& place, std::uint64_t call) {
  switch (pattern.kind) {
    case ArrivalKind::none:
      return 0;
    case ArrivalKind::rank:
    case ArrivalKind::ranks:
      return is_late(pattern, place.rank) ? pattern.delay : 0;
    case ArrivalKind::node:
      return is_late(pattern, place.node) ? pattern.delay : 0;
    case ArrivalKind::linear:
      return place.size > 1 ? pattern.delay * place.rank / (place.size - 1) : 0;
    case ArrivalKind::random:
      return pattern.delay * arrival_draw(pattern.seed, call, place.rank);
    case ArrivalKind::file:
      return static_cast<std::size_t>(place.rank) < pattern.per_rank.size()
                 ? pattern.per_rank[static_cast<std::size_t>(place.rank)]
                 : 0;
  }
  return 0;
}

double arrival_delta(const ArrivalPattern& pattern, int size, int nodes) {
  // Everybody late is nobody late.
  const auto some_late = [](std::ptrdiff_t late, std::ptrdiff_t of) {
    return late > 0 && late < of;
  };
  switch (pattern.kind) {
    case ArrivalKind::none:
      return 0;
    case ArrivalKind::rank:
    case ArrivalKind::ranks: {
      const auto in = std::lower_bound(pattern.late.begin(), pattern.late.end(), size);
      return some_late(in - pattern.late.begin(), size) ? pattern.delay : 0;
    }
    case ArrivalKind::node:
      return nodes > 1 ? pattern.delay : 0;
    case ArrivalKind::random:
      return pattern.delay;
    case ArrivalKind::linear:
      return size > 1 ? pattern.delay : 0;
    case ArrivalKind::file: {
      const auto end =
          pattern.per_rank.begin() + std::min<std::ptrdiff_t>(size, std::ssize(pattern.per_rank));
      if (pattern.per_rank.begin() == end) return 0;
      const auto [low, high] = std::minmax_element(pattern.per_rank.begin(), end);
      return *high - *low;
    }
  }
  return 0;
}

std::optional<std::string> arrival_misfit(const ArrivalPattern& pattern, int world_size,
                                          int nodes) {
  const auto count = [](int n, const std::string& what) {
    if (n == 1) return "1 " + what;
    return std::to_string(n) + " " + what + (what.back() == 's' ? "es" : "s");
  };
  switch (pattern.kind) {
    case ArrivalKind::rank:
    case ArrivalKind::ranks:
      if (pattern.late.back() >= world_size)
        return "there is no rank " + std::to_string(pattern.late.back()) + ": the job has " +
               count(world_size, "process") + ", ranks 0 to " + std::to_string(world_size - 1);
      break;
    case ArrivalKind::node:
      if (pattern.late.front() >= nodes)
        return "there is no node " + std::to_string(pattern.late.front()) + ": the job runs on " +
               count(nodes, "node") + ", numbered from 0 in the order of their lowest rank";
      break;
    case ArrivalKind::file:
      if (std::ssize(pattern.per_rank) < world_size)
        return "the delay file " + pattern.path + " gives " +
               count(static_cast<int>(pattern.per_rank.size()), "delay") + " for " +
               count(world_size, "process") + ": expected one per rank";
      break;
    case ArrivalKind::none:
    case ArrivalKind::linear:
    case ArrivalKind::random:
      break;
  }
  return std::nullopt;
}

}  // namespace harmonize::arrival
