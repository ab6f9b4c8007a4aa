// Merit functions shared by all solvers so that their answers can be compared.
#pragma once
#include <coulomb/contact_problem.h>

#include <vector>

namespace coulomb {

// Euclidean projection onto the Coulomb cone {r : ||r_T|| <= mu r_N} (r = [r_N, r_T1, r_T2]).
Vec3 project_on_cone(const Vec3& r, double mu);

// FCLib's MERIT_1 (libfclib fclib_merit_local): with u = W r + q and the modified velocity
// u_hat = u + [mu ||u_T||, 0, 0], returns sqrt(sum_a ||r_a - P_C(r_a - u_hat_a)||^2) / (1 + sqrt(||q||_2)).
// r, u and q are stacked 3-vectors (normal, t, s) per contact.
double fclib_natural_map_merit(const std::vector<Vec3>& r, const std::vector<Vec3>& u,
                               const std::vector<double>& mu, double q_norm);

// The same merit for a scene's contact problem and impulses: W = the (n, t, s) rows of A,
// q = the (n, t, s) part of b, mu = mu_s. Torsion rows are left out (FCLib has none).
double fclib_merit(const ContactProblem& problem, const ContactSolution& solution);

}  // namespace coulomb
