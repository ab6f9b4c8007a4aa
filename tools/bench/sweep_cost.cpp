// Sweep cost accounting for coulomb-vs-bullet (sweep_cost.h).
#include "sweep_cost.h"

#include <coulomb/contact_problem.h>
#include <coulomb/timer.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <vector>

namespace bench {

double process_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return 1e9 * double(t.tv_sec) + double(t.tv_nsec);
}

btScalar TimedSequentialImpulseSolver::solveGroup(btCollisionObject** bodies, int numBodies,
                                                  btPersistentManifold** manifold, int numManifolds,
                                                  btTypedConstraint** constraints, int numConstraints,
                                                  const btContactSolverInfo& info, btIDebugDraw* debugDrawer,
                                                  btDispatcher* dispatcher) {
  const double t0 = process_cpu_ns();
  const btScalar r = btSequentialImpulseConstraintSolver::solveGroup(bodies, numBodies, manifold, numManifolds,
                                                                     constraints, numConstraints, info, debugDrawer,
                                                                     dispatcher);
  solve_ns += process_cpu_ns() - t0;
  return r;
}

btScalar TimedSequentialImpulseSolver::solveSingleIteration(int iteration, btCollisionObject** bodies, int numBodies,
                                                            btPersistentManifold** manifoldPtr, int numManifolds,
                                                            btTypedConstraint** constraints, int numConstraints,
                                                            const btContactSolverInfo& infoGlobal,
                                                            btIDebugDraw* debugDrawer) {
  const double t0 = process_cpu_ns();
  const btScalar r = btSequentialImpulseConstraintSolver::solveSingleIteration(
      iteration, bodies, numBodies, manifoldPtr, numManifolds, constraints, numConstraints, infoGlobal, debugDrawer);
  sweep_ns += process_cpu_ns() - t0;
  contact_sweeps += double(m_tmpSolverContactConstraintPool.size());  // one normal row per contact point
  return r;
}

double bytes_per_contact_sweep(const std::string& solver) {
  using namespace coulomb;
  // both engines: two bodies' velocity state read and written back (Coulomb: w = M^-1 J^T lambda,
  // 6 doubles; Bullet: delta linear and angular velocity, 2 btVector3)
  if (solver == "pgs" || solver == "prox-gs") {
    const double body = 2.0 * sizeof(int) + 2.0 * 2.0 * sizeof(Vec6) /*w read + write*/ + 2.0 * sizeof(Mat3) /*I^-1*/;
    const double jacobians = sizeof(ContactRows);  // J_a, J_b compact (inverse masses included)
    const double rows = sizeof(Vec4) /*b*/ + sizeof(Vec3) /*mu*/ + 2.0 * sizeof(Vec4) /*lambda read + write*/;
    // pgs: its row steps (RowStep, solvers/src/pgs.cpp: h and the six A_rq h_r products)
    if (solver == "pgs") return body + jacobians + rows + sizeof(Vec4) + 6.0 * sizeof(double);
    // prox-gs: its r-factors (the 96-byte hot record: diagonal R, 1 / mu, active rows), the copy
    // lambda^k -> lambda^{k+1} and the residual pass over both (3 more Vec4)
    return body + jacobians + rows + 96.0 + 3.0 * sizeof(Vec4);
  }
  if (solver == "bullet") {
    // per row: the whole btSolverConstraint, and per body its delta velocities (read + write),
    // linear and angular factors and inverse mass (3 btVector3) and m_originalBody
    const double v3 = sizeof(btVector3);
    const double body = 2.0 * (2.0 * 2.0 * v3 + 3.0 * v3 + sizeof(void*));
    const double row = sizeof(btSolverConstraint) + body;
    return 3.0 * row + 2.0 * sizeof(btScalar) /*friction rows read the normal's impulse*/;
  }
  return 0.0;
}

double measure_copy_bandwidth_gbs() {
  const std::size_t n = std::size_t(128) << 20;  // bytes per array
  std::vector<char> a(n, 1), b(n, 0);
  double best = 0.0;
  for (int pass = 0; pass < 5; ++pass) {
    const coulomb::Stopwatch watch;
    std::memcpy(b.data(), a.data(), n);
    const double ns = 1e6 * watch.ms();
    a[std::size_t(pass) * 4096] = b[std::size_t(pass) * 8192];  // keep the copies observable
    best = std::max(best, 2.0 * double(n) / ns);                // bytes per ns = GB/s
  }
  return best;
}

}  // namespace bench
