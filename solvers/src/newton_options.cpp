// The newton-pcr entry's option keys (seed 003; registry.cpp lists them): ncp, scaling, linear,
// linear_iterations, linear_tol, step, epsilon, geometric_stiffness, start, device, and the common
// ones but warm_start. Its own defaults for the common keys: 30 Newton iterations, residual 1e-6
// (abs_tol, m/s) and no relative test (rel_tol 0: a scene's rel_tol is relative to the first residual).
#include <coulomb/gpu/schur.h>

#include <cmath>

#include "option_parsing.h"

namespace coulomb {

SolverOptions parse_newton_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  o.max_iterations = 30;
  o.abs_tol = 1e-6;
  o.rel_tol = 0.0;
  o.warm_start = false;
  NewtonOptions& n = o.newton;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key == "ncp") n.ncp = choice<NcpFunction>(v, ptr);
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
      if (!v.is_string() || (v != "zero" && v != "free")) throw InputError(ptr, "expected one of \"zero\", \"free\"");
      n.start_from_free = v == "free";
    } else {
      return false;
    }
    return true;
  });
  return o;
}

}  // namespace coulomb
