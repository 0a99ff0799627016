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

namespace harmonize::choices {

// Each enum is followed by its names, in the order of its values (the name of
// a value is names(value)[value]); the default comes first, as the README
// lists it. The static_asserts catch a value added without its name.
// none: the clocks are global already (PTP, a hardware clock), used as they
// are and only checked (sync/given_clock.hpp).
enum class Scheme { h2hca, hca3, h3hca, none };
inline constexpr std::array<std::string_view, 4> kSchemeNames{"h2hca", "hca3", "h3hca", "none"};
static_assert(static_cast<std::size_t>(Scheme::none) + 1 == kSchemeNames.size());

// automatic: offset-only until the fit points span two syncs at least
// kMinDriftBaseline apart, then a linear model whose slope is kept only when it
// is statistically significant (|slope| > 2 standard errors). A single sync's
// millisecond is too short to see a drift reliably (see choose_model); over
// seconds of history the linear model of paper 001 is the best one.
enum class ModelKind { automatic, offset_only, linear };
inline constexpr std::array<std::string_view, 3> kModelKindNames{"auto", "offset", "linear"};
static_assert(static_cast<std::size_t>(ModelKind::linear) + 1 == kModelKindNames.size());

enum class OffsetAlgorithm { skampi, mean_rtt };
inline constexpr std::array<std::string_view, 2> kOffsetAlgorithmNames{"skampi", "meanrtt"};
static_assert(static_cast<std::size_t>(OffsetAlgorithm::mean_rtt) + 1 ==
              kOffsetAlgorithmNames.size());

enum class TimeSourceKind { monotonic, tsc, wtime };
inline constexpr std::array<std::string_view, 3> kTimeSourceNames{"monotonic", "tsc", "wtime"};
static_assert(static_cast<std::size_t>(TimeSourceKind::wtime) + 1 == kTimeSourceNames.size());

// Found by argument-dependent lookup: an enum of another namespace (the
// policy's Mode) joins name_of/parse_choice with a names() of its own.
constexpr std::span<const std::string_view> names(Scheme) {
  return kSchemeNames;
}
constexpr std::span<const std::string_view> names(ModelKind) {
  return kModelKindNames;
}
constexpr std::span<const std::string_view> names(OffsetAlgorithm) {
  return kOffsetAlgorithmNames;
}
constexpr std::span<const std::string_view> names(TimeSourceKind) {
  return kTimeSourceNames;
}

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

constexpr const char* to_string(Scheme value) {
  return name_of(value).data();
}
constexpr const char* to_string(ModelKind value) {
  return name_of(value).data();
}
constexpr const char* to_string(OffsetAlgorithm value) {
  return name_of(value).data();
}
constexpr const char* to_string(TimeSourceKind value) {
  return name_of(value).data();
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
