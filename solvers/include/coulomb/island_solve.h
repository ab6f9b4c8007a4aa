// Solving the contact problem island by island (DESIGN.md stage 4 with islands.h).
//
// The contacts of different islands share no moving body, so the global problem is block
// diagonal and each island's block is a problem of its own. solve_islands splits the problem
// (plain data in, plain data out), solves the islands with tbb::parallel_for in the caller's
// task arena (the World's, sized by its thread count) and scatters the impulses back in the
// global contact order. Each island is solved on one thread by the same deterministic solver,
// so the result does not depend on the number of threads. It is not bit-identical to one
// global solve: stopping tests and PROX's r back-tracking act per island (an island stops as
// soon as it has converged, instead of running as long as the slowest one).
#pragma once
#include <coulomb/contact_problem.h>
#include <coulomb/islands.h>
#include <coulomb/solver.h>

namespace coulomb {

// The problem of island `island`: its contacts in global order, its bodies (moving ones and
// the fixed ones it touches) renumbered 0.. in ascending global order. `global` must be
// finalized; the derived blocks are copied, not recomputed.
void extract_island_problem(const ContactProblem& global, const Islands& islands, int island, ContactProblem& out);

// Sub-problems kept from one call to the next, so that the large islands' copies reuse their
// memory instead of allocating (and page-faulting) a copy of most of the problem every step.
// The content of a reused sub-problem is rebuilt in full, so results do not depend on it.
struct IslandScratch {
  std::vector<ContactProblem> problems;  // one per large island, in island order
  std::vector<ContactSolution> parts;
};

// Solves every island with `solve`, as plan_islands (sweep_plan.h) says. `solution` holds the
// warm start (global order) on entry and the impulses on exit. Islands get opt.threads = 1,
// except the plan's threads_island (its solver may then use its inner threads, deterministic too).
// Stats: iterations, residual = the largest over islands, converged = all of them,
// divergence_detections summed, merit = the FCLib merit of the whole solution, history = the
// per-iteration maximum over islands (an island that stopped keeps its last value).
// `scratch` (optional) keeps the plan's kept islands between calls. A problem the plan solves
// whole is solved as `solve` alone solves it (with opt.graph_coloring, as one coloured problem).
SolverStats solve_islands(SolveFn solve, const ContactProblem& problem, const Islands& islands,
                          const SolverOptions& opt, ContactSolution& solution, IslandScratch* scratch = nullptr);

// PGS on a frictionless problem in packed normal rows (post-stabilisation's gap problem,
// contact_problem.h NormalProblem; pgs.cpp): pgs's sweep of the normal row (seed 001 eq. 16-18,
// opt.pgs.sor) with its stopping test (opt.abs_tol, opt.rel_tol, opt.max_iterations), cold or
// warm-started from `lambda` (opt.warm_start; one impulse per contact, projected onto lambda >= 0).
// With `islands` (built over p.body_a, p.body_b), island by island in parallel as solve_islands
// does, in place: no island is copied, each sweeps its contacts in global order and stops on its
// own test; the islands' shared bodies must have no inverse mass in p (std::invalid_argument
// otherwise), so that no two islands write one body. Without `islands`, or where plan_islands
// says whole, the problem is swept whole (windowed where plan_sweep says). The same bits on any
// thread count.
// Stats as solve_islands' (iterations the largest, residual the largest Theta, no merit: NaN).
// `response`, when given, receives M^-1 J_n^T lambda per body as the sweeps kept it (what
// NormalProblem::body_impulse_response forms again, rounded in the sweeps' order).
SolverStats solve_normal_pgs(const NormalProblem& p, const Islands* islands, const SolverOptions& opt,
                             std::vector<double>& lambda, std::vector<Vec6>* response = nullptr);

}  // namespace coulomb
