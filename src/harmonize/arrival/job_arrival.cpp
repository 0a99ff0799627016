#include "harmonize/arrival/job_arrival.hpp"

#include "config/arrival.hpp"

namespace harmonize::arrival {

std::string JobArrival::misfit_error() const {
  if (pattern_.kind == ArrivalKind::none) return {};
  const auto misfit = arrival_misfit(pattern_, world_size_, nodes_);
  if (!misfit) return {};
  return "HARMONIZE_ARRIVAL='" + config::arrival_text(pattern_) +
         "' does not fit this job: " + *misfit;
}

std::optional<ArrivalDelays> JobArrival::delays(int rank, int size) const {
  if (!harmonizing_ || pattern_.kind == ArrivalKind::none) return std::nullopt;
  return ArrivalDelays(pattern_, ArrivalPlace{rank, size, node_});
}

std::optional<report::ArrivalInfo> JobArrival::report_info() const {
  if (!harmonizing_) return std::nullopt;
  return report::ArrivalInfo{config::arrival_text(pattern_),
                             arrival_delta(pattern_, world_size_, nodes_)};
}

double JobArrival::imposed_delay(int size) const {
  return arrival_delta(pattern_, size, nodes_);
}

}  // namespace harmonize::arrival
