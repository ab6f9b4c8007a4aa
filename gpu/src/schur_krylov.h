// The iterative linear solvers of seed 003 s.8.2 / s.10.4 written once over a backend that
// supplies the vector operations (schur_cpu.cpp: oneTBB over host arrays; schur_cuda.cu: CUDA
// kernels over device arrays). Each loop calls only the backend, so both devices run the same
// algorithm step by step.
//
// Backend B: typename B::Vec; Vec vec() (sized to the rows, zero); product(x, y) (y = A x);
// dot(a, b); axpy(a, x, y); xpby(x, b, y); precondition(x, y) (y = D^-1 x); residual(b, y, r)
// (r = b - y); jacobi_update(omega, b, y, x); copy(src, dst); record(residual norm).
#pragma once
#include <coulomb/gpu/schur.h>

#include <cmath>

namespace coulomb::gpu::krylov {

// Preconditioned conjugate residual (Saad, Iterative Methods, alg. 6.20 with a left Jacobi
// preconditioner): each iteration minimises the residual over the Krylov space, so it decreases
// monotonically and an early stop is still useful (seed 003 eq. 69, figure 11). One product with
// A per iteration (A p is updated from A z).
template <class B>
LinearResult pcr(B& be, const typename B::Vec& b, typename B::Vec& x, const LinearOptions& o) {
  LinearResult res;
  auto r = be.vec(), z = be.vec(), p = be.vec(), Az = be.vec(), Ap = be.vec(), q = be.vec();
  res.rhs_norm = std::sqrt(be.dot(b, b));
  be.product(x, Ap);
  be.residual(b, Ap, r);
  be.precondition(r, z);
  be.copy(z, p);
  be.product(z, Az);
  be.copy(Az, Ap);
  double rr = be.dot(r, r);
  double zAz = be.dot(z, Az);
  const double stop = o.rel_tol * res.rhs_norm;
  while (res.iterations < o.max_iterations && std::sqrt(rr) > stop) {
    be.precondition(Ap, q);               // q = D^-1 A p
    const double ApqAp = be.dot(Ap, q);
    if (!(ApqAp > 0.0) || !(zAz > 0.0)) break;  // breakdown: A not positive definite on this space
    const double alpha = zAz / ApqAp;
    be.axpy(alpha, p, x);
    be.axpy(-alpha, Ap, r);
    be.axpy(-alpha, q, z);
    be.product(z, Az);
    const double zAz_new = be.dot(z, Az);
    const double beta = zAz_new / zAz;
    zAz = zAz_new;
    be.xpby(z, beta, p);
    be.xpby(Az, beta, Ap);
    rr = be.dot(r, r);
    ++res.iterations;
    if (o.record_history) res.history.push_back(std::sqrt(rr));
  }
  res.residual = std::sqrt(rr);
  return res;
}

// Preconditioned conjugate gradient (Jacobi preconditioner), for the comparison of figure 11/18:
// its residual is not monotone.
template <class B>
LinearResult cg(B& be, const typename B::Vec& b, typename B::Vec& x, const LinearOptions& o) {
  LinearResult res;
  auto r = be.vec(), z = be.vec(), p = be.vec(), Ap = be.vec();
  res.rhs_norm = std::sqrt(be.dot(b, b));
  be.product(x, Ap);
  be.residual(b, Ap, r);
  be.precondition(r, z);
  be.copy(z, p);
  double rz = be.dot(r, z);
  double rr = be.dot(r, r);
  const double stop = o.rel_tol * res.rhs_norm;
  while (res.iterations < o.max_iterations && std::sqrt(rr) > stop) {
    be.product(p, Ap);
    const double pAp = be.dot(p, Ap);
    if (!(pAp > 0.0)) break;
    const double alpha = rz / pAp;
    be.axpy(alpha, p, x);
    be.axpy(-alpha, Ap, r);
    be.precondition(r, z);
    const double rz_new = be.dot(r, z);
    be.xpby(z, rz_new / rz, p);
    rz = rz_new;
    rr = be.dot(r, r);
    ++res.iterations;
    if (o.record_history) res.history.push_back(std::sqrt(rr));
  }
  res.residual = std::sqrt(rr);
  return res;
}

// Damped Jacobi: x += omega D^-1 (b - A x).
template <class B>
LinearResult jacobi(B& be, const typename B::Vec& b, typename B::Vec& x, const LinearOptions& o) {
  LinearResult res;
  auto y = be.vec(), r = be.vec();
  res.rhs_norm = std::sqrt(be.dot(b, b));
  be.product(x, y);
  be.residual(b, y, r);
  double rr = be.dot(r, r);
  const double stop = o.rel_tol * res.rhs_norm;
  while (res.iterations < o.max_iterations && std::sqrt(rr) > stop) {
    be.jacobi_update(o.jacobi_omega, b, y, x);
    be.product(x, y);
    be.residual(b, y, r);
    rr = be.dot(r, r);
    ++res.iterations;
    if (o.record_history) res.history.push_back(std::sqrt(rr));
  }
  res.residual = std::sqrt(rr);
  return res;
}

}  // namespace coulomb::gpu::krylov
