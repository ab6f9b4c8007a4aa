// cr-mlcp's solver state (cr_mlcp.cpp: Algorithm 1; cr_mlcp_constraints.cpp: the constraint
// states of Algorithm 2, the gap measurement, normal updates and new collisions of lines 23-27).
// Internal to solvers/src.
#pragma once
#include <coulomb/constraints.h>
#include <coulomb/cr_mlcp.h>
#include <coulomb/integrators.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>
#include <coulomb/timer.h>

#include <cstdint>
#include <vector>

namespace coulomb::cr_mlcp_detail {

using Vec = Eigen::VectorXd;
using Vec2 = Eigen::Vector2d;

enum class Friction : std::uint8_t { None, Static, Kinetic };

struct Row {
  RowKind kind = RowKind::Bilateral;
  int contact = -1;       // contact index of normal and friction rows
  double c = 0.0;         // right-hand side (unit: m/s or rad/s)
  double D = 0.0;         // compliance / h^2
  double S = 0.0;         // S_d entry (Z J A_d^-1 J^T + D)
  double mobility = 0.0;  // J M^-1 J^T: how far an impulse moves the row over a step, per h
  double value = 0.0;     // C at the linearisation point
  // unilateral rows: the value an active row moves C to over the step (CrMlcp::linearise)
  double want = 0.0;
  double lo = 0.0, hi = 0.0;  // RowKind::Actuator rows: the impulse bounds, force bounds times h
  int e0 = 0, e1 = 0;         // entries
};

struct ContactState {
  Friction mode = Friction::None;
  Vec2 delta = Vec2::Zero();       // kinetic friction direction (unit, tangent basis), opposing the slide
  double lambda_hat = 0.0;         // estimate of the normal impulse (SMA, Algorithm 3)
  double history[2] = {0.0, 0.0};  // the last two normal impulses (n = 2)
  int history_size = 0;
  Vec2 gamma_hat = Vec2::Zero();  // kinetic friction impulse on the right-hand side
  double Z = 1.0;
};

class CrMlcp {
 public:
  CrMlcp(PositionProblem& p, const SolverOptions& o) : p_(p), o_(o), cr_(o.cr), h_(p.dt) {}
  SolverStats run();

 private:
  void setup();
  void set_configuration(const Vec& v);  // positions at x^l + h v (and the fixed DOFs' motion)
  // the current positions (x_, q_, px_) as a configuration of the constraint interface
  Configuration configuration() const {
    Configuration c;
    c.x = x_.data();
    c.q = q_.data();
    c.w = w_zero_.data();
    c.h = h_;
    c.num_rigid = nr_;
    c.px = px_.data();
    c.num_particles = np_;
    return c;
  }
  void linearise(const Vec* vstar);
  void start_configuration();
  void recompute(const Vec& y);  // Algorithm 1 lines 19-21
  bool measure(const Vec& y);    // line 27: true if the linear model is off somewhere
  bool new_collisions();         // line 25: contacts from the candidate lists; true if any were added
  int update_normals();          // eq. 21: contact normals from the geometry at x(v), turned at most 15 degrees
  void duplicate_scaling();
  void precompute_S();
  double row_dot(int r, const Vec& v) const {
    double s = 0.0;
    const Row& row = rows_[std::size_t(r)];
    for (int e = row.e0; e < row.e1; ++e) {
      const int c = col_[std::size_t(e)];
      s += J_[std::size_t(e)].head(ncol_[std::size_t(e)]).dot(v.segment(c, ncol_[std::size_t(e)]));
    }
    return s;
  }
  void row_axpy(int r, double a, Vec& v) const {
    const Row& row = rows_[std::size_t(r)];
    for (int e = row.e0; e < row.e1; ++e) {
      const int c = col_[std::size_t(e)];
      v.segment(c, ncol_[std::size_t(e)]) += a * J_[std::size_t(e)].head(ncol_[std::size_t(e)]);
    }
  }
  bool active(int r) const { return active_[std::size_t(r)] != 0; }
  // B y restricted to the active rows; Av_out receives A y_v
  void multiply(const Vec& y, Vec& out, Vec& Av_out) const;
  void precondition(const Vec& r, Vec& z) const;
  void constraint_residual(const Vec& y, const Vec& ru, Vec& r) const;
  bool evaluate_constraints(const Vec& y);  // Algorithm 2; true if a state changed
  double gap_rate(int r, const Vec& y) const { return row_dot(r, y) - rows_[std::size_t(r)].c; }
  void store(const Vec& y);
  double contact_merit(const Vec& y) const;

  PositionProblem& p_;
  const SolverOptions& o_;
  const CrMlcpOptions& cr_;
  const double h_;
  int nr_ = 0, np_ = 0, n_ = 0, m_ = 0;
  double eps1_ = 0.0, eps2_ = 0.0, target_ = 0.0;
  // the penetration, over eps_2, that measure() leaves to the next step: the solve's own error
  // on a row kept at its gap, which the next step's linearise() corrects
  static constexpr double kGapSlack = 0.01;
  CrVelocitySystem sys_;
  Vec Ad_inv_;
  std::vector<Row> rows_;
  std::vector<int> col_, ncol_;
  std::vector<Vec6> J_;
  std::vector<char> active_;
  std::vector<int> contact_row_, joint_row_, attachment_row_;  // first row of each block
  // (rows) a joint's bounded row at its bound (RowKind::Actuator: a drive, a joint's friction):
  // its impulse, the bound, which leaves the system for the right-hand side as kinetic
  // friction's does; 0 while the row is active
  std::vector<double> saturated_;
  std::vector<std::uint8_t> at_bound_;      // (rows) 1 while saturated_ holds the row's impulse
  int joint_end_row(std::size_t k) const {  // one past joint k's last row
    return k + 1 < joint_row_.size() ? joint_row_[k + 1] : (attachment_row_.empty() ? m_ : attachment_row_[0]);
  }
  std::vector<ContactState> cs_;
  std::vector<Vec3> x_, px_;
  std::vector<Quat> q_;
  std::vector<Vec3> w_zero_;
  std::vector<ContactConstraint> contacts_;  // rigid sides in the body frame (exact re-linearisation)
  int relinearizations_ = 0;
  int contacts_added_ = 0;
  // CR state (Algorithm 1): y, r = r_u + r_c, z = C^-1 r, p, B z, B p, A z_v, A p_v
  Vec y_, r_, ru_, z_, p_dir_, Bz_, Bp_, Az_, Ap_, q_tmp_;
  double dnorm_ = 1.0;
  int residual_evaluations_ = 0;
};

}  // namespace coulomb::cr_mlcp_detail
