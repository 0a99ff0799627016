#pragma once
// Which calls of a communicator the timeline keeps (HARMONIZE_TRACE_WINDOW):
// the first N and the last N (a ring), all, or a range of call indices.
// Bounded by design: a 10-million-call benchmark keeps 2N events, and counts
// the rest. Pure.
#include <cstdint>
#include <vector>

#include "common/trace_window.hpp"

namespace harmonize::trace {

template <typename Event>
class CallWindow {
 public:
  explicit CallWindow(TraceWindow window) : window_(window) {}

  // The `index`-th call (0-based, increasing) and what it was.
  void add(std::uint64_t index, const Event& event) {
    seen_ += 1;
    switch (window_.kind) {
      case TraceWindow::Kind::all:
        head_.push_back(event);
        return;
      case TraceWindow::Kind::range:
        if (index >= window_.first && index < window_.end) head_.push_back(event);
        return;
      case TraceWindow::Kind::edges:
        break;
    }
    if (head_.size() < window_.count) {
      head_.push_back(event);
      return;
    }
    if (tail_.size() < window_.count) {
      tail_.push_back(event);
    } else {
      tail_[next_] = event;
    }
    next_ = (next_ + 1) % window_.count;
  }

  // The kept events, in call order.
  std::vector<Event> kept() const {
    std::vector<Event> events = head_;
    const std::size_t n = tail_.size();
    // The ring's oldest entry is at next_ once it is full.
    const std::size_t oldest = n < window_.count ? 0 : next_;
    for (std::size_t i = 0; i < n; ++i) events.push_back(tail_[(oldest + i) % n]);
    return events;
  }
  std::uint64_t seen() const { return seen_; }
  std::uint64_t dropped() const { return seen_ - head_.size() - tail_.size() - released_; }
  // The kept events' memory back, once they are rendered; they still count
  // as kept, not dropped.
  void release() {
    released_ += head_.size() + tail_.size();
    std::vector<Event>().swap(head_);
    std::vector<Event>().swap(tail_);
  }

 private:
  TraceWindow window_;
  std::vector<Event> head_;
  std::vector<Event> tail_;
  std::size_t next_ = 0;
  std::uint64_t seen_ = 0;
  std::uint64_t released_ = 0;
};

}  // namespace harmonize::trace
