#include "sync/offset_estimate.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace harmonize::sync {

FitPoint skampi_offset(std::span<const Exchange> exchanges) {
  if (exchanges.empty()) return {};
  // reference - local is at least reference - client_recv and at most
  // reference - client_send.
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
  const Exchange* fastest = &exchanges.front();
  for (const Exchange& e : exchanges) {
    low = std::max(low, e.reference - e.client_recv);
    high = std::min(high, e.reference - e.client_send);
    if (e.rtt() < fastest->rtt()) fastest = &e;
  }
  const double reference_minus_local = 0.5 * (low + high);
  // Clock reads are not perfectly monotone across processes, so the bounds
  // can cross by a hair; a tiny floor keeps the weight finite.
  const double half_width = std::max(0.5 * (high - low), 1e-9);
  return FitPoint{0.5 * (fastest->client_send + fastest->client_recv), -reference_minus_local,
                  half_width};
}

FitPoint mean_rtt_offset(std::span<const Exchange> exchanges, double mean_rtt) {
  if (exchanges.empty()) return {};
  std::vector<FitPoint> candidates;
  candidates.reserve(exchanges.size());
  for (const Exchange& e : exchanges)
    candidates.push_back(
        FitPoint{e.client_recv, e.client_recv - e.reference - 0.5 * mean_rtt, 0.0});
  // The lower median is an actual measurement (paper: "med_idx"), so its
  // timestamp belongs to it.
  const auto median = candidates.begin() + static_cast<std::ptrdiff_t>((candidates.size() - 1) / 2);
  std::nth_element(candidates.begin(), median, candidates.end(),
                   [](const FitPoint& a, const FitPoint& b) { return a.offset < b.offset; });
  return *median;
}

bool min_rtt_stalled(std::span<const Exchange> exchanges, int patience) {
  if (patience <= 0 || exchanges.size() <= static_cast<std::size_t>(patience)) return false;
  double best_before = std::numeric_limits<double>::infinity();
  const std::size_t split = exchanges.size() - static_cast<std::size_t>(patience);
  for (std::size_t i = 0; i < split; ++i) best_before = std::min(best_before, exchanges[i].rtt());
  for (std::size_t i = split; i < exchanges.size(); ++i)
    if (exchanges[i].rtt() < best_before) return false;
  return true;
}

}  // namespace harmonize::sync
