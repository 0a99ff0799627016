#include "clock/model_stack.hpp"

#include <cstdint>
#include <cstring>

namespace harmonize::clock {
namespace {

constexpr std::uint32_t kMagic = 0x4b4c4348;  // "HCLK" little-endian
constexpr std::uint32_t kVersion = 3;
constexpr std::size_t kHeader = 3 * sizeof(std::uint32_t);
constexpr std::size_t kBoundBytes = 5 * sizeof(double);
constexpr std::size_t kLevelBytes = 2 * sizeof(double);
constexpr std::uint32_t kMaxDepth = 64;  // a corrupted depth must not allocate gigabytes

template <typename T>
void put(std::vector<std::byte>& out, T value) {
  const auto* raw = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), raw, raw + sizeof(T));
}

template <typename T>
T get(std::span<const std::byte> bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof(T));
  return value;
}

}  // namespace

std::vector<std::byte> ModelStack::serialize() const {
  std::vector<std::byte> out;
  out.reserve(kHeader + kBoundBytes + levels_.size() * kLevelBytes);
  put(out, kMagic);
  put(out, kVersion);
  put(out, static_cast<std::uint32_t>(levels_.size()));
  put(out, bound_.at);
  put(out, bound_.value);
  put(out, bound_.rate);
  put(out, bound_.likely_value);
  put(out, bound_.likely_rate);
  for (const LinearModel& level : levels_) {
    put(out, level.slope);
    put(out, level.intercept);
  }
  return out;
}

std::optional<ModelStack> ModelStack::deserialize(std::span<const std::byte> bytes) {
  if (bytes.size() < kHeader) return std::nullopt;
  if (get<std::uint32_t>(bytes, 0) != kMagic || get<std::uint32_t>(bytes, 4) != kVersion)
    return std::nullopt;
  const auto depth = get<std::uint32_t>(bytes, 8);
  if (depth > kMaxDepth || bytes.size() != kHeader + kBoundBytes + depth * kLevelBytes)
    return std::nullopt;
  std::vector<LinearModel> levels(depth);
  for (std::uint32_t i = 0; i < depth; ++i) {
    const std::size_t at = kHeader + kBoundBytes + i * kLevelBytes;
    levels[i] = LinearModel{get<double>(bytes, at), get<double>(bytes, at + sizeof(double))};
  }
  ModelStack stack(std::move(levels));
  const auto bound_field = [&](std::size_t i) {
    return get<double>(bytes, kHeader + i * sizeof(double));
  };
  stack.bound_ =
      ErrorBound{bound_field(0), bound_field(1), bound_field(2), bound_field(3), bound_field(4)};
  return stack;
}

}  // namespace harmonize::clock
