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
  // the colour order is a permutation of its own: the orderings of seed 001 are not coloured
  // (a coloured solve with one of them would run sequentially, and its islands be solved whole
  // for nothing, island_solve.cpp)
  if (o.graph_coloring && pgs.ordering != PgsOrdering::Default)
    throw InputError(pointer + "/graph_coloring", "needs \"ordering\": \"default\" (the colour order replaces the ordering)");
  return o;
}

}  // namespace coulomb
