#pragma once
// The one line rank 0 prints on stderr at MPI_Finalize.

#include <string>

#include "report/job_report.hpp"

namespace harmonize::report {

// "harmonize: mode=harmonize 2 ranks 1 node sync=h2hca | MPI_COMM_WORLD: 1000
// barriers, 3 missed (0.3%), exit skew p50 42 ns p99 130 ns, 2 resyncs |
// report harmonize-1234.json" (one line, no trailing newline). The busiest
// communicator is shown (MPI_COMM_WORLD on ties), the others are summed up.
std::string summary_line(const JobReport& report);

}  // namespace harmonize::report
