#pragma once
// A communicator's summary as the report tests start from: every barrier
// harmonized, some missed.
#include <cstdint>
#include <string>

#include "report/job_report.hpp"

namespace harmonize::report::testing {

inline CommSummary summary_of(std::string name, int size, std::string kind, std::uint64_t calls,
                              std::uint64_t missed) {
  CommSummary c;
  c.name = std::move(name);
  c.size = size;
  c.kind = std::move(kind);
  c.calls = calls;
  c.harmonized_calls = calls;
  c.missed_calls_any = missed;
  return c;
}

}  // namespace harmonize::report::testing
