// The contact problem handed to every rigid contact solver (DESIGN.md stage 3 -> 4).
//
// Solvers see only this struct, never bodies, shapes or the scene. For nc contacts and nb
// bodies, each contact k has 4 rows (normal, tangent t, tangent s, torsion tau; seed 000 eq. 52)
// and couples body_a[k] < body_b[k]. The post-step contact velocity is
//     v = J (u_free + M^-1 J^T lambda) + bias = A lambda + b,   A = J M^-1 J^T,
// with b = J u_free + bias precomputed at assembly. Fixed bodies have zero inverse mass, so
// their rows of M^-1 J^T vanish and no solver needs a special case for them.
#pragma once
#include <coulomb/joint_rows.h>
#include <coulomb/math.h>

#include <type_traits>
#include <vector>

namespace coulomb {

using Mat46 = Eigen::Matrix<double, 4, 6>;
using Mat64 = Eigen::Matrix<double, 6, 4>;
using Mat4 = Eigen::Matrix4d;
using Mat43 = Eigen::Matrix<double, 4, 3>;
using Mat34 = Eigen::Matrix<double, 3, 4>;

// One contact's Jacobian blocks without the zeros and repeats of the 4x6 forms (seed 000 eq.
// 56): J_a = [-L, A_a], J_b = [L, A_b] with L the linear part (rows n, t, s over a zero torsion
// row), 304 bytes where the four 4x6 blocks took 768. M^-1 J_i^T = [+-m_i^-1 L^T; I_i^-1 A_i^T]
// (eq. 59-60) is applied from the inverse masses and either the contact's kept I^-1 A^T
// (AngularResponse, small problems) or the bodies' inverse inertias (large ones; ContactProblem::
// angular). L keeps its zero torsion row so that every product is a whole 4-vector.
struct ContactRows {
  Mat43 lin = Mat43::Zero();        // J_b's linear part (J_a's is -lin); row 3 (torsion) is zero
  double inv_mass_a = 0.0;          // finalize(): the bodies' inverse masses (0: fixed)
  double inv_mass_b = 0.0;
  Mat43 ang_a = Mat43::Zero();      // angular parts of J_a, J_b (rows n, t, s, tau)
  Mat43 ang_b = Mat43::Zero();

