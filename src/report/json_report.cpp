#include "report/json_report.hpp"

#include "report/comm_fields.hpp"

#include "common/collective_kind.hpp"
#include "report/totals.hpp"

namespace harmonize::report {

using nlohmann::json;

json to_json(const Distribution& d) {
  return json{{"count", d.count()},
              {"mean", d.mean()},
              {"min", d.min()},
              {"p50", d.percentile(50.0)},
              {"p90", d.percentile(90.0)},
              {"p99", d.percentile(99.0)},
              {"max", d.max()}};
}

namespace {

// A distribution with its histogram (the positive buckets in use), so that a
// reader can pool several runs' calls and put an interval on their median
// (scripts/harmonize_ab). Bucket i covers magnitudes from 2^(e-1) (1 + s/m)
// to 2^(e-1) (1 + (s+1)/m), e = i / m + min_exponent, s = i % m, m =
// sub_buckets; `below` counts values under bucket 0 (zeros), `above` those
// past the last.
json with_histogram(const Distribution& d) {
  json out = to_json(d);
  out["histogram"] = {{"min_exponent", Distribution::kMinExponent},
                      {"sub_buckets", Distribution::kSubBuckets},
                      {"first", d.positive_first()},
                      {"counts", d.positive_counts()},
                      {"below", d.near_zero()},
                      {"above", d.positive_overflow()}};
  return out;
}

json to_json(const CollectiveStats& s) {
  const auto operation = static_cast<std::size_t>(s.key.operation);
  json out{
      {"operation", operation < kCollectiveNames.size() ? std::string(kCollectiveNames[operation])
                                                        : std::string("?")},
      {"bytes", s.key.bytes},
      {"root", s.key.root < 0 ? json(nullptr) : json(s.key.root)},
      {"calls", s.calls},
      {"valid_calls", s.valid_calls},
      {"clock_error_bound", s.clock_error_bound},
      {"arrival_skew", with_histogram(s.arrival_skew)},
      {"t_global", with_histogram(s.t_global)},
      {"t_all_present", to_json(s.t_all_present)},
      {"local", with_histogram(s.local)},
      {"valid",
       {{"arrival_skew", with_histogram(s.valid_arrival_skew)},
        {"arrival_error", with_histogram(s.valid_arrival_error)},
        {"t_global", with_histogram(s.valid_t_global)},
        {"local", with_histogram(s.valid_local)}}},
  };
  if (operation < kCollectiveNames.size() && is_nonblocking(static_cast<Collective>(operation))) {
    out["overlap"] = with_histogram(s.overlap);
    out["valid"]["overlap"] = with_histogram(s.valid_overlap);
    out["overlap_worked"] = to_json(s.overlap_worked);
    out["overlap_waited"] = to_json(s.overlap_waited);
  }
  return out;
}

// The object of a communicator's JSON where a counter goes.
json& out_of(json& comm, fields::Written written) {
  switch (written) {
    case fields::Written::collectives:
      return comm["collectives"];
    case fields::Written::nonblocking:
      return comm["collectives"]["nonblocking_not_completed"];
    case fields::Written::top:
    case fields::Written::truth:
      break;
  }
  return comm;
}

json collectives_json(const CommSummary& c) {
  json keys = json::array();
  for (const CollectiveStats& s : c.collectives.keys()) keys.push_back(to_json(s));
  // The counters of the collective timer join these (fields::Written).
  return json{{"calls_over_key_limit", c.collectives.calls_over_key_limit()},
              {"nonblocking_not_completed", json::object()},
              {"keys", std::move(keys)}};
}

}  // namespace

json to_json(const CommSummary& c) {
  json out{
      {"name", c.name},
      {"size", c.size},
      {"kind", c.kind},
      {"not_harmonized_reason", c.not_harmonized_reason},
      {"missed_calls_any", c.missed_calls_any},
      {"failure_rate", c.failure_rate},
      {"late_calls_any", c.late_calls_any},
      {"late_rate", c.late_rate},
      {"resync_seconds", c.resync_seconds},
      {"slack",
       {{"initial", c.slack_initial},
        {"final", c.slack_final},
        {"min", c.slack_min},
        {"max", c.slack_max}}},
      {"collectives", collectives_json(c)},
  };
  for (const auto& field : fields::kCounters)
    out_of(out, field.written)[std::string(field.json)] = c.*field.summary;
  for (const auto& field : fields::kPerRank) {
    if (const std::optional<WorstRanks>& worst = c.*field.worst) {
      json ranks = json::array();
      for (const auto& [rank, events] : worst->worst) ranks.push_back({rank, events});
      out[std::string(field.worst_json)] = {{"ranks_with_events", worst->ranks_with_events},
                                            {"worst", ranks}};
    } else {
      out[std::string(field.json)] = c.*field.summary;
    }
  }
  for (const auto& field : fields::kDistributions)
    out[std::string(field.json)] = to_json(c.*field.summary);
  return out;
}

namespace {

json to_json(const JobInfo& j) {
  return json{{"id", j.id},
              {"ranks", j.ranks},
              {"nodes", j.nodes},
              {"hosts", j.hosts},
              {"mpi_library", j.mpi_library},
              {"program", j.program},
              {"started", j.started},
              {"finished", j.finished}};
}

json to_json(const ClockInfo& c) {
  json test_clock = nullptr;
  if (c.test_clock) {
    test_clock = json{{"max_offset", c.test_clock->max_offset},
                      {"max_drift", c.test_clock->max_drift},
                      {"seed", c.test_clock->seed},
                      {"node_size", c.test_clock->node_size},
                      {"scope", c.test_clock->scope}};
  }
  json shared_clock_check = nullptr;
  if (c.shared_clock_check) {
    const SharedClockCheckInfo& k = *c.shared_clock_check;
    json worst_node = nullptr;
    if (k.worst_host) worst_node = {{"host", *k.worst_host}, {"world_ranks", k.worst_world_ranks}};
    shared_clock_check = {{"tolerance_s", k.tolerance},
                          {"checked_groups", k.checked_groups},
                          {"fell_back_groups", k.fell_back_groups},
                          {"worst_disagreement_s", k.worst_disagreement},
                          {"worst_node", worst_node},
                          {"sub_communicators_fell_back", k.sub_communicators_fell_back}};
  }
  json end_check = nullptr;
  if (c.end_check) {
    const ClockCheckInfo& e = *c.end_check;
    end_check = json{{"checked", e.checked},
                     {"candidates", e.candidates},
                     {"age", e.age},
                     {"max_offset", e.max_offset},
                     {"median_offset", e.median_offset},
                     {"max_uncertainty", e.max_uncertainty},
                     {"max_bound", e.max_bound},
                     {"inconsistent", e.inconsistent},
                     {"seconds", e.seconds},
                     {"truth_max_error", e.truth_max_error ? json(*e.truth_max_error) : json()}};
  }
  json out{{"scheme", c.scheme},
           {"time_source", c.time_source},
           {"model", c.model},
           {"offset_alg", c.offset_alg},
           {"fitpoints", c.fitpoints},
           {"pingpongs", c.pingpongs},
           {"initial_sync_seconds", c.initial_sync_seconds},
           {"sync_count", c.sync_count},
           {"sync_seconds_total", c.sync_seconds_total},
           {"refused_resyncs", c.refused_resyncs},
           {"test_clock", test_clock},
           {"end_check", end_check},
           {"shared_clock_check", shared_clock_check}};
  if (c.sync_layer) {
    out["sync_nodes"] = c.sync_layer->nodes;
    out["sync_levels"] = c.sync_layer->levels;
    out["sync_note"] = c.sync_layer->note;
  }
  return out;
}

json to_json(const Totals& t) {
  return json{{"communicators", t.communicators},
              {"calls", t.calls},
              {"harmonized_calls", t.harmonized_calls},
              {"not_harmonized_calls", t.not_harmonized_calls},
              {"missed_calls_any", t.missed_calls_any},
              {"failure_rate", t.failure_rate},
              {"late_calls_any", t.late_calls_any},
              {"late_rate", t.late_rate},
              {"resyncs", t.resyncs},
              {"resync_seconds", t.resync_seconds},
              {"exit_skew", to_json(t.exit_skew)},
              {"wait", to_json(t.wait)}};
}

json to_json(const InterleaveInfo& info) {
  json comparisons = json::array();
  for (const InterleaveComparison& c : info.comparisons) {
    comparisons.push_back({{"communicator", c.communicator},
                           {"size", c.size},
                           {"operation", c.operation},
                           {"bytes", c.bytes},
                           {"root", c.root},
                           {"figure", c.figure},
                           {"side", c.side},
                           {"baseline", info.sides.empty() ? json() : json(info.sides[0])},
                           {"blocks", c.blocks},
                           {"positive_blocks", c.positive},
                           {"negative_blocks", c.negative},
                           {"calls", c.calls},
                           {"baseline_calls", c.baseline_calls},
                           {"median", c.median},
                           {"baseline_median", c.baseline_median},
                           {"delta", c.delta},
                           {"delta_low", c.low ? json(*c.low) : json()},
                           {"delta_high", c.high ? json(*c.high) : json()},
                           {"decided", c.decided}});
  }
  return {
      {"sides", info.sides},
      {"run", info.run},
      {"seed", info.seed},
      {"algorithm_switch", info.algorithm_switch.empty() ? json() : json(info.algorithm_switch)},
      {"family_level", info.family_level},
      {"level_each", info.level_each},
      {"decided", info.decided},
      {"comparisons", comparisons}};
}

}  // namespace

json to_json(const JobReport& r) {
  json communicators = json::array();
  for (const CommSummary& c : r.communicators) {
    json comm = to_json(c);
    // Ground truth exists with test clocks only: null, not 0, without them.
    comm["truth_space_violations"] =
        r.truth_known && c.truth_space_violations ? json(*c.truth_space_violations) : json();
    for (const auto& field : fields::kCounters)
      if (field.written == fields::Written::truth && !r.truth_known)
        comm[std::string(field.json)] = nullptr;
    communicators.push_back(std::move(comm));
  }
  json threads = nullptr;
  if (r.concurrent_harmonized_barriers)
    threads = {{"processes", r.concurrent_harmonized_barriers->processes},
               {"peak_threads_rank0", r.concurrent_harmonized_barriers->peak_threads_rank0}};
  json out{
      {"concurrent_harmonized_barriers", threads},
      {"version", r.version},
      {"mode", r.mode},
      {"job", to_json(r.job)},
      {"config", r.config},
      {"clock", to_json(r.clock)},
      {"arrival", r.arrival ? json{{"pattern", r.arrival->pattern}, {"delta", r.arrival->delta}}
                            : json(nullptr)},
      {"communicators", communicators},
      {"totals", to_json(compute_totals(r.communicators))}};
  // Only when the merge at MPI_Finalize lost a message: a complete report
  // has no such key.
  if (!r.missing_records.empty()) out["missing_records"] = r.missing_records;
  if (r.trace)
    out["trace"] = {{"file", r.trace->file.empty() ? json(nullptr) : json(r.trace->file)},
                    {"window", r.trace->window},
                    {"dropped_events", r.trace->dropped_events}};
  if (r.trace && !r.trace->otf2.empty()) out["trace"]["otf2"] = r.trace->otf2;
  if (r.interleave) out["interleave"] = to_json(*r.interleave);
  return out;
}

std::string render_report(const JobReport& report) {
  // Host or program names are not guaranteed UTF-8; replacing a bad byte beats
  // losing the whole report to an exception at MPI_Finalize.
  return to_json(report).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace harmonize::report
