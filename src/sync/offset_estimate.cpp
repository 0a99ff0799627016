#include "sync/offset_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace harmonize::sync {
namespace {

struct Interval {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
};

// What the exchanges prove about the offset (local - reference) at any local
// time within their span. The reference stamped at an instant when the
// client's clock read something in [client_send, client_recv]: the offset
// then was within [client_send - reference, client_recv - reference]; it
// moves by at most max_drift per second, so within the span every interval
// widens by max_drift x span (100 ppm x 4 us = 0.4 ns over shared memory).
// The exact widening, per exchange by its own distance, would cost a second
// pass between measurements, which the reference waits for.
Interval widened(const Interval& intersection, std::span<const Exchange> exchanges,
                 double max_drift) {
  const double span = exchanges.back().client_recv - exchanges.front().client_send;
  const double slack = max_drift * std::abs(span);
  return Interval{intersection.low - slack, intersection.high + slack};
}

// Half-width of the interval around `estimate` that contains `proven`. Read
// disorder can make the proven interval empty by a hair; the allowance covers it.
double bound_around(double estimate, const Interval& proven) {
  return std::max({estimate - proven.low, proven.high - estimate, 0.0}) + kClockReadAllowance;
}

// The plain intersection of the exchanges' intervals for the offset.
Interval intersection_of(std::span<const Exchange> exchanges) {
  Interval both;
  for (const Exchange& e : exchanges) {
    both.low = std::max(both.low, e.client_send - e.reference);
    both.high = std::min(both.high, e.client_recv - e.reference);
  }
  return both;
}

}  // namespace

FitPoint skampi_offset(std::span<const Exchange> exchanges, double max_drift) {
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
  const double t = 0.5 * (fastest->client_send + fastest->client_recv);
  const double offset = -reference_minus_local;
  // In offset terms the intersection is [-high, -low].
  const Interval proven = widened(Interval{-high, -low}, exchanges, max_drift);
  return FitPoint{t, offset, half_width, bound_around(offset, proven)};
}

FitPoint mean_rtt_offset(std::span<const Exchange> exchanges, double mean_rtt, double max_drift) {
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
  FitPoint point = *median;
  point.bound =
      bound_around(point.offset, widened(intersection_of(exchanges), exchanges, max_drift));
  return point;
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
