#pragma once
// What a synchronization does and how hard it tries (pure).
#include <optional>
#include <string_view>

namespace harmonize::sync {

enum class Scheme { hca3, h2hca, h3hca };
enum class OffsetAlgorithm { skampi, mean_rtt };
// automatic: offset-only until the fit points span more than one sync
// (kMinDriftBaseline), then a linear model whose slope is kept only when it
// is statistically significant (|slope| > 2 standard errors). A single sync's
// millisecond is too short to see a drift reliably (see choose_model); over
// seconds of history the linear model of paper 001 is the best one.
enum class ModelKind { automatic, offset_only, linear };

struct Settings {
  Scheme scheme = Scheme::h2hca;
  OffsetAlgorithm offset = OffsetAlgorithm::skampi;
  ModelKind model = ModelKind::automatic;
  // Tuned with harmonize-clockcheck --sweep (docs/clock-sync.md): 8 x 10
  // keeps a 2-rank sync well under 1 ms on shared memory and under 5 ms on
  // TCP loopback; accuracy over time comes from the history, not from effort.
  int fitpoints = 8;
  int pingpongs = 10;
  int min_rtt_patience = 0;  // 0 = off: always do all ping-pongs
  // Refinement across syncs: fit points of up to this many earlier syncs of
  // the same pair, no older than history_seconds, feed the drift estimate.
  // Paper 001 (fig. 2) finds drift linear over ~20 s, not over minutes.
  int history_syncs = 8;
  // Set when the node is oversubscribed (more ranks than cores): the MPI
  // transport then waits by polling and yielding (see MpiTransport).
  bool yield_while_waiting = false;
  double history_seconds = 30.0;
};

std::optional<Scheme> parse_scheme(std::string_view text);
std::optional<OffsetAlgorithm> parse_offset_algorithm(std::string_view text);
std::optional<ModelKind> parse_model_kind(std::string_view text);
const char* to_string(Scheme scheme);
const char* to_string(OffsetAlgorithm offset);
const char* to_string(ModelKind model);

}  // namespace harmonize::sync
