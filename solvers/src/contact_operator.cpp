// The assembled operator's derived data (contact_operator.h).
#include <coulomb/contact_operator.h>

namespace coulomb {

void AssembledProblem::finalize() {
  const int nc = num_contacts();
  A_diag.assign(std::size_t(nc), Mat4::Zero());
  for (int k = 0; k < nc; ++k)
    for (int e = row_start[std::size_t(k)]; e < row_start[std::size_t(k) + 1]; ++e)
      if (col[std::size_t(e)] == k) A_diag[std::size_t(k)] += block[std::size_t(e)];
}

}  // namespace coulomb
