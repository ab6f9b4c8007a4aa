// Merit functions shared by all solvers so that their answers can be compared.
#pragma once
#include <coulomb/contact_operator.h>

#include <vector>

namespace coulomb {

// Euclidean projection onto the Coulomb cone {r : ||r_T|| <= mu r_N} (r = [r_N, r_T1, r_T2]).
Vec3 project_on_cone(const Vec3& r, double mu);

// FCLib's MERIT_1 (libfclib fclib_merit_local): with u = W r + q and the modified velocity
// u_hat = u + [mu ||u_T||, 0, 0], returns sqrt(sum_a ||r_a - P_C(r_a - u_hat_a)||^2) / (1 + sqrt(||q||_2)).
// r, u and q are stacked 3-vectors (normal, t, s) per contact.
double fclib_natural_map_merit(const std::vector<Vec3>& r, const std::vector<Vec3>& u,
                               const std::vector<double>& mu, double q_norm);

// The same merit for any contact operator: W = the (n, t, s) rows of A, q = the (n, t, s) part
// of b, mu = mu_s. Torsion rows are left out (FCLib has none).
template <class Op>
double fclib_merit(Op& op, const std::vector<Vec4>& lambda) {
  const std::size_t nc = std::size_t(op.size());
  if (nc == 0) return 0.0;
  std::vector<Vec4> v;
  all_velocities(op, lambda, v);
  std::vector<Vec3> r(nc), u(nc);
  std::vector<double> mu(nc);
  double q2 = 0.0;
  for (std::size_t k = 0; k < nc; ++k) {
    r[k] = lambda[k].head<3>();
    u[k] = v[k].head<3>();
    mu[k] = op.mu(int(k))[0];
    q2 += op.b(int(k)).template head<3>().squaredNorm();
  }
  return fclib_natural_map_merit(r, u, mu, std::sqrt(q2));
}

double fclib_merit(const ContactProblem& problem, const ContactSolution& solution);

}  // namespace coulomb
