#include "report/collective_stats.hpp"
#include "report/flat_count.hpp"

#include <algorithm>
#include <cmath>

#include "common/overlap_population.hpp"

namespace harmonize::report {
namespace {

constexpr double kFlatFormat = 4.0;
constexpr std::size_t kKeyFields = 6;  // operation, bytes, root, calls, valid calls, bound

template <typename Stats>
auto distributions(Stats& s) {
  return std::array{&s.arrival_skew,   &s.t_global,           &s.t_all_present,
                    &s.local,          &s.valid_arrival_skew, &s.valid_arrival_error,
                    &s.valid_t_global, &s.valid_local,        &s.overlap,
                    &s.valid_overlap,  &s.overlap_worked,     &s.overlap_waited};
}

}  // namespace

CollectiveStats* CollectiveTable::find_or_add(const CollectiveKey& key) {
  const auto at =
      std::lower_bound(keys_.begin(), keys_.end(), key,
                       [](const CollectiveStats& s, const CollectiveKey& k) { return s.key < k; });
  if (at != keys_.end() && at->key == key) return &*at;
  if (keys_.size() >= kMaxKeys) return nullptr;
  CollectiveStats stats;
  stats.key = key;
  return &*keys_.insert(at, std::move(stats));
}

void CollectiveTable::add_matched(const MatchedCall& call) {
  CollectiveStats* stats = find_or_add(call.key);
  if (stats == nullptr) {
    over_limit_ += 1;
    return;
  }
  stats->calls += 1;
  stats->clock_error_bound = std::max(stats->clock_error_bound, call.clock_error_bound);
  stats->arrival_skew.add(call.arrival_skew);
  stats->t_global.add(call.t_global);
  stats->t_all_present.add(call.t_all_present);
  if (!call.valid) return;
  stats->valid_calls += 1;
  stats->valid_arrival_skew.add(call.arrival_skew);
  stats->valid_arrival_error.add(call.arrival_error);
  stats->valid_t_global.add(call.t_global);
}

void CollectiveTable::add_local(const CollectiveKey& key, bool valid, double seconds,
                                std::optional<double> overlap) {
  CollectiveStats* stats = find_or_add(key);
  if (stats == nullptr) return;  // counted once, by add_matched on rank 0
  stats->local.add(seconds);
  if (valid) stats->valid_local.add(seconds);
  if (!overlap) return;
  stats->overlap.add(*overlap);
  if (valid) stats->valid_overlap.add(*overlap);
  (overlap_worked(*overlap, seconds) ? stats->overlap_worked : stats->overlap_waited).add(*overlap);
}

void CollectiveTable::merge(const CollectiveTable& other) {
  over_limit_ += other.over_limit_;
  for (const CollectiveStats& more : other.keys_) {
    CollectiveStats* stats = find_or_add(more.key);
    if (stats == nullptr) {
      over_limit_ += more.calls;
      continue;
    }
    stats->calls += more.calls;
    stats->valid_calls += more.valid_calls;
    stats->clock_error_bound = std::max(stats->clock_error_bound, more.clock_error_bound);
    const auto into = distributions(*stats);
    const auto from = distributions(more);
    for (std::size_t i = 0; i < into.size(); ++i) into[i]->merge(*from[i]);
  }
}

void CollectiveTable::append_to(std::vector<double>& out) const {
  out.insert(out.end(),
             {kFlatFormat, static_cast<double>(over_limit_), static_cast<double>(keys_.size())});
  for (const CollectiveStats& s : keys_) {
    out.insert(out.end(), {static_cast<double>(s.key.operation), static_cast<double>(s.key.bytes),
                           static_cast<double>(s.key.root), static_cast<double>(s.calls),
                           static_cast<double>(s.valid_calls), s.clock_error_bound});
    for (const Distribution* d : distributions(s)) d->append_to(out);
  }
}

std::optional<CollectiveTable> CollectiveTable::read_from(std::span<const double> in,
                                                          std::size_t& offset) {
  if (offset > in.size() || in.size() - offset < 3) return std::nullopt;
  const auto head = in.subspan(offset, 3);
  if (head[0] != kFlatFormat || !is_count(head[1]) || !is_count(head[2]) ||
      head[2] > static_cast<double>(kMaxKeys))
    return std::nullopt;
  CollectiveTable table;
  table.over_limit_ = static_cast<std::uint64_t>(head[1]);
  std::size_t cursor = offset + 3;
  for (std::size_t k = 0; k < static_cast<std::size_t>(head[2]); ++k) {
    if (in.size() - cursor < kKeyFields) return std::nullopt;
    const auto f = in.subspan(cursor, kKeyFields);
    if (!is_count(f[0]) || !is_count(f[1]) || f[2] < -1 || std::floor(f[2]) != f[2] ||
        !is_count(f[3]) || !is_count(f[4]))
      return std::nullopt;
    CollectiveStats s;
    s.key = {static_cast<int>(f[0]), static_cast<std::uint64_t>(f[1]), static_cast<int>(f[2])};
    s.calls = static_cast<std::uint64_t>(f[3]);
    s.valid_calls = static_cast<std::uint64_t>(f[4]);
    s.clock_error_bound = f[5];
    cursor += kKeyFields;
    for (Distribution* d : distributions(s)) {
      auto read = Distribution::read_from(in, cursor);
      if (!read) return std::nullopt;
      *d = std::move(*read);
    }
    // Keys travel sorted and distinct; anything else is not ours.
    if (!table.keys_.empty() && !(table.keys_.back().key < s.key)) return std::nullopt;
    table.keys_.push_back(std::move(s));
  }
  offset = cursor;
  return table;
}

void CallMaxima::write(double* out) const {
  const double fields[kFields] = {
      operation,         bytes,           root,       entry, exit,       invalid,
      clock_error_bound, undelayed_entry, incomplete, local, interleaved};
  std::copy(fields, fields + kFields, out);
}

CallMaxima CallMaxima::read(const double* in) {
  return {in[0], in[1], in[2], in[3], in[4], in[5], in[6], in[7], in[8], in[9], in[10]};
}

void CallMinima::write(double* out) const {
  const double fields[kFields] = {operation, entry, undelayed_entry, interleaved};
  std::copy(fields, fields + kFields, out);
}

CallMinima CallMinima::read(const double* in) {
  return {in[0], in[1], in[2], in[3]};
}

std::vector<MatchedCall> match_calls(std::span<const double> maxima, std::span<const double> minima,
                                     std::size_t n, bool& mismatched) {
  mismatched = false;
  std::vector<MatchedCall> calls;
  calls.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const CallMaxima hi = CallMaxima::read(&maxima[i * CallMaxima::kFields]);
    const CallMinima lo = CallMinima::read(&minima[i * CallMinima::kFields]);
    if (hi.operation != lo.operation) {
      mismatched = true;
      break;
    }
    if (hi.incomplete != 0) continue;
    MatchedCall call;
    call.key = {static_cast<int>(hi.operation), static_cast<std::uint64_t>(hi.bytes),
                static_cast<int>(hi.root)};
    call.arrival_skew = hi.entry - lo.entry;
    call.t_global = hi.exit - lo.entry;
    call.t_all_present = hi.exit - hi.entry;
    call.valid = hi.invalid == 0;
    call.clock_error_bound = hi.clock_error_bound;
    call.arrival_error = hi.undelayed_entry - lo.undelayed_entry;
    call.local_max = hi.local;
    call.interleaved =
        hi.interleaved == lo.interleaved ? static_cast<std::uint32_t>(hi.interleaved) : 0;
    calls.push_back(call);
  }
  return calls;
}

}  // namespace harmonize::report
