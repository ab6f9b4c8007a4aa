// FCLib natural-map merit (libfclib's MERIT_1), the common yardstick of every solver.
#include <coulomb/merit.h>

#include <cmath>

namespace coulomb {

Vec3 project_on_cone(const Vec3& r, double mu) {
  const double rn = r[0];
  const double rt = std::hypot(r[1], r[2]);
  if (rt <= mu * rn) return r;                 // inside the cone
  if (mu * rt <= -rn || rt == 0.0) return Vec3::Zero();  // inside the polar cone (or rn < 0, rt = 0)
  const double n = (mu * rt + rn) / (mu * mu + 1.0);     // onto the boundary ray
  return {n, mu * n * r[1] / rt, mu * n * r[2] / rt};
}

double fclib_natural_map_merit(const std::vector<Vec3>& r, const std::vector<Vec3>& u,
                               const std::vector<double>& mu, double q_norm) {
  double sum = 0.0;
  for (std::size_t a = 0; a < r.size(); ++a) {
    Vec3 u_hat = u[a];
    u_hat[0] += mu[a] * std::hypot(u[a][1], u[a][2]);
    sum += (r[a] - project_on_cone(r[a] - u_hat, mu[a])).squaredNorm();
  }
  return std::sqrt(sum) / (1.0 + std::sqrt(q_norm));
}

double fclib_merit(const ContactProblem& problem, const ContactSolution& solution) {
  const std::size_t nc = std::size_t(problem.num_contacts());
  if (nc == 0) return 0.0;
  std::vector<Vec6> w;
  std::vector<Vec4> v;
  problem.body_impulse_response(solution.lambda, w);
  problem.contact_velocities(w, v);
  std::vector<Vec3> r(nc), u(nc);
  std::vector<double> mu(nc);
  double q2 = 0.0;
  for (std::size_t k = 0; k < nc; ++k) {
    r[k] = solution.lambda[k].head<3>();
    u[k] = v[k].head<3>();
    mu[k] = problem.mu[k][0];
    q2 += problem.b[k].head<3>().squaredNorm();
  }
  return fclib_natural_map_merit(r, u, mu, std::sqrt(q2));
}

}  // namespace coulomb
