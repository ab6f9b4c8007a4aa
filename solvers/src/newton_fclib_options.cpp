// The newton-fb and newton-minmap entries' option keys (seed 003 on assembled local problems;
// registry.cpp lists them): damping, line_search, linear_solver, friction, pcr_iterations,
// regularization, stall_iterations, prox_sweeps, and the common ones but rel_tol (these solvers stop on the FCLib merit alone,
// abs_tol).
#include "option_parsing.h"

namespace coulomb {

SolverOptions parse_newton_fclib_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  NewtonFclibOptions& n = o.newton_fclib;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key == "damping") {
      n.damping = number(v, ptr);
      if (!(n.damping > 0.0 && n.damping <= 1.0)) throw InputError(ptr, "expected a step factor in (0, 1]");
    } else if (key == "line_search") {
      n.line_search = boolean(v, ptr);
    } else if (key == "linear_solver") {
      n.linear_solver = choice<NewtonLinearSolver>(v, ptr);
    } else if (key == "friction") {
      n.friction = choice<NewtonFriction>(v, ptr);
    } else if (key == "pcr_iterations") {
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 100000000)
        throw InputError(ptr, "expected an integer >= 1");
      n.pcr_iterations = v.get<int>();
    } else if (key == "stall_iterations") {
      if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > 1000000)
        throw InputError(ptr, "expected an integer in [0, 1000000] (0: never leave Newton)");
      n.stall_iterations = v.get<int>();
    } else if (key == "prox_sweeps") {
      if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 1000000)
        throw InputError(ptr, "expected an integer in [1, 1000000]");
      n.prox_sweeps = v.get<int>();
    } else if (key == "regularization") {
      n.regularization = number(v, ptr);
      if (!(n.regularization >= 0.0 && n.regularization <= 1e6)) throw InputError(ptr, "expected a number in [0, 1e6]");
    } else {
      return false;
    }
    return true;
  });
  // the cone's Newton matrix is unsymmetric: only the LU factorisation solves it
  if (n.friction == NewtonFriction::Cone && n.linear_solver != NewtonLinearSolver::Lu)
    throw InputError(pointer + "/linear_solver", "\"" + std::string(to_string(n.linear_solver)) +
                                                     "\" needs \"friction\": \"fixed_point\" (the cone's Newton "
                                                     "matrix is unsymmetric; use \"lu\")");
  return o;
}

}  // namespace coulomb
