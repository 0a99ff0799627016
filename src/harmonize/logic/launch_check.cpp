#include "harmonize/logic/launch_check.hpp"

#include <charconv>

namespace harmonize::logic {

std::optional<std::string> separate_singletons(int world_size, std::string_view step_tasks,
                                               bool open_mpi) {
  long tasks = 0;
  const char* end = step_tasks.data() + step_tasks.size();
  const auto [stop, error] = std::from_chars(step_tasks.data(), end, tasks);
  if (step_tasks.empty() || error != std::errc{} || stop != end) return std::nullopt;
  if (world_size != 1 || tasks <= 1) return std::nullopt;
  const std::string count = std::to_string(tasks);
  return "srun started " + count +
         " tasks but MPI_COMM_WORLD holds 1 process: each task runs the program alone "
         "and writes its own report (" +
         count + " singletons, not one job of " + count + "); " +
         (open_mpi ? "Open MPI needs srun --mpi=pmix" : "MPICH needs srun --mpi=pmi2") +
         " (harmonize-run adds it when the site's default is none)";
}

}  // namespace harmonize::logic
