// FCLib natural-map merit (libfclib's MERIT_1), the common yardstick of every solver.
#include <coulomb/merit.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cmath>

namespace coulomb {

Vec3 project_on_cone(const Vec3& r, double mu) {
  const double rn = r[0];
  const double rt = planar_norm(r[1], r[2]);
  if (rt <= mu * rn) return r;                 // inside the cone
  if (mu * rt <= -rn || rt == 0.0) return Vec3::Zero();  // inside the polar cone (or rn < 0, rt = 0)
  const double n = (mu * rt + rn) / (mu * mu + 1.0);     // onto the boundary ray
  return {n, mu * n * r[1] / rt, mu * n * r[2] / rt};
}

double natural_map_term(const Vec3& r, const Vec3& u, double mu) {
  Vec3 u_hat = u;
  u_hat[0] += mu * planar_norm(u[1], u[2]);
  return (r - project_on_cone(r - u_hat, mu)).squaredNorm();
}

double fclib_natural_map_merit(const std::vector<Vec3>& r, const std::vector<Vec3>& u,
                               const std::vector<double>& mu, double q_norm) {
  double sum = 0.0;
  for (std::size_t a = 0; a < r.size(); ++a) sum += natural_map_term(r[a], u[a], mu[a]);
  return std::sqrt(sum) / (1.0 + std::sqrt(q_norm));
}

// The terms in parallel (the caller's TBB arena), each alone, then summed in index order: the
// same bits as fclib_merit(op, lambda) on any thread count.
double fclib_merit(const ContactProblem& problem, const ContactSolution& solution) {
  MatrixFreeOperator op(problem);
  const std::vector<Vec4>& lambda = solution.lambda;
  op.reset(lambda);
  std::vector<double> term(std::size_t(op.size()));
  tbb::parallel_for(tbb::blocked_range<int>(0, op.size(), 512), [&](const tbb::blocked_range<int>& r) {
    for (int k = r.begin(); k != r.end(); ++k) {
      const auto i = std::size_t(k);
      term[i] = natural_map_term(lambda[i].head<3>(), op.velocity(k, lambda).head<3>(), op.mu(k)[0]);
    }
  });
  return fclib_merit_of_terms(op, [&](int k) { return term[std::size_t(k)]; });
}

}  // namespace coulomb
