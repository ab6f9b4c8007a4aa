// Projected Gauss-Seidel with box friction (seed 001 section 4, eq. 16-18b).
//
// One template over the contact operator (matrix-free for scenes, seed 000 eq. 25-26; assembled
// for FCLib). Per contact the velocity is evaluated once and kept current through the diagonal
// block while its rows are visited in the order normal, t, s, tau, so the friction bounds use
// the freshest normal impulse (seed 001 algorithm lines 5-7: l(lambda), u(lambda) updated after
// each row). Box friction: |lambda_t| <= mu_s lambda_n and |lambda_s| <= mu_t lambda_n
// independently, an outer approximation of the Coulomb cone (seed 000 section 3.1).
#include <coulomb/merit.h>
#include <coulomb/solver.h>

#include <algorithm>
#include <chrono>
#include <cmath>

namespace coulomb {

namespace {

template <class Op>
SolverStats pgs(Op& op, const SolverOptions& opt, std::vector<Vec4>& lambda) {
  const auto t0 = std::chrono::steady_clock::now();
  const int nc = op.size();
  SolverStats stats;
  if (!opt.warm_start || int(lambda.size()) != nc) lambda.assign(std::size_t(nc), Vec4::Zero());

  // a warm start must itself lie in the box before it is used
  for (int k = 0; k < nc; ++k) {
    Vec4& l = lambda[std::size_t(k)];
    const Vec3& mu = op.mu(k);
    l[0] = std::max(0.0, l[0]);
    for (int r = 1; r < 4; ++r) l[r] = std::clamp(l[r], -mu[r - 1] * l[0], mu[r - 1] * l[0]);
  }
  op.reset(lambda);

  stats.converged = nc == 0;
  for (int it = 0; it < opt.max_iterations && nc > 0; ++it) {
    double max_delta = 0.0, max_lambda = 0.0;
    for (int k = 0; k < nc; ++k) {
      Vec4& l = lambda[std::size_t(k)];
      const Mat4& A = op.diag(k);
      const Vec3& mu = op.mu(k);
      Vec4 v = op.velocity(k, lambda);
      Vec4 dl = Vec4::Zero();
      const int rows = mu[2] > 0.0 ? 4 : 3;  // no torsion row without torsional friction
      for (int r = 0; r < rows; ++r) {
        if (!(A(r, r) > 0.0)) continue;  // a row no body can respond to
        double x = l[r] - opt.sor * v[r] / A(r, r);
        x = r == 0 ? std::max(0.0, x) : std::clamp(x, -mu[r - 1] * l[0], mu[r - 1] * l[0]);
        const double d = x - l[r];
        l[r] = x;
        dl[r] += d;
        v += A.col(r) * d;  // the other rows of this contact see the change at once
        max_delta = std::max(max_delta, std::abs(d));
        max_lambda = std::max(max_lambda, std::abs(x));
      }
      if (dl != Vec4::Zero()) op.applied(k, dl);
    }
    stats.iterations = it + 1;
    stats.residual = max_delta;
    if (max_delta <= opt.abs_tol || max_delta <= opt.rel_tol * max_lambda) {
      stats.converged = true;
      break;
    }
  }
  stats.merit = fclib_merit(op, lambda);
  stats.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return stats;
}

}  // namespace

SolverStats solve_pgs(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  MatrixFreeOperator op(p);
  return pgs(op, opt, sol.lambda);
}

SolverStats solve_pgs_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  AssembledOperator op(p);
  return pgs(op, opt, sol.lambda);
}

}  // namespace coulomb
