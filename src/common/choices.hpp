#pragma once
// The choices the policy makes for the sync and clock layers: one enum per
// concept, its spelling (in HARMONIZE_* values, messages and reports) and its
// tuned default. std only, so that config/ (a leaf) and sync/ (below every
// user of the policy) share these enums without either including the other;
// docs/config.md says why this header sits outside both layers.
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

#include "common/named_enum.hpp"

namespace harmonize::choices {

// Each enum is declared with its names, in the order of its values
// (common/named_enum.hpp); the default comes first, as the README lists it.
// none: the clocks are global already (PTP, a hardware clock), used as they
// are and only checked (sync/given_clock.hpp).
#define HARMONIZE_SCHEMES(X) X(h2hca, "h2hca") X(hca3, "hca3") X(h3hca, "h3hca") X(none, "none")
HARMONIZE_NAMED_ENUM(Scheme, HARMONIZE_SCHEMES)

// automatic: offset-only until the fit points span two syncs at least
// kMinDriftBaseline apart, then a linear model whose slope is kept only when it
// is statistically significant (|slope| > 2 standard errors). A single sync's
// millisecond is too short to see a drift reliably (see choose_model); over
// seconds of history the linear model of paper 001 is the best one.
#define HARMONIZE_MODEL_KINDS(X) X(automatic, "auto") X(offset_only, "offset") X(linear, "linear")
HARMONIZE_NAMED_ENUM(ModelKind, HARMONIZE_MODEL_KINDS)

#define HARMONIZE_OFFSET_ALGORITHMS(X) X(skampi, "skampi") X(mean_rtt, "meanrtt")
HARMONIZE_NAMED_ENUM(OffsetAlgorithm, HARMONIZE_OFFSET_ALGORITHMS)

#define HARMONIZE_TIME_SOURCES(X) X(monotonic, "monotonic") X(tsc, "tsc") X(wtime, "wtime")
HARMONIZE_NAMED_ENUM(TimeSourceKind, HARMONIZE_TIME_SOURCES)

// The names are string literals: data() is NUL-terminated.
template <typename Enum>
constexpr std::string_view name_of(Enum value) {
  return names(value)[static_cast<std::size_t>(value)];
}

template <typename Enum>
constexpr std::optional<Enum> parse_choice(std::string_view text) {
  const std::span<const std::string_view> list = names(Enum{});
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i] == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

// Defaults of the variables that set sync::Settings. The variables table
// (config/variables.cpp) states them through these constants, and
// sync::Settings{} (the simulator, the unit tests) starts from them too.
// The effort was tuned with harmonize-clockcheck --sweep (docs/clock-sync.md):
// 8 x 10 keeps a 2-rank sync well under 1 ms on shared memory and under 5 ms
// on TCP loopback; accuracy over time comes from the history, not effort.
inline constexpr Scheme kDefaultScheme = Scheme::h2hca;
inline constexpr ModelKind kDefaultModelKind = ModelKind::automatic;
inline constexpr OffsetAlgorithm kDefaultOffsetAlgorithm = OffsetAlgorithm::skampi;
inline constexpr TimeSourceKind kDefaultTimeSource = TimeSourceKind::monotonic;
inline constexpr int kDefaultFitpoints = 8;
inline constexpr int kDefaultPingpongs = 10;
inline constexpr int kDefaultMinRttPatience = 0;  // 0 = off: always do all ping-pongs
// The share of each fit point's proven half-width (about half its fastest
// round trip) that the likely clock-error bound keeps for an asymmetry of
// the paths no timestamp shows
// (sync/likely_error.hpp; docs/clock-error.md has the runs behind 10 %).
inline constexpr double kDefaultPathAsymmetry = 0.10;

}  // namespace harmonize::choices
