#include "clock/time_source.hpp"

#include <ctime>

namespace harmonize::clock {
namespace {

class MonotonicSource final : public TimeSource {
 public:
  double now() const noexcept override {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  const char* name() const noexcept override { return "monotonic"; }
};

class FunctionSource final : public TimeSource {
 public:
  FunctionSource(double (*read)(), const char* name) : read_(read), name_(name) {}
  double now() const noexcept override { return read_(); }
  const char* name() const noexcept override { return name_; }

 private:
  double (*read_)();
  const char* name_;
};

class SkewedView final : public TimeSource {
 public:
  SkewedView(const TimeSource& truth, double offset, double drift)
      : truth_(truth), offset_(offset), drift_(drift) {}
  double now() const noexcept override { return truth_.now() * (1.0 + drift_) + offset_; }
  const char* name() const noexcept override { return truth_.name(); }

 private:
  const TimeSource& truth_;
  double offset_;
  double drift_;
};

}  // namespace

std::unique_ptr<TimeSource> make_skewed_view(const TimeSource& truth, double offset, double drift) {
  return std::make_unique<SkewedView>(truth, offset, drift);
}

std::unique_ptr<TimeSource> make_monotonic_source() {
  return std::make_unique<MonotonicSource>();
}

std::unique_ptr<TimeSource> make_function_source(double (*read)(), const char* name) {
  return std::make_unique<FunctionSource>(read, name);
}

std::unique_ptr<TimeSource> make_source(choices::TimeSourceKind kind, double (*wtime)(),
                                        std::string& why) {
  switch (kind) {
    case choices::TimeSourceKind::monotonic:
      return make_monotonic_source();
    case choices::TimeSourceKind::tsc:
      return make_tsc_source(why);
    case choices::TimeSourceKind::wtime:
      if (wtime == nullptr) {
        why = "no MPI_Wtime available here";
        return nullptr;
      }
      return make_function_source(wtime, choices::to_string(kind));
  }
  why = "unknown time source";
  return nullptr;
}

}  // namespace harmonize::clock
