// The Catch2 main of tritium_unit_tests; each tests/unit/test_*.cpp adds its cases.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
