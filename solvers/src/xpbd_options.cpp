// The xpbd-jacobi entry's option keys (seed 002; registry.cpp lists them): omega, nesterov,
// gauss_seidel, and the common ones but warm_start (no warm start at position level).
#include "option_parsing.h"

namespace coulomb {

SolverOptions parse_xpbd_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  XpbdOptions& xpbd = o.xpbd;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key == "omega") xpbd.omega = relaxation_factor(v, ptr);
    else if (key == "nesterov") xpbd.nesterov = boolean(v, ptr);
    else if (key == "gauss_seidel") xpbd.gauss_seidel = boolean(v, ptr);
    else return false;
    return true;
  });
  return o;
}

}  // namespace coulomb
