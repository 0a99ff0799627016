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
  // What the likely bound assumes of the paths' asymmetry beyond what a
  // sync's scatter shows, as a share of each fit point's proven half-width
  // (about half its fastest round trip).
  double path_asymmetry = choices::kDefaultPathAsymmetry;
  // Both set by on_oversubscribed_node. There the MPI transport waits by
  // polling and yielding (GroupTransport::set_yield_while_waiting). And the
  // likely bound (sync/likely_error.hpp), which reads the asymmetry of the
  // paths from the scatter of a sync's offsets, is the proven one: time
  // slices bias a whole sync alike (2.4 us of true error under a 1.7 us
  // likely bound, 4 ranks on 2 cores).
  bool yield_while_waiting = false;
  bool likely_from_scatter = true;
  double history_seconds = 30.0;

  // A node with more ranks than cores.
  void on_oversubscribed_node(bool oversubscribed) {
    yield_while_waiting = oversubscribed;
    likely_from_scatter = !oversubscribed;
  }

  bool operator==(const Settings&) const = default;
};

}  // namespace harmonize::sync
