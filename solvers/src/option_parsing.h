// Private to the solvers' parse functions (*_options.cpp, registry.cpp): reading a scene's
// "solver" object. read_solver_object does what every solver shares (the "type", unknown keys,
// the common keys); each solver's parse function passes it a callback for its own keys and uses
// the value readers below, so that every solver reports mistakes the same way.
#pragma once
#include <coulomb/error.h>
#include <coulomb/solver.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace coulomb::option_parsing {

// Called with each key of the solver's own (not "type", not a common key) that the object holds,
// its value and its JSON pointer; returns false for a key it does not parse.
using OwnKeyFn = std::function<bool(const std::string& key, const nlohmann::json& v, const std::string& ptr)>;

// Checks that `j` is an object whose "type" (if present) is info.name and whose keys are all in
// info.keys, reads the common keys (max_iterations, abs_tol, rel_tol, warm_start,
// record_history) into `common` and hands every other key to `own`. Throws InputError.
void read_solver_object(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer,
                        CommonSolverOptions& common, const OwnKeyFn& own);

double number(const nlohmann::json& v, const std::string& ptr);
bool boolean(const nlohmann::json& v, const std::string& ptr);
double relaxation_factor(const nlohmann::json& v, const std::string& ptr);  // in (0, 2)
Vec3 direction(const nlohmann::json& v, const std::string& ptr);            // non-zero, normalised

// One of the names of E (EnumNames<E>), or InputError `expected one of "a", "b", ...`.
template <NamedEnum E>
E choice(const nlohmann::json& v, const std::string& ptr) {
  if (v.is_string())
    if (const std::optional<E> e = enum_from_string<E>(v.get_ref<const std::string&>())) return *e;
  std::string list;
  for (std::string_view n : EnumNames<E>::names) list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  throw InputError(ptr, "expected one of " + list);
}

}  // namespace coulomb::option_parsing
