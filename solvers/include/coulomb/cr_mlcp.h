// cr-mlcp (seed 004): the semi-implicit system of rigid bodies and FEM soft bodies (eq. 3-5) with
// frictional contacts as a mixed LCP (eq. 9, 20), solved by the preconditioned conjugate residual
// method with active-set switching (Algorithm 1-3). solvers/src/cr_mlcp.cpp has the method;
// this header exposes the velocity system so that tests can check it against a direct solve.
#pragma once
#include <coulomb/contact_problem.h>
#include <coulomb/position_problem.h>
#include <coulomb/solver_options.h>

#include <Eigen/Sparse>
#include <vector>

namespace coulomb {

// The unconstrained velocity system A v = b of seed 004 eq. 4 over the DOFs that move (a rigid
// body with inverse mass 0 and a pinned particle keep the velocity the problem gives them):
//   A = M + h C_d + h^2 K,   C_d = alpha M + beta K (Rayleigh),   b = M v~ + h f_el(x^l) - (terms of the
//   DOFs that do not move),
// where v~ is the problem's predicted velocity (gravity and, for rigid bodies, the gyroscopic
// term already in it) and f_el, K the elastic force and stiffness at the start of the step x^l.
// Each element's K is the Gauss-Newton form J^T C J of its compliance form (fem/element_constraint.h),
// positive semi-definite by construction: corotational R K_0 R^T, and for Neo-Hookean the principal
// stretch Hessian projected to positive eigenvalues (the element-stiffness projection of s.2.2 that
// keeps A positive definite); Neo-Hookean stretches below compression_limit see the energy
// extrapolated linearly (s.2.1).
struct CrVelocitySystem {
  int num_rigid = 0;
  std::vector<int> offset;  // (num_rigid + num_particles) first unknown of each DOF, -1 if it does not move
  int size = 0;             // unknowns: 6 per moving rigid body, 3 per moving particle
  Eigen::SparseMatrix<double> A;
  Eigen::VectorXd b;
  Eigen::VectorXd mass_diag;  // (size) the diagonal of M alone (the mobility of Algorithm 2 line 19)
  Eigen::VectorXd v_fixed;  // (6 per DOF) velocities of the DOFs that do not move (world frame)
};

// Builds A and b for the problem at the start of its step (x0, q0, px0; the prediction v, w, pv).
void build_cr_velocity_system(const PositionProblem& p, const CrMlcpOptions& o, CrVelocitySystem& out);

// The elastic force f = -dPsi/dx (12-vector) and Gauss-Newton stiffness K = -df/dx (12 x 12) of one
// element, with the linear extrapolation of s.2.1 below compression_limit for Neo-Hookean.
void cr_element_force_stiffness(const ElementConstraintDef& e, const ElementMaterial& m, const std::array<Vec3, 4>& x,
                                double compression_limit, Vec12& f, Eigen::Matrix<double, 12, 12>& K);

// The solve (registry entry "cr-mlcp"): moves the problem's DOFs to q^{l+1}, v^{l+1} and fills the
// impulse arrays (contacts: normal, t, s; elements: 0, FEM is in A).
SolverStats solve_cr_mlcp(PositionProblem& p, const SolverOptions& o);

}  // namespace coulomb
