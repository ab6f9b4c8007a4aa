// Joint rows of the velocity-level contact problem (DESIGN.md stage 3 -> 4): the rows of
// dynamics/constraints.h's joint kind, evaluated at the detection configuration and linearised
// in the bodies' velocities, so that PGS and PROX solve them beside the contacts.
//
// Row r of joint j couples body_a[j] and body_b[j] (-1 = the world, no columns) and reads
//     v_r = J_a,r u_a + J_b,r u_b + b_r + eps_r lambda_r,
// with b_r = J_r u_free + beta C_r / dt (beta = kJointErrorReduction of the violation is closed
// per step) and
// eps_r = alpha_r / dt^2 for a compliance alpha (C + alpha f = 0 with f = lambda / dt).
// Equality rows want v_r = 0 with lambda_r free; the others are boxed, lo_r <= lambda_r <= hi_r
// with v_r >= 0 at lo, v_r <= 0 at hi and v_r = 0 between: limit rows [0, inf), a drive with a
// force bound F [-F dt, F dt] (an actuator, engine/control.h). Impulses lambda are in N s (N m s
// for angular rows).
#pragma once
#include <coulomb/math.h>

#include <cstdint>
#include <vector>

namespace coulomb {

struct BlockRows;

// The share of a joint's violation C that the velocity-level rows close in one step. 1 (the
// whole violation at once) keeps a converged pendulum exact but feeds every unconverged solve's
// drift back as velocity: a 10-link chain with a 100x heavier end gained energy from 0 to 7e5 J
// in 337 steps and blew up in pgs and prox-gs; 0.5 keeps it bounded and the pendulum periods
// (+0.017%) unchanged, 0.2 lets a 30-link chain drift past 1 mm (tests/validation/joints_test.cpp).
inline constexpr double kJointErrorReduction = 0.5;

struct JointRows {
  std::vector<int> body_a, body_b;     // (nj) -1 = the world
  std::vector<int> row_start{0};       // (nj + 1) rows of joint j: row_start[j] .. row_start[j + 1]
  std::vector<Vec6> J_a, J_b;          // (nr) 1x6 rows on (v, omega)
  std::vector<double> b, eps;          // (nr)
  std::vector<double> lo, hi;          // (nr) impulse bounds (-inf, inf for equality rows) (unit: N s, N m s)

  // derived by finalize(): M^-1 J^T columns, and per joint the dense block A_jj + diag(eps)
  // (n x n, row-major from block_start[j]) and the inverse of its equality rows' block
  // (m x m from inverse_start[j], m = the unbounded rows before the first boxed one)
  std::vector<Vec6> MinvJT_a, MinvJT_b;
  std::vector<int> equality_rows;
  std::vector<int> block_start{0}, inverse_start{0};
  std::vector<double> block, inverse;

  int count() const { return int(body_a.size()); }
  int rows() const { return int(b.size()); }
  int rows_of(int j) const { return row_start[std::size_t(j) + 1] - row_start[std::size_t(j)]; }
  void clear();
  // Appends a joint from its evaluated rows (constraints.h) with DOFs 0..nr-1 = rigid bodies:
  // b_r = J_r u_free + beta C_r / dt, eps_r = alpha_r / dt^2.
  // `coordinate_row` (or -1): the first of the joint's coordinate rows (drive, damping, friction;
  // constraints.h), which close their error in one step (a servo tracking a moving target would
  // otherwise lag by the uncorrected part, and a damping row's target is a rate). A row's force
  // bounds (BlockRows lo/hi: 0 or infinite, or an actuator's N or N m) become impulse bounds here.
  void add_joint(int a, int b_body, const BlockRows& rows, const std::vector<Vec6>& u_free, double dt,
                 int coordinate_row = -1);
  // Needs the bodies' inverse masses and world inverse inertias (zero for fixed bodies).
  void finalize(const std::vector<double>& inv_mass, const std::vector<Mat3>& inv_inertia);

  // w += M^-1 J^T lambda over every joint row
  void add_impulse_response(const std::vector<double>& lambda, std::vector<Vec6>& w) const;
  // Copies joint j (global index) with bodies renumbered by `local` (islands).
  void append_from(const JointRows& other, int j, int a_local, int b_local);
};

}  // namespace coulomb
