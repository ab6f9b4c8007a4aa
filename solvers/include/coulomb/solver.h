// The solver registry (DESIGN.md): one table keyed by the scene's solver name. Each entry says
// which problem the solver solves (ProblemKind), what it supports, which option keys it accepts
// and how it parses them, and points at plain solve functions; the world picks the entry once
// per run and its stage list with one switch on the kind, so inner loops never see a virtual call.
#pragma once
#include <coulomb/contact_operator.h>
#include <coulomb/contact_problem.h>
#include <coulomb/solver_options.h>

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

namespace coulomb {

// The problem a solver solves; it decides the World's stage list (engine/src/world.cpp) and
// which solve function of SolverInfo is set.
enum class ProblemKind {
  Velocity,  // a ContactProblem, impulses from v = A lambda + b (solve, solve_assembled): pgs, prox-*
  Position,  // a PositionProblem, its DOFs moved in place (solve_position): xpbd-jacobi,
             // newton-pcr (seed 003: the same implicit-Euler unknowns, solved as one Newton system)
             // and cr-mlcp (seed 004: the semi-implicit FEM system as an MLCP, solved by CR)
};
template <>
struct EnumNames<ProblemKind> {
  static constexpr std::array<std::string_view, 2> names{"velocity", "position"};
};

using SolveFn = SolverStats (*)(const ContactProblem&, const SolverOptions&, ContactSolution&);
using SolveAssembledFn = SolverStats (*)(const AssembledProblem&, const SolverOptions&, ContactSolution&);
struct PositionProblem;
// Position-level solvers move the problem's DOFs in place (dynamics/position_problem.h).
using SolvePositionFn = SolverStats (*)(PositionProblem&, const SolverOptions&);
struct SolverInfo;
// Parses the scene's "solver" object (its "type" included) into the common keys and the solver's
// own part of SolverOptions. Throws InputError naming `pointer` + "/KEY".
using ParseOptionsFn = SolverOptions (*)(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer);

struct SolverInfo {
  std::string name;
  std::string description;
  ProblemKind kind = ProblemKind::Velocity;
  // what the solver handles; `joints` includes their limits and drives, bounded ones
  // (RowKind::Actuator) too
  bool rigid = true, soft = false, joints = false, gpu = false;
  // abs_tol is an impulse (N s): the World tightens it to the lightest body's weight over a step
  // (engine/src/world.cpp). False where it bounds another quantity (newton-pcr: a residual in m/s).
  bool impulse_tolerance = true;
  // Position: the World builds seed 004's candidate lists each step and hands the solver
  // PositionProblem::find_new_contacts (cr-mlcp)
  bool candidates = false;
  std::vector<std::string> keys;          // option keys accepted in the scene's "solver" object
  ParseOptionsFn parse_options = nullptr;  // reads those keys (the solver's *_options.cpp)
  // The solve functions of its kind; the others are null.
  SolveFn solve = nullptr;                     // Velocity: solution holds the warm start on entry, the result on exit
  SolveAssembledFn solve_assembled = nullptr;  // Velocity, optional: the same on an assembled A (FCLib problems)
  SolvePositionFn solve_position = nullptr;    // Position
};

const std::vector<SolverInfo>& solver_registry();
// nullptr if no solver has that name.
const SolverInfo* find_solver(const std::string& name);
// Names of all registered solvers, comma separated (for error messages and `coulomb info`).
std::string solver_names();
// Names of the solvers with a capability, e.g. solver_names_with(&SolverInfo::soft).
std::string solver_names_with(bool SolverInfo::*capability);
// "rigid + soft": the capabilities of a solver, joined (for `coulomb info`); "fclib only" for a
// solver that solves assembled problems alone (newton-fb, newton-minmap).
std::string solver_capabilities(const SolverInfo& info);
// Whether the World can run the solver on a scene: it has the solve function of its kind (an
// FCLib-only solver has just solve_assembled). check_simulates_scenes throws InputError at
// /solver/type, naming the solvers that can, when it cannot.
bool simulates_scenes(const SolverInfo& info);
void check_simulates_scenes(const SolverInfo& info);
// Parses and validates the "solver" object of a scene with the entry's own parse function.
// Throws InputError naming `pointer` + "/KEY" for unknown keys, wrong types and out-of-range values.
SolverOptions parse_solver_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer);

}  // namespace coulomb
