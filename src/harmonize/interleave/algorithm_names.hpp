#pragma once
// Which algorithm a side's ALLREDUCE=... names, checked against what the MPI
// itself says it has (pure; the MPI is asked in mpi/algorithm_switch).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harmonize::interleave {

// The choices of an MPICH MPIR_CVAR_<OP>_INTRA_ALGORITHM, in value order,
// from its MPI_T description: "Variable to select <op> algorithm" then one
// "choice - text" line each, the lines joined without a separator
// ("...algorithmauto - Internal ... JSON_FILE)nb      - Force nonblocking
// algorithmsmp     - Force smp algorithm..."). After "auto", MPICH pads every
// choice to one width, which the first of them gives whole (it follows
// "JSON_FILE)"). Empty when the text does not read that way. The same rule
// as harmonize-tune's (python/harmonize_tools/tune/algorithms.py).
std::vector<std::string> mpich_algorithm_choices(std::string_view description);

// The value of `choice` (a name among `names`, or its position written as a
// number); nullopt when it names none of them.
std::optional<int> algorithm_value(std::string_view choice, const std::vector<std::string>& names);

}  // namespace harmonize::interleave
