#pragma once
// What a synchronization does and how hard it tries (pure).
#include "common/choices.hpp"

namespace harmonize::sync {

// The enums, their names and the tuned defaults are shared with the policy
// (common/choices.hpp): one enum per concept.
using choices::ModelKind;
using choices::OffsetAlgorithm;
using choices::Scheme;
using choices::to_string;

struct Settings {
  Scheme scheme = choices::kDefaultScheme;
  OffsetAlgorithm offset = choices::kDefaultOffsetAlgorithm;
  ModelKind model = choices::kDefaultModelKind;
  int fitpoints = choices::kDefaultFitpoints;
  int pingpongs = choices::kDefaultPingpongs;
  int min_rtt_patience = choices::kDefaultMinRttPatience;  // 0 = off
  // Refinement across syncs: fit points of up to this many earlier syncs of
  // the same pair, no older than history_seconds, feed the drift estimate.
  // Paper 001 (fig. 2) finds drift linear over ~20 s, not over minutes.
  int history_syncs = 8;
  // Set when the node is oversubscribed (more ranks than cores): the MPI
  // transport then waits by polling and yielding
  // (GroupTransport::set_yield_while_waiting).
  bool yield_while_waiting = false;
  // The likely bound (sync/likely_error.hpp) reads the asymmetry of the paths
  // from the scatter of a sync's offsets. On an oversubscribed node time
  // slices bias a whole sync alike (2.4 us of true error under a 1.7 us
  // likely bound, 4 ranks on 2 cores): there the likely bound is the proven one.
  bool likely_from_scatter = true;
  double history_seconds = 30.0;

  bool operator==(const Settings&) const = default;
};

}  // namespace harmonize::sync
