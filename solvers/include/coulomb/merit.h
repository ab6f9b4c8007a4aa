// Merit functions shared by all solvers so that their answers can be compared.
#pragma once
#include <coulomb/contact_operator.h>

#include <cmath>
#include <vector>

namespace coulomb {

// ||(x, y)||: sqrt(x^2 + y^2) where the squares can neither overflow nor underflow, std::hypot
// (which scales to avoid both, at several times the cost) elsewhere. The merit of every solve
// takes two per contact (measured: std::hypot was 2.4% of a Wall step with pgs at 10 iterations).
inline double planar_norm(double x, double y) {
  const double s = x * x + y * y;
  return s > 1e-290 && s < 1e290 ? std::sqrt(s) : std::hypot(x, y);
}

// Euclidean projection onto the Coulomb cone {r : ||r_T|| <= mu r_N} (r = [r_N, r_T1, r_T2]).
Vec3 project_on_cone(const Vec3& r, double mu);

// FCLib's MERIT_1 (libfclib fclib_merit_local): with u = W r + q and the modified velocity
// u_hat = u + [mu ||u_T||, 0, 0], returns sqrt(sum_a ||r_a - P_C(r_a - u_hat_a)||^2) / (1 + sqrt(||q||_2)).
// r, u and q are stacked 3-vectors (normal, t, s) per contact.
double fclib_natural_map_merit(const std::vector<Vec3>& r, const std::vector<Vec3>& u,
                               const std::vector<double>& mu, double q_norm);

// The same merit for any contact operator: W = the (n, t, s) rows of A, q = the (n, t, s) part
// of b, mu = mu_s. Torsion rows are left out (FCLib has none).
// One contact's term of fclib_natural_map_merit: ||r - P_C(r - u_hat)||^2.
double natural_map_term(const Vec3& r, const Vec3& u, double mu);

// The merit's sum over the contacts in index order with contact k's natural map term term(k):
// a caller that computes the terms in parallel first gets the same bits as one that does not.
template <class Op, class Term>
double fclib_merit_of_terms(const Op& op, Term&& term) {
  double sum = 0.0, q2 = 0.0;
  for (int k = 0; k < op.size(); ++k) {
    sum += term(k);
    q2 += op.b(k).template head<3>().squaredNorm();
  }
  return std::sqrt(sum) / (1.0 + std::sqrt(std::sqrt(q2)));
}

// The merit at impulses lambda whose velocities v = A lambda + b a solver already holds (no
// product with A); the same sum in the same order as fclib_natural_map_merit.
template <class Op>
double fclib_merit_at(const Op& op, const std::vector<Vec4>& lambda, const std::vector<Vec4>& v) {
  return fclib_merit_of_terms(op, [&](int k) {
    const auto i = std::size_t(k);
    return natural_map_term(lambda[i].head<3>(), v[i].head<3>(), op.mu(k)[0]);
  });
}

template <class Op>
double fclib_merit(Op& op, const std::vector<Vec4>& lambda) {
  if (op.size() == 0) return 0.0;
  std::vector<Vec4> v;
  all_velocities(op, lambda, v);
  return fclib_merit_at(op, lambda, v);
}

double fclib_merit(const ContactProblem& problem, const ContactSolution& solution);

// The merit check of the iterative solvers (pgs, prox-gs, prox-jacobi) when merit_tol > 0
// (CommonSolverOptions::merit_tol): one merit costs a product with A, about one sweep, so it is
// evaluated every kMeritCheckInterval iterations (~10% of a Gauss-Seidel solve's time) rather
// than after each; the solver's own test no longer stops it, since that test can be met far from
// the merit (FCLib KaplasTower: prox-gs's step test at merit 1.5e-4 with tol 1e-6). The solver
// checks the returned impulses once more at exit, so `converged` is exactly merit <= merit_tol.
inline constexpr int kMeritCheckInterval = 10;

// Whether an iterative solver stops after `iterations` iterations: its own test `own_test`
// without merit_tol, else the merit of lambda <= merit_tol, evaluated every kMeritCheckInterval
// iterations (PROX: accepted sweeps). all_velocities resets the operator to lambda, which a
// Gauss-Seidel operator already holds.
template <class Op>
bool stopping_test_met(Op& op, const std::vector<Vec4>& lambda, double merit_tol, int iterations, bool own_test) {
  if (!(merit_tol > 0.0)) return own_test;
  if (iterations % kMeritCheckInterval != 0) return false;
  return fclib_merit(op, lambda) <= merit_tol;
}

}  // namespace coulomb
