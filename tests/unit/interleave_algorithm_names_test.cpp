// An MPICH algorithm CVAR's choices read from its MPI_T description, and a
// side's choice checked against them (harmonize/interleave/algorithm_names.hpp).
// The descriptions are MPICH 4.0.2's, as MPI_T_cvar_get_info returns them.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "harmonize/interleave/algorithm_names.hpp"

using namespace harmonize::interleave;

namespace {

const std::string kAllreduce =
    "Variable to select allreduce algorithmauto - Internal algorithm selection (can be overridden "
    "with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb                       - Force nonblocking "
    "algorithmsmp                      - Force smp algorithmrecursive_doubling       - Force "
    "recursive doubling algorithmreduce_scatter_allgather - Force reduce scatter allgather "
    "algorithm";

const std::string kBcast =
    "Variable to select bcast algorithmauto - Internal algorithm selection (can be overridden with "
    "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)binomial                                - Force "
    "Binomial Treenb                                      - Force nonblocking algorithmsmp       "
    "                              - Force smp algorithmscatter_recursive_doubling_allgather    - "
    "Force Scatter Recursive-Doubling Allgatherscatter_ring_allgather                  - Force "
    "Scatter Ring";

}  // namespace

TEST_CASE("MPICH's joined description gives its choices in value order", "[interleave]") {
  CHECK(mpich_algorithm_choices(kAllreduce) ==
        std::vector<std::string>{"auto", "nb", "smp", "recursive_doubling",
                                 "reduce_scatter_allgather"});
  CHECK(mpich_algorithm_choices(kBcast) ==
        std::vector<std::string>{"auto", "binomial", "nb", "smp",
                                 "scatter_recursive_doubling_allgather", "scatter_ring_allgather"});
}

TEST_CASE("a description that does not read that way gives nothing, never a guess",
          "[interleave]") {
  // No padded choice after "JSON_FILE)": the width is unknown.
  CHECK(mpich_algorithm_choices(
            "Variable to select x algorithmauto - Internal selectionnb - Force nonblocking")
            .empty());
  CHECK(mpich_algorithm_choices("Which allreduce algorithm is used. 0 ignore, 1 basic").empty());
  CHECK(mpich_algorithm_choices("").empty());
  // A padding wider than the width the first choice gives.
  CHECK(mpich_algorithm_choices("Variable to select x algorithmauto - a (b)nb   - c"
                                "smp        - d")
            .empty());
}

TEST_CASE("a side's choice is a listed name or its position", "[interleave]") {
  const std::vector<std::string> names = mpich_algorithm_choices(kAllreduce);
  CHECK(algorithm_value("recursive_doubling", names) == 3);
  CHECK(algorithm_value("auto", names) == 0);
  CHECK(algorithm_value("4", names) == 4);
  // MPICH asserts in the next MPI_Allreduce on a value past its list.
  CHECK_FALSE(algorithm_value("5", names));
  CHECK_FALSE(algorithm_value("-1", names));
  CHECK_FALSE(algorithm_value("3x", names));
  CHECK_FALSE(algorithm_value("ring", names));
  CHECK_FALSE(algorithm_value("0", {}));
}
