#include "clock/model_stack.hpp"

#include <cstdint>

#include "common/raw_bytes.hpp"

namespace harmonize::clock {
namespace {

constexpr std::uint32_t kMagic = 0x4b4c4348;  // "HCLK" little-endian
constexpr std::uint32_t kVersion = 3;
constexpr std::size_t kHeader = 3 * sizeof(std::uint32_t);
constexpr std::size_t kBoundBytes = 5 * sizeof(double);
constexpr std::size_t kLevelBytes = 2 * sizeof(double);
constexpr std::uint32_t kMaxDepth = 64;  // a corrupted depth must not allocate gigabytes

}  // namespace

std::vector<std::byte> ModelStack::serialize() const {
  std::vector<std::byte> out;
  out.reserve(kHeader + kBoundBytes + levels_.size() * kLevelBytes);
  append_raw(out, kMagic);
  append_raw(out, kVersion);
  append_raw(out, static_cast<std::uint32_t>(levels_.size()));
  append_raw(out, bound_.at);
  append_raw(out, bound_.value);
  append_raw(out, bound_.rate);
  append_raw(out, bound_.likely_value);
  append_raw(out, bound_.likely_rate);
  for (const LinearModel& level : levels_) {
    append_raw(out, level.slope);
    append_raw(out, level.intercept);
  }
  return out;
}

std::optional<ModelStack> ModelStack::deserialize(std::span<const std::byte> bytes) {
  if (bytes.size() < kHeader) return std::nullopt;
  if (read_raw<std::uint32_t>(bytes, 0) != kMagic || read_raw<std::uint32_t>(bytes, 4) != kVersion)
    return std::nullopt;
  const auto depth = read_raw<std::uint32_t>(bytes, 8);
  if (depth > kMaxDepth || bytes.size() != kHeader + kBoundBytes + depth * kLevelBytes)
    return std::nullopt;
  std::vector<LinearModel> levels(depth);
  for (std::uint32_t i = 0; i < depth; ++i) {
    const std::size_t at = kHeader + kBoundBytes + i * kLevelBytes;
    levels[i] =
        LinearModel{read_raw<double>(bytes, at), read_raw<double>(bytes, at + sizeof(double))};
  }
  ModelStack stack(std::move(levels));
  const auto bound_field = [&](std::size_t i) {
    return read_raw<double>(bytes, kHeader + i * sizeof(double));
  };
  stack.bound_ =
      ErrorBound{bound_field(0), bound_field(1), bound_field(2), bound_field(3), bound_field(4)};
  return stack;
}

}  // namespace harmonize::clock