  // J_a w_a + J_b w_b (w: linear then angular, per body): the linear parts share L (J_a's is
  // -L), so L (v_b - v_a) + A_a omega_a + A_b omega_b, column by column (18 column products where
  // the two 4x6 blocks take 24: the sweeps' cost per contact)
  COULOMB_HOT_INLINE Vec4 velocity(const Vec6& wa, const Vec6& wb) const {
    // row by row (GCC leaves Eigen's column expressions as calls in some callers, a large share
    // of a pgs solve), each row three sums of three terms added at the end: a Gauss-Seidel
    // sweep's next contact of the same bodies waits on this sum, and one chain of eight additions
    // would be the sweep's longest wait. NormalRow::velocity adds in the same order.
    const double d0 = wb[0] - wa[0], d1 = wb[1] - wa[1], d2 = wb[2] - wa[2];
    Vec4 v;
    for (int r = 0; r < 4; ++r) {
      double x = lin(r, 0) * d0;
      x += lin(r, 1) * d1;
      x += lin(r, 2) * d2;
      double y = ang_a(r, 0) * wa[3];
      y += ang_a(r, 1) * wa[4];
      y += ang_a(r, 2) * wa[5];
      double z = ang_b(r, 0) * wb[3];
      z += ang_b(r, 1) * wb[4];
      z += ang_b(r, 2) * wb[5];
      v[r] = x + (y + z);
    }
    return v;
  }
  // w_a += M_a^-1 J_a^T l and w_b += M_b^-1 J_b^T l (seed 000 eq. 26, 59-60): the linear parts
  // are -+ m^-1 L^T l, so L^T l is formed once for both bodies; the angular parts either from the
  // kept M = I^-1 A^T (Mat34: M l) or from the bodies' world inverse inertias (Mat3: I^-1 (A^T l)).
  // A null w (a fixed body) is skipped. Each half of w is updated in place (a Vec6 built from two
  // Vec3 halves costs a store-forwarding stall). Sums in pairs, of depth 2: the next contact of
  // these bodies waits on them. Written out entry by entry and inlined, as velocity() is: GCC
  // leaves Eigen's `head<3>() -= m * p` and `p += row^T l`, and a lambda for the angular half, as
  // calls inside the sweeps (several % of a pgs run); the same arithmetic in the same order.
  template <class Response>
  COULOMB_HOT_INLINE void add_responses(const Vec4& l, Vec6* wa, const Response& Ra, Vec6* wb, const Response& Rb) const {
    double p[3];
    for (int i = 0; i < 3; ++i) {
      p[i] = lin(0, i) * l[0];
      p[i] += lin(1, i) * l[1];
      p[i] += lin(2, i) * l[2];
    }
    const auto angular = [&](const Mat43& A, const Response& R, Vec6& w) __attribute__((always_inline)) {
      if constexpr (std::is_same_v<Response, Mat34>) {
        for (int i = 0; i < 3; ++i) w[3 + i] += (R(i, 0) * l[0] + R(i, 1) * l[1]) + (R(i, 2) * l[2] + R(i, 3) * l[3]);
      } else {
        static_assert(std::is_same_v<Response, Mat3>, "add_responses: a kept I^-1 A^T (Mat34) or I^-1 (Mat3)");
        double u[3];
        for (int i = 0; i < 3; ++i) u[i] = (A(0, i) * l[0] + A(1, i) * l[1]) + (A(2, i) * l[2] + A(3, i) * l[3]);
        for (int j = 0; j < 3; ++j) w[3 + j] += (R(j, 0) * u[0] + R(j, 1) * u[1]) + R(j, 2) * u[2];
      }
    };
    if (wa) {
      for (int i = 0; i < 3; ++i) (*wa)[i] -= inv_mass_a * p[i];
      angular(ang_a, Ra, *wa);
    }
    if (wb) {
      for (int i = 0; i < 3; ++i) (*wb)[i] += inv_mass_b * p[i];
      angular(ang_b, Rb, *wb);
    }
  }
  // the 4x6 and 6x4 forms (finalize's A_kk, tests); inline, so that finalize builds no temporaries
  COULOMB_HOT_INLINE Mat46 J_a() const {
    Mat46 J = Mat46::Zero();
    J.leftCols<3>() = -lin;
    J.rightCols<3>() = ang_a;
    return J;
  }
  COULOMB_HOT_INLINE Mat46 J_b() const {
    Mat46 J = Mat46::Zero();
    J.leftCols<3>() = lin;
    J.rightCols<3>() = ang_b;
    return J;
  }
  // M^-1 J_a^T and M^-1 J_b^T (eq. 59-60) for the bodies' world inverse inertias
  COULOMB_HOT_INLINE Mat64 MinvJT_a(const Mat3& Ia) const {
    Mat64 M;
    M.topRows<3>() = -inv_mass_a * lin.transpose();
    M.bottomRows<3>().noalias() = Ia * ang_a.transpose();
    return M;
  }
  COULOMB_HOT_INLINE Mat64 MinvJT_b(const Mat3& Ib) const {
    Mat64 M;
    M.topRows<3>() = inv_mass_b * lin.transpose();
    M.bottomRows<3>().noalias() = Ib * ang_b.transpose();
    return M;
  }
};

// One contact's angular response I_a^-1 A_a^T, I_b^-1 A_b^T (eq. 59-60), kept for small problems
// (ContactProblem::angular)
struct AngularResponse {
  Mat34 a = Mat34::Zero(), b = Mat34::Zero();
};

struct ContactProblem {
  // bodies (nb)
  std::vector<double> inv_mass;   // (unit: 1/kg), 0 for fixed bodies
  std::vector<Mat3> inv_inertia;  // world-frame inverse inertia (unit: 1/(kg m^2)), 0 for fixed

  // contacts (nc)
  std::vector<int> body_a, body_b;
  std::vector<ContactRows> rows;  // seed 000 eq. 56: rows [n t s tau] acting on (v, omega); inverse masses after finalize()
  std::vector<Vec4> b;            // v = A lambda + b (unit: m/s, rad/s for the torsion row)
  std::vector<Vec3> mu;           // (mu_s, mu_t, mu_tau): eq. 16 friction coefficients
  std::vector<Vec3> point;        // world contact positions (orderings by position, seed 001 CP)

  // derived by finalize(): the diagonal blocks A_kk (4x4)
  std::vector<Mat4> A_diag;
  // derived by finalize() for problems of at most kKeptResponses contacts: each contact's
  // I^-1 A^T, so that applying an impulse is 12 products a body where I^-1 (A^T l) takes 21; empty
  // for larger problems, whose sweeps stream each contact's data from memory at its bandwidth and
  // are faster without these 192 bytes (a 16,000-box pile's impulse response about 40% cheaper),
  // where a small problem's cached sweeps are faster with them. Islands copied out of a problem
  // keep its choice (solvers/island_solve.cpp).
  std::vector<AngularResponse> angular;
  static constexpr std::size_t kKeptResponses = 4096;
  bool keeps_angular() const { return angular.size() == rows.size(); }
  bool finalized = false;         // the inverse masses in rows and A_diag are current

