#pragma once
// HARMONIZE_COLLECTIVES' values: which blocking collectives are timed.
#include <optional>
#include <string>
#include <string_view>

#include "common/collective_kind.hpp"

namespace harmonize::config {

// "all", "none", or names separated by commas; a name is matched without
// regard to case and may carry the MPI_ prefix ("MPI_Allreduce,bcast").
// nullopt for anything else (an empty item, an unknown name).
std::optional<CollectiveSet> parse_collective_set(std::string_view text);
// "all", "none", or the names in their canonical order, comma-separated.
std::string collective_set_text(CollectiveSet set);

}  // namespace harmonize::config
