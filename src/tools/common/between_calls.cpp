#include "tools/common/between_calls.hpp"

#include <time.h>

#include <array>

#include "common/splitmix.hpp"
#include "config/values.hpp"
#include "tools/common/launch.hpp"

namespace harmonize::tools {
namespace {

constexpr std::array<double, 6> kMixLengths{0, 10e-6, 100e-6, 1e-3, 10e-3, 100e-3};

}  // namespace

std::optional<BetweenCalls> parse_between_calls(std::string_view text) {
  if (text == "none") return BetweenCalls{};
  if (text == "mix") return BetweenCalls{.kind = BetweenCalls::Kind::mix};
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::string_view kind = text.substr(0, colon);
  const auto seconds = config::parse_duration(text.substr(colon + 1));
  if (!seconds || *seconds < 0) return std::nullopt;
  if (kind == "sleep") return BetweenCalls{BetweenCalls::Kind::sleep, *seconds};
  if (kind == "spin") return BetweenCalls{BetweenCalls::Kind::spin, *seconds};
  return std::nullopt;
}

std::string describe(const BetweenCalls& work) {
  switch (work.kind) {
    case BetweenCalls::Kind::none:
      return "none";
    case BetweenCalls::Kind::mix:
      return "mix";
    case BetweenCalls::Kind::sleep:
      return "sleep:" + config::format_seconds(work.seconds);
    case BetweenCalls::Kind::spin:
      return "spin:" + config::format_seconds(work.seconds);
  }
  return "none";
}

WorkStep step_of(const BetweenCalls& work, std::uint64_t index) {
  switch (work.kind) {
    case BetweenCalls::Kind::none:
      return {};
    case BetweenCalls::Kind::sleep:
      return {false, work.seconds};
    case BetweenCalls::Kind::spin:
      return {true, work.seconds};
    case BetweenCalls::Kind::mix: {
      const std::uint64_t draw = splitmix64(index);
      return {(draw & 1) != 0, kMixLengths[(draw >> 1) % kMixLengths.size()]};
    }
  }
  return {};
}

void do_work(const WorkStep& step) {
  if (!(step.seconds > 0)) return;
  if (step.spin) {
    const double until = monotonic_seconds() + step.seconds;
    while (monotonic_seconds() < until) {
    }
    return;
  }
  timespec duration{};
  duration.tv_sec = static_cast<time_t>(step.seconds);
  duration.tv_nsec = static_cast<long>((step.seconds - static_cast<double>(duration.tv_sec)) * 1e9);
  nanosleep(&duration, nullptr);
}

}  // namespace harmonize::tools
