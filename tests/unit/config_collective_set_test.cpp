#include <catch2/catch.hpp>

#include "config/collective_set.hpp"

using harmonize::bit_of;
using harmonize::Collective;
using harmonize::kAllCollectives;
using harmonize::kNoCollectives;
using harmonize::config::collective_set_text;
using harmonize::config::parse_collective_set;

TEST_CASE("HARMONIZE_COLLECTIVES names collectives as MPI spells them, or all, or none",
          "[config][collectives]") {
  CHECK(parse_collective_set("all") == kAllCollectives);
  CHECK(parse_collective_set(" none ") == kNoCollectives);
  CHECK(parse_collective_set("allreduce") == bit_of(Collective::allreduce));
  CHECK(parse_collective_set("MPI_Allreduce, bcast,REDUCE_SCATTER_BLOCK") ==
        (bit_of(Collective::allreduce) | bit_of(Collective::bcast) |
         bit_of(Collective::reduce_scatter_block)));
  CHECK_FALSE(parse_collective_set(""));
  CHECK_FALSE(parse_collective_set("allreduse"));
  CHECK_FALSE(parse_collective_set("allreduce,"));
  CHECK(parse_collective_set("MPI_Barrier") == bit_of(Collective::barrier));
  CHECK(parse_collective_set("MPI_Ibarrier,iallreduce") ==
        (bit_of(Collective::ibarrier) | bit_of(Collective::iallreduce)));
  CHECK_FALSE(parse_collective_set("ibcastt"));
  CHECK_FALSE(parse_collective_set("all,bcast"));
}

TEST_CASE("a set of collectives is written in one canonical way", "[config][collectives]") {
  CHECK(collective_set_text(kAllCollectives) == "all");
  CHECK(collective_set_text(kNoCollectives) == "none");
  CHECK(collective_set_text(*parse_collective_set("bcast,MPI_ALLREDUCE,bcast")) ==
        "allreduce,bcast");
}