  // rigid joints (dynamics/joint_rows.h): bilateral and limit rows solved beside the contacts;
  // finalize() derives their blocks too
  JointRows joints;

  int num_bodies() const { return int(inv_mass.size()); }
  int num_contacts() const { return int(body_a.size()); }
  // the 4x6 and 6x4 forms of contact k's blocks (assembled problems, tests)
  Mat46 J_a(int k) const { return rows[std::size_t(k)].J_a(); }
  Mat46 J_b(int k) const { return rows[std::size_t(k)].J_b(); }
  Mat64 MinvJT_a(int k) const { return rows[std::size_t(k)].MinvJT_a(inv_inertia[std::size_t(body_a[std::size_t(k)])]); }
  Mat64 MinvJT_b(int k) const { return rows[std::size_t(k)].MinvJT_b(inv_inertia[std::size_t(body_b[std::size_t(k)])]); }
  // w_a += M_a^-1 J_a^T l, w_b likewise for contact k (null: that body is not written); `kept`:
  // keeps_angular()
  COULOMB_HOT_INLINE void add_responses(std::size_t k, const Vec4& l, Vec6* wa, Vec6* wb, bool kept) const {
    if (kept) rows[k].add_responses(l, wa, angular[k].a, wb, angular[k].b);
    else rows[k].add_responses(l, wa, inv_inertia[std::size_t(body_a[k])], wb, inv_inertia[std::size_t(body_b[k])]);
  }
  void clear_contacts();
  void reserve_contacts(std::size_t n);
  // n contacts, every per-contact array resized (kept entries unchanged, new ones default), for
  // a caller that then writes each contact in place; finalized becomes false
  void resize_contacts(std::size_t n);
  void add_contact(int a, int b_body, const ContactRows& J, const Vec4& bias, const Vec3& mu_k, const Vec3& position);
  // writes contact k (k < num_contacts(), after resize_contacts): add_contact in place, so that
  // contacts can be filled in parallel
  void set_contact(std::size_t k, int a, int b_body, const ContactRows& J, const Vec4& bias, const Vec3& mu_k,
                   const Vec3& position);
  // the same for a caller that wrote rows[k] itself (contact_rows(..., rows[k]), no copy)
  void set_contact(std::size_t k, int a, int b_body, const Vec4& bias, const Vec3& mu_k, const Vec3& position);
  // Ja, Jb must have eq. 56's structure (J_a's linear part -J_b's, no linear torsion part):
  // std::invalid_argument otherwise
  void add_contact(int a, int b_body, const Mat46& Ja, const Mat46& Jb, const Vec4& bias, const Vec3& mu_k,
                   const Vec3& position);
  void finalize();  // per contact in parallel (TBB, the caller's arena): the same bits on any thread count
  // finalize() in two halves, for an assembly that derives each contact's blocks right after
  // writing it (while its rows are in cache): finalize_contact(k) for every k, then
  // finish_finalize() (the joints' blocks; finalized becomes true)
  void finalize_contact(std::size_t k);
  void finish_finalize();

  // w = M^-1 J^T lambda, per body (nb x 6). Used by matrix-free solvers (seed 000 eq. 25-26).
  void body_impulse_response(const std::vector<Vec4>& lambda, std::vector<Vec6>& w) const;
  // the same with the joint impulses added (joint_lambda may be empty when there are no joints)
  void body_impulse_response(const std::vector<Vec4>& lambda, const std::vector<double>& joint_lambda,
                             std::vector<Vec6>& w) const;
  // v_k = J_k w + b_k for every contact.
  void contact_velocities(const std::vector<Vec6>& w, std::vector<Vec4>& v) const;
};

// One contact's normal row, packed: what a frictionless problem needs of a contact (row 0 of J
// and column 0 of M^-1 J^T, ContactRows' first row and column), 160 bytes where a ContactProblem
// keeps 304 of ContactRows, 128 of A_kk and its 4-vectors. Post-stabilisation's position problem
// (seed 000 eq. 49-50) is frictionless; at the funnel's landing it holds ~20,000 contacts, on
// 16,000 boxes in a pile ~93,000, whose full rows outgrow the caches.
struct NormalRow {
  double lin[3], ang_a[3], ang_b[3];  // J_n = [-n, ang_a; n, ang_b]: n, -(r_a x n), r_b x n
  double minv_a[3], minv_b[3];        // I_a^-1 ang_a^T, I_b^-1 ang_b^T
  double inv_mass_a, inv_mass_b;      // 0: a body that does not move (fixed, or held still)
  double b, a_nn;                     // v_n = J_n w + b; A_nn = J_n M^-1 J_n^T
  int body_a, body_b;

