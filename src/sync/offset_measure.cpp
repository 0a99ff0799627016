#include "sync/offset_measure.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "sync/offset_estimate.hpp"

namespace harmonize::sync {
namespace {

// The ping carries what the reference should do next: answer, answer with
// its clock's error bound too, or stop. The reference does not care where one
// measurement ends and the next begins.
constexpr double kExchange = 1.0;
constexpr double kExchangeWithBound = 2.0;
constexpr double kReleased = -1.0;

// The bound rides on the first exchange of a measurement only: a pong of
// three doubles instead of one made a shared-memory round trip 10-30 ns
// slower here (up to 5 % of a sync), and the client can evaluate the bound
// at every later stamp itself.
using Pong = std::array<double, 1>;  // the reference's stamp
// stamp, the bound (at, value, rate, likely_value, likely_rate), then the
// reference clock as one model of its time source (slope, intercept)
using PongWithBound = std::array<double, 8>;

struct Exchanges {
  std::vector<Exchange> exchanges;
  clock::ErrorBound reference;         // of the reference's clock, as its first pong said
  clock::LinearModel reference_model;  // its clock from its time source, ditto
};

Exchanges run_exchanges(Transport& transport, int reference, const clock::GlobalClock& clk,
                        int count, int patience, bool with_bound) {
  Exchanges run;
  run.exchanges.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    const bool ask = with_bound && i == 0;
    const std::array<double, 1> ping{ask ? kExchangeWithBound : kExchange};
    Exchange e;
    e.client_send = clk.now();
    transport.send(reference, ping);
    if (ask) {
      PongWithBound pong{};
      transport.recv(reference, pong);
      e.client_recv = clk.now();
      e.reference = pong[0];
      run.reference = clock::ErrorBound{pong[1], pong[2], pong[3], pong[4], pong[5]};
      run.reference_model = clock::LinearModel{pong[6], pong[7]};
    } else {
      Pong pong{};
      transport.recv(reference, pong);
      e.client_recv = clk.now();
      e.reference = pong[0];
    }
    run.exchanges.push_back(e);
    if (min_rtt_stalled(run.exchanges, patience)) break;
  }
  return run;
}

// The reference's largest bounds, proven and likely, over its stamps. A
// bound grows away from its anchor on both sides and the stamps are in
// order, so the largest is at the first or the last.
struct ReferenceBounds {
  double proven = 0;
  double likely = 0;
};
ReferenceBounds reference_bounds_during(const Exchanges& run) {
  if (run.exchanges.empty()) return {};
  const clock::ErrorBound& bound = run.reference;
  const double first = run.exchanges.front().reference;
  const double last = run.exchanges.back().reference;
  return {std::max(bound.at_time(first), bound.at_time(last)),
          std::max(bound.likely_at(first), bound.likely_at(last))};
}

}  // namespace

OffsetMeasurement measure_offset_with_bound(Transport& transport, int reference,
                                            const clock::GlobalClock& clk, const Settings& settings,
                                            double mean_rtt) {
  const int count = settings.pingpongs < 1 ? 1 : settings.pingpongs;
  const auto run = run_exchanges(transport, reference, clk, count, settings.min_rtt_patience, true);
  const FitPoint point = settings.offset == OffsetAlgorithm::mean_rtt
                             ? mean_rtt_offset(run.exchanges, mean_rtt)
                             : skampi_offset(run.exchanges);
  const ReferenceBounds bounds = reference_bounds_during(run);
  return OffsetMeasurement{point, bounds.proven, bounds.likely, run.reference, run.reference_model};
}

FitPoint measure_offset_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, const Settings& settings,
                                  double mean_rtt) {
  return measure_offset_with_bound(transport, reference, clk, settings, mean_rtt).point;
}

void release_reference(Transport& transport, int reference) {
  const std::array<double, 1> released{kReleased};
  transport.send(reference, released);
}

void serve_as_reference(Transport& transport, int client, const clock::GlobalClock& clk) {
  // The clock does not change while it serves: its composite model is
  // computed once, not between a ping and its stamp.
  const clock::LinearModel model = clk.models().composite();
  std::array<double, 1> ping{};
  for (;;) {
    transport.recv(client, ping);
    if (ping[0] == kReleased) return;
    // Stamp as late as possible before answering: the stamp must fall
    // inside the client's send/receive window, and as near its middle as we can.
    if (ping[0] == kExchangeWithBound) {
      const clock::ErrorBound& bound = clk.error_bound();
      const PongWithBound pong{clk.now(),          bound.at,          bound.value, bound.rate,
                               bound.likely_value, bound.likely_rate, model.slope, model.intercept};
      transport.send(client, pong);
    } else {
      const Pong pong{clk.now()};
      transport.send(client, pong);
    }
  }
}

double measure_mean_rtt_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, int pingpongs) {
  // One extra exchange first, not counted: the reference may still be busy
  // with an earlier round of HCA3, and that wait is no part of the RTT.
  const auto exchanges =
      run_exchanges(transport, reference, clk, (pingpongs < 1 ? 1 : pingpongs) + 1, 0, false)
          .exchanges;
  // The median, not the paper's mean: one exchange caught in a time slice of
  // a busy core (milliseconds) moves a mean of 50 by tens of microseconds,
  // and half of that error goes into every offset (docs/clock-sync.md).
  std::vector<double> rtts;
  for (std::size_t i = 1; i < exchanges.size(); ++i) rtts.push_back(exchanges[i].rtt());
  const auto middle = rtts.begin() + static_cast<std::ptrdiff_t>(rtts.size() / 2);
  std::nth_element(rtts.begin(), middle, rtts.end());
  return *middle;
}

}  // namespace harmonize::sync
