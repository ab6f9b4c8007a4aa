// The solver registry: one table of SolverInfo entries and the option parser shared by all.
#include <coulomb/error.h>
#include <coulomb/solver.h>

#include <algorithm>
#include <initializer_list>
#include <nlohmann/json.hpp>

namespace coulomb {

SolverStats solve_pgs(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_pgs_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_gs(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_gs_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_jacobi(const ContactProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_prox_jacobi_assembled(const AssembledProblem&, const SolverOptions&, ContactSolution&);
SolverStats solve_xpbd(PositionProblem&, const SolverOptions&);

const std::vector<SolverInfo>& solver_registry() {
  static const std::vector<SolverInfo> registry = {
      {"prox-gs", "PROX Gauss-Seidel with the Coulomb-Contensou ellipsoid and adaptive r-factors (seed 000 algorithm 2)",
       /*rigid*/ true, /*soft*/ false, /*joints*/ true, /*gpu*/ false,
       {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "r_factor"},
       &solve_prox_gs, &solve_prox_gs_assembled},
      {"prox-jacobi", "PROX Jacobi, parallel over contacts (seed 000 algorithm 1)",
       /*rigid*/ true, /*soft*/ false, /*joints*/ true, /*gpu*/ false,
       {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "r_factor"},
       &solve_prox_jacobi, &solve_prox_jacobi_assembled},
      {"pgs", "projected Gauss-Seidel with box friction and warm starting (seed 001 section 4)",
       /*rigid*/ true, /*soft*/ false, /*joints*/ true, /*gpu*/ false,
       {"type", "max_iterations", "abs_tol", "rel_tol", "warm_start", "record_history", "sor", "ordering", "cp_axis",
        "cp_descending"},
       &solve_pgs, &solve_pgs_assembled},
      {"xpbd-jacobi",
       "position-level accelerated (Nesterov) Jacobi with compliance for rigid and soft bodies (seed 002)",
       /*rigid*/ true, /*soft*/ true, /*joints*/ true, /*gpu*/ false,
       {"type", "max_iterations", "abs_tol", "rel_tol", "record_history", "omega", "nesterov", "gauss_seidel"},
       nullptr, nullptr, &solve_xpbd},
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

std::string one_of(const nlohmann::json& v, const std::string& ptr, std::initializer_list<const char*> names) {
  std::string list;
  for (const char* n : names) {
    if (v.is_string() && v.get<std::string>() == n) return n;
    list += std::string(list.empty() ? "" : ", ") + "\"" + n + "\"";
  }
  throw InputError(ptr, "expected one of " + list);
}

// {"strategy": "global"|"local"|"blocked", "initial": r, "nu": back-tracking} (seed 000 s.4.2)
void parse_r_factor(const nlohmann::json& j, const std::string& pointer, SolverOptions& o) {
  if (!j.is_object()) throw InputError(pointer, "expected an object");
  bool nu_given = false;
  o.r_initial = 0.0;  // auto unless given
  for (const auto& [key, v] : j.items()) {
    const std::string ptr = pointer + "/" + key;
    if (key == "strategy") {
      o.r_strategy = one_of(v, ptr, {"global", "local", "blocked"});
    } else if (key == "initial") {
      if (v.is_string() && v.get<std::string>() == "auto") {
        o.r_initial = 0.0;
      } else {
        o.r_initial = number(v, ptr);
        if (!(o.r_initial > 0.0)) throw InputError(ptr, "expected a number > 0 or \"auto\"");
      }
    } else if (key == "nu") {
      o.r_nu = number(v, ptr);
      nu_given = true;
      if (!(o.r_nu > 0.0 && o.r_nu < 1.0)) throw InputError(ptr, "expected a back-tracking factor in (0, 1)");
    } else {
      throw InputError(ptr, "unknown key (known keys: strategy, initial, nu)");
    }
  }
  // the paper's values: nu = 0.5 for global and blocked, 0.9 for local; local/blocked scale 1/A_ii by 1
  if (!nu_given) o.r_nu = o.r_strategy == "local" ? 0.9 : 0.5;
  if (o.r_strategy != "global" && o.r_initial == 0.0) o.r_initial = 1.0;  // auto: 1 / A_ii itself
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
    } else if (key == "record_history") {
      if (!v.is_boolean()) throw InputError(ptr, "expected true or false");
      o.record_history = v.get<bool>();
    } else if (key == "sor") {
      double x = number(v, ptr);
      if (!(x > 0.0 && x < 2.0)) throw InputError(ptr, "expected a relaxation factor in (0, 2)");
      o.sor = x;
    } else if (key == "ordering") {
      o.ordering = one_of(v, ptr, {"default", "ipp", "cp", "esp", "gsp"});
    } else if (key == "cp_axis") {
      if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() || !v[2].is_number())
        throw InputError(ptr, "expected an array of 3 numbers");
      o.cp_axis = Vec3(v[0].get<double>(), v[1].get<double>(), v[2].get<double>());
      if (!(o.cp_axis.norm() > 0.0) || !o.cp_axis.allFinite()) throw InputError(ptr, "expected a non-zero direction");
      o.cp_axis.normalize();
    } else if (key == "cp_descending") {
      if (!v.is_boolean()) throw InputError(ptr, "expected true or false");
      o.cp_descending = v.get<bool>();
    } else if (key == "r_factor") {
      parse_r_factor(v, ptr, o);
    } else if (key == "omega") {
      o.omega = number(v, ptr);
      if (!(o.omega > 0.0 && o.omega < 2.0)) throw InputError(ptr, "expected a relaxation factor in (0, 2)");
    } else if (key == "nesterov" || key == "gauss_seidel") {
      if (!v.is_boolean()) throw InputError(ptr, "expected true or false");
      (key == "nesterov" ? o.nesterov : o.gauss_seidel) = v.get<bool>();
    }
  }
  return o;
}

}  // namespace coulomb
