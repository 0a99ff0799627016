#pragma once
// A batch system started several tasks, but each MPI_Init found a world of
// one: the launcher's process-management plugin is not the one this MPI
// needs (Slurm: srun --mpi), and every task runs the whole program alone and
// writes a report of its own. MPICH's ranks do this with status 0 under
// `srun --mpi=none`; nothing else in the output tells it from a job.
#include <optional>
#include <string>
#include <string_view>

namespace harmonize::logic {

// The warning for a world of `world_size` in a step of `step_tasks` tasks
// (SLURM_STEP_NUM_TASKS, text; empty when not under srun), nullopt when
// the two agree or the step's size cannot be read. `open_mpi`: the MPI the
// library is built for, which names the plugin it needs.
std::optional<std::string> separate_singletons(int world_size, std::string_view step_tasks,
                                               bool open_mpi);

}  // namespace harmonize::logic
