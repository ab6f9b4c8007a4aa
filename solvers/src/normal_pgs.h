// PGS over packed normal rows (normal_pgs.cpp): the pieces pgs.cpp and the tests call; the
// stats of islands (island_solve.cpp).
#pragma once

#include <coulomb/contact_problem.h>
#include <coulomb/solver.h>

#include <vector>

namespace coulomb::detail {

// solve_pgs's path for a frictionless problem (every mu zero, no joints, the default order, no
// colouring, history or merit: pgs.cpp's frictionless() decides): its normal rows packed and swept
// with solve_normal_pgs's kernel, PgsSolve's arithmetic for row 0.
SolverStats frictionless_pgs(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol);

// solve_normal_pgs's windowed path, for tests: the impulses, responses, stopping test and
// statistics of plain sweeps (normal_sweeps), bit for bit. body_island as solve_normal_pgs's
// islands' (may be null: then the rows say which bodies move).
SolverStats banded_normal_sweeps(const NormalProblem& p, const std::vector<int>* body_island, const SolverOptions& opt,
                                 std::vector<double>& lambda, std::vector<Vec6>& w, int tile, int window);

// The stats of a problem solved island by island (solve_islands, solve_normal_pgs), from the
// islands' in island order: iterations and residual the largest, converged all of them,
// divergence_detections, sweep_ms and contact_sweeps summed, with record_history the history's
// per-iteration maximum (an island that stopped keeps its last value); no merit or time.
SolverStats merge_island_stats(const std::vector<SolverStats>& stats, bool record_history);

}  // namespace coulomb::detail
