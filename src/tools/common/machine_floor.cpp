#include "tools/common/machine_floor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>

#include "tools/common/launch.hpp"

namespace harmonize::tools {

namespace {

// Nearest rank (ceil(p n)-th smallest) of sorted, non-empty values.
double nearest_rank(const std::vector<double>& sorted, double p) {
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::vector<double> spin_and_keep_gaps(double seconds, double threshold) {
  // Thousands a second where it matters. Written once before the spin: a
  // page touched for the first time, or a reallocation, is a gap too.
  std::vector<double> gaps(1 << 16, 1.0);
  gaps.clear();
  const double start = monotonic_seconds();
  double previous = start;
  for (double t = start; t - start < seconds; previous = t) {
    t = monotonic_seconds();
    if (t - previous > threshold) gaps.push_back(t - previous);
  }
  return gaps;
}

}  // namespace

MachineFloor summarize_gaps(std::vector<double> gaps, double seconds, int spinners) {
  MachineFloor floor;
  floor.seconds = seconds;
  const double spun = seconds * std::max(1, spinners);
  if (spun <= 0) return floor;
  double away = 0;
  for (const double gap : gaps) away += gap;
  floor.per_second = static_cast<double>(gaps.size()) / spun;
  floor.away_share = away / spun;
  if (gaps.empty()) return floor;
  std::sort(gaps.begin(), gaps.end());
  floor.gap_p50 = nearest_rank(gaps, 0.5);
  floor.gap_p90 = nearest_rank(gaps, 0.9);
  return floor;
}

MachineFloor measure_machine_floor(double seconds, double threshold, int spinners) {
  const int count = std::max(1, spinners);
  std::vector<std::vector<double>> seen(static_cast<std::size_t>(count));
  {
    std::vector<std::jthread> threads;
    for (int i = 1; i < count; ++i)
      threads.emplace_back([&seen, i, seconds, threshold] {
        seen[static_cast<std::size_t>(i)] = spin_and_keep_gaps(seconds, threshold);
      });
    seen[0] = spin_and_keep_gaps(seconds, threshold);
  }
  std::vector<double> gaps;
  for (const auto& one : seen) gaps.insert(gaps.end(), one.begin(), one.end());
  return summarize_gaps(std::move(gaps), seconds, count);
}

WorkFloor measure_work_floor(const BetweenCalls& work, double spin, double seconds,
                             double threshold, int spinners) {
  constexpr long kLeastIterations = 200;
  constexpr double kLongest = 20.0;
  const int count = std::max(1, spinners);
  // Iterations are counted by index so that the threads draw the same mix;
  // each keeps which of its iterations left late.
  std::vector<std::vector<char>> late(static_cast<std::size_t>(count));
  const auto run = [&](int thread) {
    std::vector<char>& mine = late[static_cast<std::size_t>(thread)];
    mine.reserve(1 << 16);
    const double start = monotonic_seconds();
    for (std::uint64_t i = 0;; ++i) {
      const double elapsed = monotonic_seconds() - start;
      if (elapsed > kLongest || (elapsed >= seconds && i >= kLeastIterations)) break;
      do_work(step_of(work, i));
      double t = monotonic_seconds();
      const double deadline = t + spin;
      while (t < deadline) t = monotonic_seconds();
      mine.push_back(t - deadline > threshold ? 1 : 0);
    }
  };
  {
    std::vector<std::jthread> threads;
    for (int i = 1; i < count; ++i) threads.emplace_back(run, i);
    run(0);
  }
  WorkFloor floor;
  std::size_t common = late[0].size();
  for (const auto& one : late) common = std::min(common, one.size());
  long any = 0;
  for (std::size_t i = 0; i < common; ++i) {
    bool flagged = false;
    for (const auto& one : late) flagged = flagged || one[i] != 0;
    any += flagged ? 1 : 0;
  }
  floor.iterations = static_cast<long>(common);
  floor.late_share = common > 0 ? static_cast<double>(any) / static_cast<double>(common) : 0.0;
  return floor;
}

}  // namespace harmonize::tools
