// The prox-gs and prox-jacobi entries' option keys (seed 000; registry.cpp lists them):
// r_factor, and the common ones.
#include "option_parsing.h"

namespace coulomb {

namespace {

// {"strategy": "global"|"local"|"blocked", "initial": r | "auto", "nu": back-tracking} (seed 000
// s.4.2); what is not given takes the strategy's defaults (ProxOptions::for_strategy)
ProxOptions parse_r_factor(const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  if (!j.is_object()) throw InputError(pointer, "expected an object");
  RStrategy strategy = ProxOptions{}.strategy;
  std::optional<double> initial, nu;  // initial: 0 = auto
  for (const auto& [key, v] : j.items()) {
    const std::string ptr = pointer + "/" + key;
    if (key == "strategy") {
      strategy = choice<RStrategy>(v, ptr);
    } else if (key == "initial") {
      if (v.is_string() && v.get<std::string>() == "auto") {
        initial = 0.0;
      } else {
        initial = number(v, ptr);
        if (!(*initial > 0.0)) throw InputError(ptr, "expected a number > 0 or \"auto\"");
      }
    } else if (key == "nu") {
      nu = number(v, ptr);
      if (!(*nu > 0.0 && *nu < 1.0)) throw InputError(ptr, "expected a back-tracking factor in (0, 1)");
    } else {
      throw InputError(ptr, "unknown key (known keys: strategy, initial, nu)");
    }
  }
  ProxOptions o = ProxOptions::for_strategy(strategy);
  // auto: global r = 1 / max_i A_ii (0 here, resolved by the solver); local/blocked 1 / A_ii itself
  if (initial && (*initial > 0.0 || strategy == RStrategy::Global)) o.r_initial = *initial;
  if (nu) o.r_nu = *nu;
  return o;
}

}  // namespace

SolverOptions parse_prox_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key != "r_factor") return false;
    o.prox = parse_r_factor(v, ptr);
    return true;
  });
  return o;
}

}  // namespace coulomb
