// The cost of one contact sweep (README.md, "Sweep cost"): Bullet's solver timed from inside,
// the bytes a sweep touches per contact, and this machine's memory bandwidth.
#pragma once
#include <btBulletDynamicsCommon.h>

#include <string>

namespace bench {

// CPU time of the whole process (unit: ns), as Coulomb's SolverStats::sweep_ms counts it: unlike
// the wall time it does not grow while the process waits for a core on a shared machine.
double process_cpu_ns();

// Bullet's sequential-impulse solver with its solve timed in CPU time: the whole solveGroup call,
// and the sweeps alone (every solveSingleIteration call, which sweeps all contact rows once), with
// the contact points each sweep visited. Totals since construction.
class TimedSequentialImpulseSolver : public btSequentialImpulseConstraintSolver {
 public:
  double solve_ns = 0.0;        // solveGroup: setup, split-impulse passes, sweeps, write-back
  double sweep_ns = 0.0;        // solveSingleIteration calls only
  double contact_sweeps = 0.0;  // contact points x sweeps (3 rows each with two friction directions)

  btScalar solveGroup(btCollisionObject** bodies, int numBodies, btPersistentManifold** manifold, int numManifolds,
                      btTypedConstraint** constraints, int numConstraints, const btContactSolverInfo& info,
                      btIDebugDraw* debugDrawer, btDispatcher* dispatcher) override;

 protected:
  btScalar solveSingleIteration(int iteration, btCollisionObject** bodies, int numBodies,
                                btPersistentManifold** manifoldPtr, int numManifolds, btTypedConstraint** constraints,
                                int numConstraints, const btContactSolverInfo& infoGlobal,
                                btIDebugDraw* debugDrawer) override;
};

// Bytes one contact visit of a sweep reads and writes, counted from the data structures (each
// array element the visit touches counted whole, once; caches ignored). solver: "pgs",
// "prox-gs" or "bullet" (3 rows per point: normal and two friction directions). 0 for others.
double bytes_per_contact_sweep(const std::string& solver);

// A STREAM-like copy (two 128 MiB arrays, best of 5 passes), counted as STREAM counts it: bytes
// read plus bytes written, per second (unit: GB/s, 1e9 bytes).
double measure_copy_bandwidth_gbs();

}  // namespace bench
