#include "clock/time_source.hpp"

#include <ctime>

#ifdef HARMONIZE_SMPI
#include <simgrid/engine.h>

#include <string>
#include <xbt/config.hpp>
#endif

namespace harmonize::clock {
namespace {

#ifdef HARMONIZE_SMPI
bool computing_is_simulated() {
  try {
    return simgrid::config::get_value<bool>("smpi/simulate-computation");
  } catch (...) {
    return true;  // SMPI's clock_gettime is right either way
  }
}
#endif

class MonotonicSource final : public TimeSource {
 public:
  double now() const noexcept override {
#ifdef HARMONIZE_SMPI
    // SMPI's clock_gettime stops and restarts the rank's CPU timer around
    // each read (two system calls) to charge the computing since the last
    // MPI call. Where computing costs no simulated time (harmonize-scale),
    // the simulator's clock is the same reading without them.
    if (!computing_simulated_) return simgrid_get_clock();
#endif
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  const char* name() const noexcept override {
    return "monotonic";
  }

#ifdef HARMONIZE_SMPI
 private:
  bool computing_simulated_ = computing_is_simulated();
#endif
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
