// The newton-pcr entry's option keys (seed 003; registry.cpp lists them): budget, ncp, scaling,
// linear, linear_iterations, linear_tol, step, epsilon, geometric_stiffness, start, device, and the
// common ones. Its own defaults for the common keys: the budget's Newton iterations (fixed 20,
// tolerance 30: NewtonOptions), residual 1e-6 (abs_tol, m/s), no relative test (rel_tol 0: a
// scene's rel_tol is relative to the first residual) and a warm start.
#include <coulomb/gpu/schur.h>

#include <cmath>

#include "option_parsing.h"

namespace coulomb {

SolverOptions parse_newton_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  NewtonOptions& n = o.newton;
  // the budget first: it sets the defaults of max_iterations and linear_iterations, which the
  // scene's own values then replace
  if (j.is_object() && j.contains("budget")) n.budget = choice<NewtonBudget>(j["budget"], pointer + "/budget");
  o.max_iterations = NewtonOptions::default_newton_iterations(n.budget);
  n.linear_iterations = NewtonOptions::default_linear_iterations(n.budget);
  o.abs_tol = 1e-6;
  o.rel_tol = 0.0;
  o.warm_start = true;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key == "budget") n.budget = choice<NewtonBudget>(v, ptr);
    else if (key == "ncp") n.ncp = choice<NcpFunction>(v, ptr);
    else if (key == "scaling") n.scaling = choice<NcpScaling>(v, ptr);
    else if (key == "linear") n.linear = choice<NewtonLinear>(v, ptr);
    else if (key == "device") {
      n.device = choice<ComputeDevice>(v, ptr);
      if (n.device == ComputeDevice::Cuda && !gpu::cuda_available())
        throw InputError(ptr, "\"cuda\" needs a CUDA build and a visible GPU (use \"auto\" or \"cpu\")");
    }
    else if (key == "geometric_stiffness") n.geometric_stiffness = boolean(v, ptr);
    else if (key == "linear_iterations") {
      const double x = number(v, ptr);
      if (!(x >= 1.0 && x <= 1e6 && x == std::floor(x))) throw InputError(ptr, "expected an integer in [1, 1000000]");
      n.linear_iterations = int(x);
    } else if (key == "linear_tol") {
      n.linear_tol = number(v, ptr);
      if (!(n.linear_tol >= 0.0 && n.linear_tol < 1.0)) throw InputError(ptr, "expected a number in [0, 1)");
    } else if (key == "step") {
      n.step = number(v, ptr);
      if (!(n.step > 0.0 && n.step <= 1.0)) throw InputError(ptr, "expected a damped Newton step in (0, 1]");
    } else if (key == "epsilon") {
      n.epsilon = number(v, ptr);
      if (!(n.epsilon >= 0.0 && n.epsilon <= 1.0)) throw InputError(ptr, "expected a number in [0, 1]");
    } else if (key == "start") {
      n.start = choice<NewtonStart>(v, ptr);
    } else {
      return false;
    }
    return true;
  });
  return o;
}

}  // namespace coulomb
