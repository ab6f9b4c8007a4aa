// Projected Gauss-Seidel with box friction (seed 001 section 4, eq. 16-18b).
//
// Matrix-free in the style of seed 000 eq. 25-26: w = M^-1 J^T lambda is kept per body, so a
// row update costs O(1) whatever the number of contacts. Rows of one contact are visited in
// the order normal, t, s, tau so that the friction bounds use the freshest normal impulse
// (seed 001 algorithm lines 5-7: bounds l(lambda), u(lambda) updated after each row).
// Box friction: |lambda_t| <= mu_s lambda_n and |lambda_s| <= mu_t lambda_n independently, an
// outer approximation of the Coulomb cone (seed 000 section 3.1).
#include <coulomb/merit.h>
#include <coulomb/solver.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace coulomb {

SolverStats solve_pgs(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t nc = std::size_t(p.num_contacts());
  SolverStats stats;
  if (!opt.warm_start || sol.lambda.size() != nc) sol.lambda.assign(nc, Vec4::Zero());
  std::vector<Vec4>& lambda = sol.lambda;

  // a warm start must itself lie in the box before it is used
  for (std::size_t k = 0; k < nc; ++k) {
    Vec4& l = lambda[k];
    l[0] = std::max(0.0, l[0]);
    for (int r = 1; r < 4; ++r) l[r] = std::clamp(l[r], -p.mu[k][r - 1] * l[0], p.mu[k][r - 1] * l[0]);
  }
  std::vector<Vec6> w;
  p.body_impulse_response(lambda, w);

  stats.converged = nc == 0;
  for (int it = 0; it < opt.max_iterations && nc > 0; ++it) {
    double max_delta = 0.0, max_lambda = 0.0;
    for (std::size_t k = 0; k < nc; ++k) {
      Vec6& wa = w[std::size_t(p.body_a[k])];
      Vec6& wb = w[std::size_t(p.body_b[k])];
      Vec4& l = lambda[k];
      const int rows = p.mu[k][2] > 0.0 ? 4 : 3;  // no torsion row without torsional friction
      for (int r = 0; r < rows; ++r) {
        const double Arr = p.A_diag[k](r, r);
        if (!(Arr > 0.0)) continue;  // a row no body can respond to
        const double v = p.J_a[k].row(r).dot(wa) + p.J_b[k].row(r).dot(wb) + p.b[k][r];
        double x = l[r] - opt.sor * v / Arr;
        if (r == 0) x = std::max(0.0, x);
        else x = std::clamp(x, -p.mu[k][r - 1] * l[0], p.mu[k][r - 1] * l[0]);
        const double d = x - l[r];
        if (d != 0.0) {
          wa += p.MinvJT_a[k].col(r) * d;  // seed 000 eq. 26
          wb += p.MinvJT_b[k].col(r) * d;
          l[r] = x;
        }
        max_delta = std::max(max_delta, std::abs(d));
        max_lambda = std::max(max_lambda, std::abs(x));
      }
    }
    stats.iterations = it + 1;
    stats.residual = max_delta;
    if (max_delta <= opt.abs_tol || max_delta <= opt.rel_tol * max_lambda) {
      stats.converged = true;
      break;
    }
  }
  stats.merit = fclib_merit(p, sol);
  stats.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

}  // namespace coulomb
