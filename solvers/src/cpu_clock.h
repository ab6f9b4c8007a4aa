// CPU time of the whole process (all threads), for SolverStats::sweep_ms: the work a sweep costs,
// which on a shared machine, unlike the wall time, does not grow while the process waits for a
// core. Private to solvers/src.
#pragma once
#include <ctime>

namespace coulomb::detail {

inline double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e3 * double(t.tv_sec) + 1e-6 * double(t.tv_nsec);
}

}  // namespace coulomb::detail
