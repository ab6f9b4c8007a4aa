// The part of reading a "solver" object that all solvers share (option_parsing.h).
#include "option_parsing.h"

#include <algorithm>
#include <cmath>

namespace coulomb::option_parsing {

namespace {

int positive_int(const nlohmann::json& v, const std::string& ptr) {
  // 2e8 and 500.0 are integers written as floats: checked against the same limit
  constexpr double kMax = 100000000;
  const bool integral = v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                                   std::floor(v.get<double>()) == v.get<double>());
  if (!integral || v.get<double>() < 1 || v.get<double>() > kMax)
    throw InputError(ptr, "expected an integer in [1, 100000000], got " + v.dump());
  return int(v.get<double>());
}

double tolerance(const nlohmann::json& v, const std::string& ptr) {
  const double x = number(v, ptr);
  if (!(x >= 0.0)) throw InputError(ptr, "expected a number >= 0");
  return x;
}

std::string joined(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

}  // namespace

double number(const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_number()) throw InputError(ptr, "expected a number");
  return v.get<double>();
}

bool boolean(const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_boolean()) throw InputError(ptr, "expected true or false");
  return v.get<bool>();
}

double relaxation_factor(const nlohmann::json& v, const std::string& ptr) {
  const double x = number(v, ptr);
  if (!(x > 0.0 && x < 2.0)) throw InputError(ptr, "expected a relaxation factor in (0, 2)");
  return x;
}

Vec3 direction(const nlohmann::json& v, const std::string& ptr) {
  if (!v.is_array() || v.size() != 3 || !v[0].is_number() || !v[1].is_number() || !v[2].is_number())
    throw InputError(ptr, "expected an array of 3 numbers");
  const Vec3 d(v[0].get<double>(), v[1].get<double>(), v[2].get<double>());
  // scaled by its largest component first, so that any finite magnitude normalises without overflow
  const double m = d.cwiseAbs().maxCoeff();
  if (!(m > 0.0) || !d.allFinite()) throw InputError(ptr, "expected a non-zero direction");
  return (d / m).normalized();
}

void read_solver_object(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer,
                        CommonSolverOptions& o, const OwnKeyFn& own) {
  if (!j.is_object()) throw InputError(pointer, "expected an object");
  for (const auto& [key, v] : j.items()) {
    const std::string ptr = pointer + "/" + key;
    if (std::find(info.keys.begin(), info.keys.end(), key) == info.keys.end())
      throw InputError(ptr, "unknown key for solver '" + info.name + "' (its keys: " + joined(info.keys) + ")");
    if (key == "type") {
      if (!v.is_string() || v.get<std::string>() != info.name) throw InputError(ptr, "expected \"" + info.name + "\"");
    } else if (key == "max_iterations") {
      o.max_iterations = positive_int(v, ptr);
    } else if (key == "abs_tol") {
      o.abs_tol = tolerance(v, ptr);
    } else if (key == "rel_tol") {
      o.rel_tol = tolerance(v, ptr);
    } else if (key == "warm_start") {
      o.warm_start = boolean(v, ptr);
    } else if (key == "record_history") {
      o.record_history = boolean(v, ptr);
    } else if (key == "graph_coloring") {
      o.graph_coloring = boolean(v, ptr);
    } else if (!own(key, v, ptr)) {
      // a key the entry lists but its parse function does not read: a registry mistake
      throw std::logic_error("solver '" + info.name + "' lists the option key '" + key + "' but does not parse it");
    }
  }
}

}  // namespace coulomb::option_parsing
