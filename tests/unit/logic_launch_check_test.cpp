#include <catch2/catch.hpp>

#include "harmonize/logic/launch_check.hpp"

using harmonize::logic::separate_singletons;

TEST_CASE("A world of one in a step of several tasks is a launch gone wrong") {
  const auto mpich = separate_singletons(1, "2", false);
  REQUIRE(mpich.has_value());
  CHECK(*mpich ==
        "srun started 2 tasks but MPI_COMM_WORLD holds 1 process: each task runs the program "
        "alone and writes its own report (2 singletons, not one job of 2); MPICH needs srun "
        "--mpi=pmi2 (harmonize-run adds it when the site's default is none)");
  const auto open_mpi = separate_singletons(1, "16", true);
  REQUIRE(open_mpi.has_value());
  CHECK(open_mpi->find("16 singletons") != std::string::npos);
  CHECK(open_mpi->find("Open MPI needs srun --mpi=pmix") != std::string::npos);
}

TEST_CASE("A world that matches its step, or no step, says nothing") {
  CHECK_FALSE(separate_singletons(2, "2", false));
  CHECK_FALSE(separate_singletons(1, "1", true));  // a one-task step is a singleton by design
  CHECK_FALSE(separate_singletons(1, "", true));   // not under srun
  CHECK_FALSE(separate_singletons(4, "2", true));  // a world larger than the step: MPI_Comm_spawn
}

TEST_CASE("A step size that is not a number says nothing") {
  CHECK_FALSE(separate_singletons(1, "two", false));
  CHECK_FALSE(separate_singletons(1, "2x", false));
  CHECK_FALSE(separate_singletons(1, "-3", false));
}
