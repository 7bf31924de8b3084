// sat_scan.h — the suite's library face for harness code: the SAT library's C++ header
// (lib/include/sat.hpp; the tuned kernel is lib/src/lookback_kernel.cuh, built by `make lib`).
#pragma once

#include "../lib/include/sat.hpp"

