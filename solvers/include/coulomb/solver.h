// The solver registry (DESIGN.md): one table keyed by the scene's solver name. Each entry
// declares what it supports and which option keys it accepts, and points at one plain solve
// function; the world picks the entry once per run, so inner loops never see a virtual call.
#pragma once
#include <coulomb/contact_operator.h>
#include <coulomb/contact_problem.h>

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace coulomb {

// Options shared by all solvers plus the keys of individual solvers. Which keys a solver
// accepts is listed in its SolverInfo::keys; parse_solver_options rejects the others.
struct SolverOptions {
  int max_iterations = 100;     // sweeps over all contacts
  double abs_tol = 1e-6;        // stop when ||lambda^{k+1} - lambda^k||_inf <= abs_tol (unit: N s)
  double rel_tol = 1e-6;        // ... or <= rel_tol * ||lambda^{k+1}||_inf
  bool warm_start = true;       // start from the previous step's impulses
  int threads = 1;              // worker threads available to the solver
  bool record_history = false;  // fill SolverStats::history (studies; costs a merit per iteration)

  // pgs (seed 001)
  double sor = 1.0;                  // successive over-relaxation factor in (0, 2)
  std::string ordering = "default";  // "default" | "ipp" | "cp" | "esp" | "gsp" (section 5)
  Vec3 cp_axis = Vec3::UnitZ();      // cp: contacts sorted by position along this axis
  bool cp_descending = false;        // cp: from the top of the axis down

  // prox-gs, prox-jacobi (seed 000)
  // default local: on the bundled Wall and Tower it is the strategy that keeps them standing
  // within 100 sweeps (solvers/README.md)
  std::string r_strategy = "local";   // "global" | "local" | "blocked" (section 4.2)
  double r_initial = 1.0;             // global: the initial r, 0 = auto (1 / max_i A_ii);
                                      // local/blocked: a factor on 1/A_ii (default 1)
  double r_nu = 0.9;                  // back-tracking factor (0.5 global/blocked, 0.9 local)

  // xpbd-jacobi (seed 002)
  double omega = 1.0;         // relaxation; Jacobi scales it by 1 / (incident constraints) per block
  bool nesterov = true;       // Nesterov momentum on the Jacobi update (eq. 35)
  bool gauss_seidel = false;  // the sequential variant (omega as given, no momentum)
};

using SolveFn = SolverStats (*)(const ContactProblem&, const SolverOptions&, ContactSolution&);
using SolveAssembledFn = SolverStats (*)(const AssembledProblem&, const SolverOptions&, ContactSolution&);
struct PositionProblem;
// Position-level solvers move the problem's DOFs in place (dynamics/position_problem.h).
using SolvePositionFn = SolverStats (*)(PositionProblem&, const SolverOptions&);

struct SolverInfo {
  std::string name;
  std::string description;
  bool rigid = true, soft = false, joints = false, gpu = false;  // what the solver handles
  std::vector<std::string> keys;  // option keys accepted in the scene's "solver" object
  SolveFn solve = nullptr;        // solution holds the warm start on entry, the result on exit
  SolveAssembledFn solve_assembled = nullptr;  // the same on an assembled A (FCLib problems)
  SolvePositionFn solve_position = nullptr;    // position-level solvers (then solve is null)
};

const std::vector<SolverInfo>& solver_registry();
// nullptr if no solver has that name.
const SolverInfo* find_solver(const std::string& name);
// Names of all registered solvers, comma separated (for error messages and `coulomb info`).
std::string solver_names();
// Parses and validates the "solver" object of a scene (its "type" included). Throws InputError
// naming `pointer` + "/KEY" for unknown keys, wrong types and out-of-range values.
SolverOptions parse_solver_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer);

}  // namespace coulomb
