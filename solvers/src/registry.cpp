// The solver registry: one table of SolverInfo entries. Each entry's parse function lives next
// to its solver (pgs_options.cpp, prox_options.cpp, xpbd_options.cpp) and shares
// option_parsing.h for the common keys.
#include <coulomb/error.h>
#include <coulomb/solver.h>

#include <nlohmann/json.hpp>

namespace coulomb {

SolverStats solve_pgs(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_pgs_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_gs(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_gs_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_jacobi(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_jacobi_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_xpbd(PositionProblem&, const SolverOptions&);
SolverStats solve_newton_pcr(PositionProblem&, const SolverOptions&);
SolverOptions parse_pgs_options(const SolverInfo&, const nlohmann::json&, const std::string&);
SolverOptions parse_prox_options(const SolverInfo&, const nlohmann::json&, const std::string&);
SolverOptions parse_xpbd_options(const SolverInfo&, const nlohmann::json&, const std::string&);
SolverOptions parse_newton_options(const SolverInfo&, const nlohmann::json&, const std::string&);
SolverStats solve_cr_mlcp(PositionProblem&, const SolverOptions&);
SolverOptions parse_cr_mlcp_options(const SolverInfo&, const nlohmann::json&, const std::string&);
SolverStats solve_newton_fb_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_newton_minmap_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverOptions parse_newton_fclib_options(const SolverInfo&, const nlohmann::json&, const std::string&);

const std::vector<SolverInfo>& solver_registry() {
  static const std::vector<SolverInfo> registry = {
      {.name = "prox-gs",
       .description = "PROX Gauss-Seidel with the Coulomb-Contensou ellipsoid and adaptive r-factors (seed 000 algorithm 2)",
       .kind = ProblemKind::Velocity,
       .rigid = true,
       .joints = true,
       .keys = {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "r_factor", "graph_coloring"},
       .parse_options = &parse_prox_options,
       .solve = &solve_prox_gs,
       .solve_assembled = &solve_prox_gs_assembled},
      {.name = "prox-jacobi",
       .description = "PROX Jacobi, parallel over contacts (seed 000 algorithm 1)",
       .kind = ProblemKind::Velocity,
       .rigid = true,
       .joints = true,
       .keys = {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "r_factor"},
       .parse_options = &parse_prox_options,
       .solve = &solve_prox_jacobi,
       .solve_assembled = &solve_prox_jacobi_assembled},
      {.name = "pgs",
       .description = "projected Gauss-Seidel with box friction and warm starting (seed 001 section 4)",
       .kind = ProblemKind::Velocity,
       .rigid = true,
       .joints = true,
       .keys = {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "graph_coloring", "sor", "ordering",
                "cp_axis", "cp_descending"},
       .parse_options = &parse_pgs_options,
       .solve = &solve_pgs,
       .solve_assembled = &solve_pgs_assembled},
      {.name = "xpbd-jacobi",
       .description = "position-level accelerated (Nesterov) Jacobi with compliance for rigid and soft bodies (seed 002)",
       .kind = ProblemKind::Position,
       .rigid = true,
       .soft = true,
       .joints = true,
       .keys = {"type", "max_iterations", "abs_tol", "rel_tol", "record_history", "omega", "nesterov", "gauss_seidel"},
       .parse_options = &parse_xpbd_options,
       .solve_position = &solve_xpbd},
      {.name = "newton-pcr",
       .description = "non-smooth Newton (Fischer-Burmeister or min-map) with PCR on the implicit system of rigid "
                      "bodies, joints, FEM and contacts, CPU or CUDA (seed 003)",
       .kind = ProblemKind::Position,
       .rigid = true,
       .soft = true,
       .joints = true,
       .gpu = true,
       .impulse_tolerance = false,
       .keys = {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "budget", "ncp", "scaling",
                "linear", "linear_iterations", "linear_tol", "step", "epsilon", "geometric_stiffness", "start", "device"},
       .parse_options = &parse_newton_options,
       .solve_position = &solve_newton_pcr},
      {.name = "cr-mlcp",
       .description = "preconditioned conjugate residual on the MLCP of the semi-implicit FEM + rigid system, "
                      "active-set contacts, static/kinetic friction, re-linearisation (seed 004)",
       .kind = ProblemKind::Position,
       .rigid = true,
       .soft = true,
       .joints = true,
       .impulse_tolerance = false,  // abs_tol is eps_2, a gap in metres
       .candidates = true,
       .keys = {"type", "max_iterations", "abs_tol", "rel_tol", "record_history", "preconditioner", "friction",
                "mass_damping", "compression_limit", "duplicate_scaling", "max_relinearizations", "update_normals"},
       .parse_options = &parse_cr_mlcp_options,
       .solve_position = &solve_cr_mlcp},
      // FCLib-only (`coulomb fclib`): no solve function for scenes, so no rigid capability
      {.name = "newton-fb",
       .description = "non-smooth Newton, Fischer-Burmeister (seed 003), on assembled FCLib problems only",
       .kind = ProblemKind::Velocity,
       .rigid = false,
       .keys = {"type", "max_iterations", "abs_tol", "warm_start", "record_history", "damping", "line_search",
                "linear_solver", "friction", "pcr_iterations", "regularization", "stall_iterations", "prox_sweeps"},
       .parse_options = &parse_newton_fclib_options,
       .solve_assembled = &solve_newton_fb_assembled},
      {.name = "newton-minmap",
       .description = "non-smooth Newton, minimum map (seed 003), on assembled FCLib problems only",
       .kind = ProblemKind::Velocity,
       .rigid = false,
       .keys = {"type", "max_iterations", "abs_tol", "warm_start", "record_history", "damping", "line_search",
                "linear_solver", "friction", "pcr_iterations", "regularization", "stall_iterations", "prox_sweeps"},
       .parse_options = &parse_newton_fclib_options,
       .solve_assembled = &solve_newton_minmap_assembled},
  };
  return registry;
}

const SolverInfo* find_solver(const std::string& name) {
  for (const SolverInfo& s : solver_registry())
    if (s.name == name) return &s;
  return nullptr;
}

std::string solver_names() {
  std::string out;
  for (const SolverInfo& s : solver_registry()) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::string solver_names_with(bool SolverInfo::*capability) {
  std::string out;
  for (const SolverInfo& s : solver_registry())
    if (s.*capability) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::string solver_capabilities(const SolverInfo& info) {
  std::string out;
  for (const auto& [has, what] : {std::pair{info.rigid, "rigid"}, std::pair{info.soft, "soft"},
                                  std::pair{info.joints, "joints"}, std::pair{info.gpu, "gpu"}})
    if (has) out += (out.empty() ? "" : " + ") + std::string(what);
  if (out.empty() && info.solve_assembled) out = "fclib only";
  return out;
}

bool simulates_scenes(const SolverInfo& info) {
  switch (info.kind) {
    case ProblemKind::Velocity: return info.solve != nullptr;
    case ProblemKind::Position: return info.solve_position != nullptr;
  }
  return false;
}

void check_simulates_scenes(const SolverInfo& info) {
  if (simulates_scenes(info)) return;
  std::string names;
  for (const SolverInfo& s : solver_registry())
    if (simulates_scenes(s)) names += (names.empty() ? "" : ", ") + s.name;
  throw InputError("/solver/type", "solver '" + info.name +
                                       "' solves assembled FCLib problems only (coulomb fclib), not scenes; use one of " +
                                       names);
}

SolverOptions parse_solver_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  return info.parse_options(info, j, pointer);
}

}  // namespace coulomb
