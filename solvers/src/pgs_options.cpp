// The pgs entry's option keys (seed 001; registry.cpp lists them): sor, ordering, cp_axis,
// cp_descending, and the common ones.
#include "option_parsing.h"

namespace coulomb {

SolverOptions parse_pgs_options(const SolverInfo& info, const nlohmann::json& j, const std::string& pointer) {
  using namespace option_parsing;
  SolverOptions o;
  PgsOptions& pgs = o.pgs;
  read_solver_object(info, j, pointer, o, [&](const std::string& key, const nlohmann::json& v, const std::string& ptr) {
    if (key == "sor") pgs.sor = relaxation_factor(v, ptr);
    else if (key == "ordering") pgs.ordering = choice<PgsOrdering>(v, ptr);
    else if (key == "cp_axis") pgs.cp_axis = direction(v, ptr);
    else if (key == "cp_descending") pgs.cp_descending = boolean(v, ptr);
    else return false;
    return true;
  });
  return o;
}

}  // namespace coulomb
