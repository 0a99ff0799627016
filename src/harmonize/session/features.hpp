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

}  // namespace harmonize
