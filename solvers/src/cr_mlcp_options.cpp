// The cr-mlcp entry's option keys (seed 004; registry.cpp lists them): preconditioner, friction,
// mass_damping, compression_limit, duplicate_scaling, max_relinearizations, and the common ones
// but warm_start (each step starts from the prediction, Algorithm 1 line 7). Its own defaults for
// the common keys: 2000 CR iterations per step, eps_2 = abs_tol = 1e-5 m, eps_1 = rel_tol = 1e-6.
#include <cmath>

#include "option_parsing.h"

namespace coulomb {

SolverOptions parse_cr_mlcp_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  o.max_iterations = 2000;
  o.abs_tol = 1e-5;
  o.rel_tol = 1e-6;
  o.warm_start = false;
  CrMlcpOptions& cr = o.cr;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key == "preconditioner") cr.preconditioner = choice<CrPreconditioner>(v, ptr);
    else if (key == "friction") cr.friction = boolean(v, ptr);
    else if (key == "duplicate_scaling") cr.duplicate_scaling = boolean(v, ptr);
    else if (key == "update_normals") cr.update_normals = boolean(v, ptr);
    else if (key == "mass_damping") {
      cr.mass_damping = number(v, ptr);
      if (!(cr.mass_damping >= 0.0 && cr.mass_damping <= 1e6)) throw InputError(ptr, "expected a number in [0, 1e6] (unit: 1/s)");
    } else if (key == "compression_limit") {
      cr.compression_limit = number(v, ptr);
      if (!(cr.compression_limit > 0.0 && cr.compression_limit <= 1.0)) throw InputError(ptr, "expected a principal stretch in (0, 1]");
    } else if (key == "max_relinearizations") {
      const double x = number(v, ptr);
      if (!(x >= 0.0 && x <= 1000.0 && x == std::floor(x))) throw InputError(ptr, "expected an integer in [0, 1000]");
      cr.max_relinearizations = int(x);
    } else {
      return false;
    }
    return true;
  });
  return o;
}

}  // namespace coulomb
