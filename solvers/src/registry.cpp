// The solver registry: one table of SolverInfo entries and the option parser shared by all.
#include <coulomb/error.h>
#include <coulomb/solver.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace coulomb {

SolverStats solve_pgs(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_pgs_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);

const std::vector<SolverInfo>& solver_registry() {
  static const std::vector<SolverInfo> registry = {
      {"pgs", "projected Gauss-Seidel with box friction and warm starting (seed 001 section 4)",
       /*rigid*/ true, /*soft*/ false, /*joints*/ false, /*gpu*/ false,
       {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "sor", "ordering"}, &solve_pgs, &solve_pgs_assembled},
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

namespace {

double number(const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_number()) throw InputError(ptr, "expected a number");
  return v.get<double>();
}

int positive_int(const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 100000000)
    throw InputError(ptr, "expected an integer >= 1");
  return v.get<int>();
}

}  // namespace

SolverOptions parse_solver_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  if (!j.is_object()) throw InputError(pointer, "expected an object");
  SolverOptions o;
  for (const auto& [key, v] : j.items()) {
    const std::string ptr = pointer + "/" + key;
    if (std::find(info.keys.begin(), info.keys.end(), key) == info.keys.end())
      throw InputError(ptr, "unknown key for solver '" + info.name + "'");
    if (key == "type") {
      if (!v.is_string() || v.get<std::string>() != info.name) throw InputError(ptr, "expected \"" + info.name + "\"");
    } else if (key == "max_iterations") {
      o.max_iterations = positive_int(v, ptr);
    } else if (key == "abs_tol" || key == "rel_tol") {
      double x = number(v, ptr);
      if (!(x >= 0.0)) throw InputError(ptr, "expected a number >= 0");
      (key == "abs_tol" ? o.abs_tol : o.rel_tol) = x;
    } else if (key == "warm_start") {
      if (!v.is_boolean()) throw InputError(ptr, "expected true or false");
      o.warm_start = v.get<bool>();
    } else if (key == "sor") {
      double x = number(v, ptr);
      if (!(x > 0.0 && x < 2.0)) throw InputError(ptr, "expected a relaxation factor in (0, 2)");
      o.sor = x;
    } else if (key == "ordering") {
      // seed 001 section 5 orderings arrive with the PGS heuristics; this build has one.
      if (!v.is_string() || v.get<std::string>() != "default")
        throw InputError(ptr, "unsupported ordering (this build supports: \"default\")");
      o.ordering = v.get<std::string>();
    }
  }
  return o;
}

}  // namespace coulomb
