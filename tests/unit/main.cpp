// The one Catch2 main of the unit-test executable (Catch2 v2, Debian's catch2).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
