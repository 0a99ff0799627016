#include "sync/offset_measure.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "sync/offset_estimate.hpp"

namespace harmonize::sync {
namespace {

// The ping carries what the reference should do next: answer, or stop. The
// reference does not care where one measurement ends and the next begins.
constexpr double kExchange = 1.0;
constexpr double kReleased = -1.0;

std::vector<Exchange> run_exchanges(Transport& transport, int reference,
                                    const clock::GlobalClock& clk, int count, int patience) {
  std::vector<Exchange> exchanges;
  exchanges.reserve(static_cast<std::size_t>(count));
  const std::array<double, 1> ping{kExchange};
  std::array<double, 1> pong{};
  for (int i = 0; i < count; ++i) {
    Exchange e;
    e.client_send = clk.now();
    transport.send(reference, ping);
    transport.recv(reference, pong);
    e.client_recv = clk.now();
    e.reference = pong[0];
    exchanges.push_back(e);
    if (min_rtt_stalled(exchanges, patience)) break;
  }
  return exchanges;
}

}  // namespace

FitPoint measure_offset_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, const Settings& settings,
                                  double mean_rtt) {
  const int count = settings.pingpongs < 1 ? 1 : settings.pingpongs;
  const auto exchanges = run_exchanges(transport, reference, clk, count, settings.min_rtt_patience);
  if (settings.offset == OffsetAlgorithm::mean_rtt) return mean_rtt_offset(exchanges, mean_rtt);
  return skampi_offset(exchanges);
}

void release_reference(Transport& transport, int reference) {
  const std::array<double, 1> released{kReleased};
  transport.send(reference, released);
}

void serve_as_reference(Transport& transport, int client, const clock::GlobalClock& clk) {
  std::array<double, 1> ping{};
  for (;;) {
    transport.recv(client, ping);
    if (ping[0] == kReleased) return;
    // Stamp as late as possible before answering: the stamp must fall
    // inside the client's send/receive window, and as near its middle as we can.
    const std::array<double, 1> pong{clk.now()};
    transport.send(client, pong);
  }
}

double measure_mean_rtt_as_client(Transport& transport, int reference,
                                  const clock::GlobalClock& clk, int pingpongs) {
  // One extra exchange first, not counted: the reference may still be busy
  // with an earlier round of HCA3, and that wait is no part of the RTT.
  const auto exchanges =
      run_exchanges(transport, reference, clk, (pingpongs < 1 ? 1 : pingpongs) + 1, 0);
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
