// Catch2 v2's main, built with the standard library in use.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