  // v_n = J_n w + b, in ContactRows::velocity's order
  COULOMB_HOT_INLINE double velocity(const Vec6& wa, const Vec6& wb) const {
    double v = lin[0] * (wb[0] - wa[0]);
    v += lin[1] * (wb[1] - wa[1]);
    v += lin[2] * (wb[2] - wa[2]);
    double y = ang_a[0] * wa[3];
    y += ang_a[1] * wa[4];
    y += ang_a[2] * wa[5];
    double z = ang_b[0] * wb[3];
    z += ang_b[1] * wb[4];
    z += ang_b[2] * wb[5];
    return (v + (y + z)) + b;
  }
  // w_a += M_a^-1 J_a^T l and w_b += M_b^-1 J_b^T l (ContactRows::add_responses with (l, 0, 0,
  // 0)); a body with no inverse mass is not written, so that islands sharing a fixed body can be
  // swept side by side
  COULOMB_HOT_INLINE void add_responses(double l, Vec6& wa, Vec6& wb) const {
    const double p0 = lin[0] * l, p1 = lin[1] * l, p2 = lin[2] * l;
    if (inv_mass_a > 0.0) {
      wa[0] -= inv_mass_a * p0;
      wa[1] -= inv_mass_a * p1;
      wa[2] -= inv_mass_a * p2;
      for (int j = 0; j < 3; ++j) wa[3 + j] += minv_a[j] * l;
    }
    if (inv_mass_b > 0.0) {
      wb[0] += inv_mass_b * p0;
      wb[1] += inv_mass_b * p1;
      wb[2] += inv_mass_b * p2;
      for (int j = 0; j < 3; ++j) wb[3 + j] += minv_b[j] * l;
    }
  }
};

// A frictionless contact problem in packed normal rows (contact_assembly.h assemble_gap_problem;
// solvers: solve_normal_pgs). The body ids are kept beside the rows too, for build_islands.
struct NormalProblem {
  int num_bodies = 0;
  std::vector<int> body_a, body_b;  // (nc) rows[k].body_a, rows[k].body_b
  std::vector<NormalRow> rows;      // (nc)
  int num_contacts() const { return int(rows.size()); }
  // w = M^-1 J_n^T lambda, per body (nb x 6), summed in contact order
  void body_impulse_response(const std::vector<double>& lambda, std::vector<Vec6>& w) const;
};

// Solver output: one impulse 4-vector (normal, t, s, tau) per contact (unit: N s, N m s).
// Joint rows' impulses follow in joint_lambda (one per JointRows row; N s or N m s).
struct ContactSolution {
  std::vector<Vec4> lambda;
  std::vector<double> joint_lambda;
  // w = M^-1 J^T [lambda; joint_lambda] per body (nb), as a matrix-free Gauss-Seidel or Jacobi
  // solver kept it while it swept (seed 000 eq. 26: pgs, prox-gs, prox-jacobi), or empty where
  // the solver kept none. The World integrates with it (eq. 42b) instead of forming the product
  // again, which would stream every contact's rows once more (a large pile's integration would
  // grow faster than its bodies). The same sums as the solver's velocities saw, rounded in the
  // order the sweeps added them; a caller that reuses a solution clears it before each solve.
  std::vector<Vec6> response;
};

// What every solver reports per step (DESIGN.md: comparisons between solvers are the point).
struct SolverStats {
  int iterations = 0;
  double residual = 0.0;          // the solver's own merit at exit
  double merit = 0.0;             // FCLib natural-map merit of the returned impulses (solvers/merit.h)
  bool converged = true;
  int divergence_detections = 0;  // r-factor back-tracks (PROX); 0 for PGS
  int linear_iterations = 0;      // Newton solvers: inner linear iterations over all Newton steps (a direct solve counts 1)
  double time_ms = 0.0;
  // Process CPU time (all threads; exact for one) in the iteration loop (sweeps, stopping test; no
  // setup or final merit) and its contact visits, contacts x sweeps run (a rejected PROX sweep, an
  // ESP iteration, a GSP set sweep: one each). Summed over islands. Their ratio is the sweep cost
  // per contact (tools/bench/README.md). Set by pgs and the PROX schemes only, and 0 without
  // contacts: a joints-only island has no sweep cost to time, and the process clock is a system call.
  double sweep_ms = 0.0;
  double contact_sweeps = 0.0;
  std::vector<double> history;    // the solver's own residual after each iteration (record_history)
};

}  // namespace coulomb
