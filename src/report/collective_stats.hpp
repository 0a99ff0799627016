#pragma once
// What the library measured of the collective calls of one communicator, per
// key (operation, bytes per process, root): every call matched across the
// members on the global clock (docs/collectives.md).
#include <compare>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "report/distribution.hpp"

namespace harmonize::report {

struct CollectiveKey {
  int operation = 0;        // index into kCollectiveNames
  std::uint64_t bytes = 0;  // count x type size, the largest of the members'
  int root = -1;            // -1: not a rooted operation
  friend auto operator<=>(const CollectiveKey&, const CollectiveKey&) = default;
};

// One matched call, as the members' stamps on the global clock show it.
struct MatchedCall {
  CollectiveKey key;
  double arrival_skew = 0;       // max(entry) - min(entry)
  double t_global = 0;           // max(exit) - min(entry) (paper 002, eq. 4)
  double t_all_present = 0;      // max(exit) - max(entry)
  double clock_error_bound = 0;  // the largest of the members' at their exits
  // max(entry - d) - min(entry - d), d each member's delay after the
  // barrier (HARMONIZE_ARRIVAL): how far the arrivals were from the pattern
  // the barrier imposed (the arrival skew when it imposed none).
  double arrival_error = 0;
  double local_max = 0;  // the longest member's own time in the call (IMB's t_max)
  // Preceded by a harmonized barrier every member left in time, with no
  // other collective in between (paper 000, Listing 1).
  bool valid = false;
  // HARMONIZE_INTERLEAVE: the tag of the barrier before it, the same on
  // every member (TimedCall::interleaved); 0 when none or they differ.
  std::uint32_t interleaved = 0;
};

struct CollectiveStats {
  CollectiveKey key;
  std::uint64_t calls = 0;
  std::uint64_t valid_calls = 0;
  double clock_error_bound = 0;  // the largest over the calls
  // Across members, rank 0 of the communicator only.
  Distribution arrival_skew;
  Distribution t_global;
  Distribution t_all_present;
  Distribution valid_arrival_skew;
  Distribution valid_arrival_error;
  Distribution valid_t_global;
  // Each member's own time in the call (what OSU averages), every member.
  Distribution local;
  Distribution valid_local;
  // Non-blocking collectives, every member: the time between the start
  // call's return and the completing call's entry (the program's work that
  // the collective may overlap; OSU's overlap figure).
  Distribution overlap;
  Distribution valid_overlap;
  // The same calls in their two populations (common/overlap_population.hpp):
  // the program worked between start and completion, or waited at once.
  Distribution overlap_worked;
  Distribution overlap_waited;

  friend bool operator==(const CollectiveStats&, const CollectiveStats&) = default;
};

// The keys of a communicator, bounded: a call whose key would exceed the
// bound is counted, not kept.
class CollectiveTable {
 public:
  static constexpr std::size_t kMaxKeys = 64;

  // Counts a matched call (the cross-member figures: rank 0 of the
  // communicator) and, on every member, its own time in the call.
  void add_matched(const MatchedCall& call);
  // `overlap`: a non-blocking call's (CollectiveStats::overlap), else none.
  void add_local(const CollectiveKey& key, bool valid, double seconds,
                 std::optional<double> overlap = std::nullopt);
  // Merges another member's or communicator's table (by key).
  void merge(const CollectiveTable& other);

  const std::vector<CollectiveStats>& keys() const { return keys_; }
  std::uint64_t calls_over_key_limit() const { return over_limit_; }
  std::uint64_t& calls_over_key_limit() { return over_limit_; }

  void append_to(std::vector<double>& out) const;
  static std::optional<CollectiveTable> read_from(std::span<const double> in, std::size_t& offset);

  friend bool operator==(const CollectiveTable&, const CollectiveTable&) = default;

 private:
  CollectiveStats* find_or_add(const CollectiveKey& key);

  std::vector<CollectiveStats> keys_;  // sorted by key
  std::uint64_t over_limit_ = 0;
};

// One call on the matching's wire: every member writes its stamps, and the
// members reduce them element-wise, once to the largest (CallMaxima, to
// every member) and once to the smallest (CallMinima, to rank 0).
struct CallMaxima {
  double operation = 0;  // as the key's: a mismatch between members ends the batch
  double bytes = 0;
  double root = 0;
  double entry = 0;
  double exit = 0;
  double invalid = 0;            // 1: not after a barrier harmonized in time
  double clock_error_bound = 0;  // at the exit
  double undelayed_entry = 0;    // entry less the arrival pattern's delay
  // 1: not complete on this member (a non-blocking call freed, cancelled or
  // still open; collectives/collective_timer.hpp): not matched on any.
  double incomplete = 0;
  double local = 0;        // this member's exit - entry
  double interleaved = 0;  // TimedCall::interleaved
  static constexpr std::size_t kFields = 11;
  void write(double* out) const;
  static CallMaxima read(const double* in);
};
struct CallMinima {
  double operation = 0;
  double entry = 0;
  double undelayed_entry = 0;
  double interleaved = 0;  // with the maxima's: whether every member had the same tag
  static constexpr std::size_t kFields = 4;
  void write(double* out) const;
  static CallMinima read(const double* in);
};

// The cross-member figures of `n` calls from the members' reduced stamps,
// `maxima` and `minima` holding n calls each. A call whose operation differs
// between members (a program whose members called different collectives)
// ends the batch: the calls before it are returned, `mismatched` says so.
// A call incomplete on some member is left out.
std::vector<MatchedCall> match_calls(std::span<const double> maxima, std::span<const double> minima,
                                     std::size_t n, bool& mismatched);

}  // namespace harmonize::report
