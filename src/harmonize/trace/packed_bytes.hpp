#pragma once
// Bytes kept in the unit the report's tree sends (sync/mpi/tree_merge.hpp):
// doubles, the first holding the byte count. A timeline's parts are written
// into it as they come, so that sending them up copies nothing: at 4 096
// simulated ranks the copies (a string, then its packed twin) were most of
// what the timeline cost in memory. Pure.
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace harmonize::trace {

class PackedBytes {
 public:
  template <typename T>
  void append_value(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    append(&value, sizeof value);
  }
  void append(std::string_view bytes) { append(bytes.data(), bytes.size()); }
  std::string_view bytes() const {
    return {reinterpret_cast<const char*>(words_.data() + 1), size_};
  }
  // The words to send (the count set); this is empty afterwards.
  std::vector<double> take() {
    const std::uint64_t count = size_;
    std::memcpy(words_.data(), &count, sizeof count);
    std::vector<double> taken = std::move(words_);
    words_.assign(1, 0.0);
    size_ = 0;
    return taken;
  }
  void clear() {
    std::vector<double>(1, 0.0).swap(words_);
    size_ = 0;
  }

 private:
  void append(const void* data, std::size_t length) {
    if (length == 0) return;
    // resize grows geometrically; pages of capacity never written are
    // never resident.
    words_.resize(1 + (size_ + length + sizeof(double) - 1) / sizeof(double));
    std::memcpy(reinterpret_cast<char*>(words_.data() + 1) + size_, data, length);
    size_ += length;
  }

  std::vector<double> words_ = std::vector<double>(1, 0.0);
  std::size_t size_ = 0;
};

// The bytes a message of PackedBytes::take() carries; nullopt when its count
// claims more than it holds.
inline std::optional<std::string_view> unpacked(std::span<const double> message) {
  if (message.empty()) return std::nullopt;
  std::uint64_t length = 0;
  std::memcpy(&length, message.data(), sizeof length);
  if (length > (message.size() - 1) * sizeof(double)) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(message.data() + 1), length);
}

}  // namespace harmonize::trace
