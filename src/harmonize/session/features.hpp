#pragma once
// The enabled features (harmonize/feature/feature.hpp), in the order their
// hooks run: the list is features.cpp.
#include <memory>
#include <vector>

#include "harmonize/feature/feature.hpp"

namespace harmonize {

using Features = std::vector<std::unique_ptr<feature::Feature>>;

// Every feature this policy enables.
Features make_features(const feature::JobContext& job);

template <typename Hook>
void each_feature(const Features& features, Hook hook) {
  for (const auto& feature : features) hook(*feature);
}

// The side the first feature that schedules sides gives the `index`-th
// barrier of `view`'s communicator (none: the plain barrier).
feature::BarrierSide barrier_side_of(const Features& features, const feature::CommView& view,
                                     std::uint64_t index);

// `body` timed by the one feature that measures the native barrier (the
// barrier may be what the program measures: osu_barrier), else run as is.
int measure_barrier_with(const Features& features, MPI_Comm comm, const feature::BarrierBody& body);

// The collective timer a feature lends the MPI entry points, or nullptr.
collectives::CollectiveTimer* collective_timer_of(const Features& features);

}  // namespace harmonize
