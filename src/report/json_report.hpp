#pragma once
// The JSON form of a JobReport; schema in docs/report.md.

#include <nlohmann/json.hpp>

#include "report/job_report.hpp"

namespace harmonize::report {

// {"count","mean","min","p50","p90","p99","max"}, seconds.
nlohmann::json to_json(const Distribution& distribution);
nlohmann::json to_json(const CommSummary& summary);
nlohmann::json to_json(const JobReport& report);

// The JSON text as written to the report file (2-space indent, final newline).
std::string render_report(const JobReport& report);

}  // namespace harmonize::report
