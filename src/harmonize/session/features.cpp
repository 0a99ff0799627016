// The features of the session, one line each: a new feature is its room,
// its line here and its row in config/variables.cpp (docs/architecture.md).
#include "harmonize/session/features.hpp"
#include "harmonize/arrival/mpi/arrival_feature.hpp"
#include "harmonize/collectives/mpi/timed_collectives.hpp"
#include "harmonize/interleave/mpi/interleave_feature.hpp"
#include "harmonize/threads/thread_census.hpp"
#include "harmonize/trace/mpi/timeline_writer.hpp"

namespace harmonize {

Features make_features(const feature::JobContext& job) {
  using Make = std::unique_ptr<feature::Feature> (*)(const feature::JobContext&);
  // The order their hooks run in: the timer hears of a barrier first.
  constexpr Make kFeatures[] = {
      &collectives::TimedCollectives::make,  // HARMONIZE_COLLECTIVES
      &arrival::ArrivalFeature::make,        // HARMONIZE_ARRIVAL
      &interleave::InterleaveFeature::make,  // HARMONIZE_INTERLEAVE
      &trace::TimelineWriter::make,          // HARMONIZE_TRACE
      &threads::ThreadCensus::make,          // MPI_THREAD_MULTIPLE
  };
  Features made;
  for (const Make make : kFeatures)
    if (std::unique_ptr<feature::Feature> feature = make(job)) made.push_back(std::move(feature));
  return made;
}

feature::BarrierSide barrier_side_of(const Features& features, const feature::CommView& view,
                                     std::uint64_t index) {
  for (const auto& feature : features)
    if (const std::optional<feature::BarrierSide> chosen = feature->barrier_side(view, index))
      return *chosen;
  return {};
}

int measure_barrier_with(const Features& features, MPI_Comm comm,
                         const feature::BarrierBody& body) {
  for (const auto& feature : features)
    if (feature->measures_barrier()) return feature->measure_barrier(comm, body);
  return body();
}

collectives::CollectiveTimer* collective_timer_of(const Features& features) {
  for (const auto& feature : features)
    if (collectives::CollectiveTimer* timer = feature->call_timer()) return timer;
  return nullptr;
}

}  // namespace harmonize
