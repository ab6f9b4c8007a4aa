// xpbd-jacobi: the position-level unified solver of seed 002 for rigid bodies, particles and
// tetrahedral elements, with frictional contact as a cone complementarity fixed point.
//
// Implicit Euler at position level (eq. 7-13): the solver starts from the unconstrained
// prediction (q~, v~) and moves positions and velocities together, dq = h dv with
// dv = M^-1 D dP for a change dP of a constraint's impulse (P = h gamma, so that eq. 12-13 read
// q += h M^-1 D dP, v += M^-1 D dP). Each constraint block is updated from its residual at the
// current iterate (eq. 11, 16-18, 20-21):
//     [(h + rho) D^T M^-1 D + C^-1 / h] dP = -(c(q) + rho D^T v + C^-1 P / h)
// (eq. 20-21 multiplied through by 1/h), with c the gap of a contact (rho = 0, C^-1 = 0), the
// particle-to-point error of an attachment, or the element constraint of fem/element_constraint.h
// (algorithm 3: all of an element's rows at once with a direct 6x6 solve). Friction acts on the
// tangential slip h v_T (eq. 28: Phi - h mu ||v_T|| >= 0, algorithm 2) and the friction impulse is
// projected on the Coulomb cone's disc at the current normal impulse (eq. 27, 29).
//
// Jacobi (algorithm 1, eq. 35): every block reads the same iterate; its update is scaled by
// omega / n with n the count of constraints incident to its DOFs, weighted by their inverse
// masses (the paper's estimate of 1/rho(N) from incident-constraint counts), and Nesterov
// momentum beta_{k+1} (theta_0 = 1) is added:
//     P_{k+1} = proj(P_k - omega/n N^-1 r_k + beta_{k+1} (P_k - P_{k-1})).
// (The paper prints "- beta delta gamma_k"; with delta gamma_k = gamma_k - gamma_{k-1} the momentum
// of [MHNT15] has a plus sign, which is what is implemented.) The blocks run in parallel
// (oneTBB) and write their DOF changes into per-constraint slots that are summed per DOF in a
// fixed order, so the result does not depend on the thread count. Momentum restarts (theta = 1)
// whenever the sum over blocks of (gradient step . change) turns negative, the adaptive restart
// that keeps APGD monotone in [MHNT15]. The Gauss-Seidel variant
// applies each block at once (omega = 1, beta = 0, the paper's comparison).
#include "sweep.h"

#include <coulomb/element_constraint.h>
#include <coulomb/position_problem.h>
#include <coulomb/solver.h>
#include <coulomb/timer.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>

namespace coulomb {

namespace {


// Momentum only where it goes along the block's own gradient step: a block whose step turned
// against its momentum (an overshoot, or a block already solved) drops it, a per-block form of
// the gradient restart of APGD ([MHNT15], O'Donoghue and Candes).
template <class V>
V gated(const V& step, const V& momentum) {
  return step.dot(momentum) > 0.0 ? momentum : V(V::Zero(momentum.size()));
}

Mat3 world_inv_inertia(const PositionProblem& p, int r) {
  const Mat3 R = p.q[std::size_t(r)].toRotationMatrix();
  return R * p.inv_inertia[std::size_t(r)].asDiagonal() * R.transpose();
}

// world lever arm of a rigid side's point from the centre of mass (constraints.h)
Vec3 arm(const PositionProblem& p, const PbdSide& s) { return side_arm(p.configuration(), s); }

Vec3 side_velocity(const PositionProblem& p, const PbdSide& s) {
  if (s.rigid >= 0) {
    const auto r = std::size_t(s.rigid);
    return p.v[r] + p.w[r].cross(arm(p, s));
  }
  Vec3 v = Vec3::Zero();
  for (int i = 0; i < 3; ++i)
    if (s.particle[std::size_t(i)] >= 0) v += s.weight[i] * p.pv[std::size_t(s.particle[std::size_t(i)])];
  return v;
}

// d^T M^-1 d for a unit impulse along d at the side (the side's share of a diagonal of N / h).
double side_inv_mass(const PositionProblem& p, const PbdSide& s, const Vec3& d) {
  if (s.rigid >= 0) {
    const auto r = std::size_t(s.rigid);
    if (!(p.inv_mass[r] > 0.0)) return 0.0;
    const Vec3 rxd = arm(p, s).cross(d);
    return p.inv_mass[r] + rxd.dot(world_inv_inertia(p, s.rigid) * rxd);
  }
  double m = 0.0;
  for (int i = 0; i < 3; ++i)
    if (s.particle[std::size_t(i)] >= 0)
      m += s.weight[i] * s.weight[i] * p.p_inv_mass[std::size_t(s.particle[std::size_t(i)])];
  return m;
}

// The 3x3 inverse-mass matrix of a side for impulses at its point (attachments).
Mat3 side_inv_mass_matrix(const PositionProblem& p, const PbdSide& s) {
  if (s.rigid >= 0) {
    const auto r = std::size_t(s.rigid);
    if (!(p.inv_mass[r] > 0.0)) return Mat3::Zero();
    const Mat3 rx = skew(arm(p, s));
    return p.inv_mass[r] * Mat3::Identity() - rx * world_inv_inertia(p, s.rigid) * rx;
  }
  return side_inv_mass(p, s, Vec3::UnitX()) * Mat3::Identity();
}

// A DOF change: velocity change dv (and dw for rigid DOFs); the position change is h times it.
struct Slot {
  int owner = -1;  // particle index, or num_particles + rigid index
  Vec3 dv = Vec3::Zero();
  Vec3 dw = Vec3::Zero();
};

class Solver {
 public:
  Solver(PositionProblem& p, const SolverOptions& o) : p_(p), o_(o), h_(p.dt) {
    p_.size_impulses();
    np_ = p_.num_particles();
    build_slots();
  }

  SolverStats run();

 private:
  // constraint index space: contacts, then elements, then attachments, then joints
  int nc() const { return int(p_.contacts.size()); }
  int ne() const { return int(p_.elements.size()); }
  int na() const { return int(p_.attachments.size()); }
  int nj() const { return int(p_.joints.size()); }
  int count() const { return nc() + ne() + na() + nj(); }

  void add_slot(int owner, double inv_mass) {
    slot_owner_.push_back(owner);
    slot_weight_.push_back(inv_mass);
  }
  void add_side_slots(const PbdSide& s) {
    if (s.rigid >= 0) {
      if (p_.inv_mass[std::size_t(s.rigid)] > 0.0) add_slot(np_ + s.rigid, p_.inv_mass[std::size_t(s.rigid)]);
      return;
    }
    for (int i = 0; i < 3; ++i) {
      const int q = s.particle[std::size_t(i)];
      if (q >= 0 && p_.p_inv_mass[std::size_t(q)] > 0.0 && s.weight[i] != 0.0)
        add_slot(q, s.weight[i] * s.weight[i] * p_.p_inv_mass[std::size_t(q)]);
    }
  }
  void build_slots();
  double update(int k, double omega, double beta, Slot* slots);
  double update_contact(int k, double omega, double beta, Slot* slots);
  double update_element(int k, double omega, double beta, Slot* slots);
  // the block update of an element's R rows (eq. 20-21, algorithm 3): the gradient step and the
  // change with gated momentum, both with zero rows past R
  template <int R>
  void element_step(const ElementConstraint& ec, const Vec12& im, const Vec12& v, double rho, double omega,
                    const Vec6& P, const Vec6& momentum, Vec6& step, Vec6& dP) const {
    using MatR = Eigen::Matrix<double, R, R>;
    using VecR = Eigen::Matrix<double, R, 1>;
    const auto J = ec.J.template topRows<R>();
    const MatR Cinv = ec.compliance.template topLeftCorner<R, R>();
    // lazyProduct: Eigen sends a fixed-size product with rows + depth + cols >= 20 (6 + 12 + 6
    // here) to its blocked GEMM kernel, which packed and unpacked 6x12 blocks at every update
    const MatR N = (h_ + rho) * (J * im.asDiagonal()).lazyProduct(J.transpose()) + Cinv / h_;
    const VecR r = ec.c.template head<R>() + rho * (J * v) + Cinv * P.template head<R>() / h_;
    // N is symmetric positive definite when the compliance is (every material with mu > 0):
    // Cholesky, without LDLT's pivoting; LDLT where the factorisation fails
    const Eigen::LLT<MatR> llt(N);
    const VecR s = -omega * (llt.info() == Eigen::Success ? VecR(llt.solve(r)) : VecR(N.ldlt().solve(r)));
    step.template head<R>() = s;
    dP.template head<R>() = s + gated(s, VecR(momentum.template head<R>()));
  }
  double update_attachment(int k, double omega, double beta, Slot* slots);
  double update_joint(int k, double omega, double beta, Slot* slots);
  // adds the DOF change of impulses dP on a block's rows (J^T dP through M^-1) into its slots
  void push_rows(const BlockRows& rows, const JointImpulse& dP, Slot*& slots);
  // adds the effect of impulse J at side s into the slots of s (Jacobi) or the DOFs (Gauss-Seidel)
  void push(const PbdSide& s, const Vec3& J, Slot*& slots);
  void push_particle(int q, const Vec3& J, Slot*& slots);
  void apply(const Slot& s);
  double constraint_error() const;

  PositionProblem& p_;
  const SolverOptions& o_;
  const double h_;
  int np_ = 0;
  bool gs_ = false;
  std::vector<int> slot_start_, slot_owner_;    // per constraint, CSR
  std::vector<int> owner_start_, owner_slots_;  // per DOF owner, CSR over slot indices
  std::vector<double> slot_weight_;             // inverse mass of the slot's DOF in the block
  std::vector<double> scale_;                   // per constraint: weighted incidence of its DOFs
  std::vector<Slot> slots_;
  std::vector<double> progress_;  // per constraint: gradient step . actual change (restart test)
  std::vector<Vec3> prev_contact_, prev_attach_, cur_contact_, cur_attach_;  // P_{k-1}, P_k (Jacobi)
  std::vector<Vec6> prev_element_, cur_element_;
  std::vector<JointImpulse> prev_joint_, cur_joint_;
  ElementConstraint ec_;  // scratch for Gauss-Seidel (Jacobi threads use their own)
};

void Solver::build_slots() {
  slot_start_.assign(1, 0);
  slot_owner_.clear();
  slot_weight_.clear();
  for (const PbdContact& c : p_.contacts) {
    add_side_slots(c.a);
    add_side_slots(c.b);
    slot_start_.push_back(int(slot_owner_.size()));
  }
  for (const PbdElement& e : p_.elements) {
    for (int q : e.particle)
      if (p_.p_inv_mass[std::size_t(q)] > 0.0) add_slot(q, p_.p_inv_mass[std::size_t(q)]);
    slot_start_.push_back(int(slot_owner_.size()));
  }
  for (const PbdAttachment& a : p_.attachments) {
    if (p_.p_inv_mass[std::size_t(a.particle)] > 0.0) add_slot(a.particle, p_.p_inv_mass[std::size_t(a.particle)]);
    add_side_slots(a.target);
    slot_start_.push_back(int(slot_owner_.size()));
  }
  // joints: slots in the order joint_rows lists the bodies' DOFs (a, then b)
  for (const JointConstraint& j : p_.joints) {
    for (int body : {j.a, j.b})
      if (body >= 0 && p_.inv_mass[std::size_t(body)] > 0.0) add_slot(np_ + body, p_.inv_mass[std::size_t(body)]);
    slot_start_.push_back(int(slot_owner_.size()));
  }
  const int owners = np_ + p_.num_rigid();
  owner_start_.assign(std::size_t(owners) + 1, 0);
  for (int o : slot_owner_) ++owner_start_[std::size_t(o) + 1];
  for (int i = 0; i < owners; ++i) owner_start_[std::size_t(i) + 1] += owner_start_[std::size_t(i)];
  owner_slots_.resize(slot_owner_.size());
  std::vector<int> fill(owner_start_.begin(), owner_start_.end() - 1);
  for (std::size_t s = 0; s < slot_owner_.size(); ++s)
    owner_slots_[std::size_t(fill[std::size_t(slot_owner_[s])]++)] = int(s);
  // 1 / rho(D^-1 N) per block row by Gershgorin: a block couples to every other constraint on
  // its DOFs in proportion to that DOF's inverse mass, so the row sum of D^-1 N is about the
  // incidence count of its DOFs weighted by their share of the block's inverse mass. (The plain
  // largest count would make a light particle touching a heavy body with 100 contacts move
  // 1/100 of its correction, and the body sink into a soft surface.)
  scale_.assign(std::size_t(count()), 1.0);
  for (int k = 0; k < count(); ++k) {
    double num = 0.0, den = 0.0;
    for (int s = slot_start_[std::size_t(k)]; s < slot_start_[std::size_t(k) + 1]; ++s) {
      const int o = slot_owner_[std::size_t(s)];
      num += slot_weight_[std::size_t(s)] * (owner_start_[std::size_t(o) + 1] - owner_start_[std::size_t(o)]);
      den += slot_weight_[std::size_t(s)];
    }
    if (den > 0.0) scale_[std::size_t(k)] = std::max(1.0, num / den);
  }
  slots_.resize(slot_owner_.size());
  for (std::size_t s = 0; s < slots_.size(); ++s) slots_[s].owner = slot_owner_[s];
}

void Solver::push_particle(int q, const Vec3& J, Slot*& slots) {
  const double im = p_.p_inv_mass[std::size_t(q)];
  if (!(im > 0.0)) return;
  if (gs_) {
    p_.pv[std::size_t(q)] += im * J;
    p_.px[std::size_t(q)] += h_ * im * J;
    return;
  }
  slots->dv = im * J;
  slots->dw.setZero();
  ++slots;
}

void Solver::push(const PbdSide& s, const Vec3& J, Slot*& slots) {
  if (s.rigid >= 0) {
    const auto r = std::size_t(s.rigid);
    if (!(p_.inv_mass[r] > 0.0)) return;
    Slot d;
    d.owner = np_ + s.rigid;
    d.dv = p_.inv_mass[r] * J;
    d.dw = world_inv_inertia(p_, s.rigid) * arm(p_, s).cross(J);
    if (gs_) {
      apply(d);
    } else {
      slots->dv = d.dv;
      slots->dw = d.dw;
      ++slots;
    }
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const int q = s.particle[std::size_t(i)];
    if (q >= 0 && s.weight[i] != 0.0) push_particle(q, s.weight[i] * J, slots);
  }
}

// x += h dv, v += dv; rigid: Q += h/2 (0, dw) Q, normalised (seed 002 eq. 33), w += dw
void Solver::apply(const Slot& d) {
  if (d.owner < np_) {
    p_.pv[std::size_t(d.owner)] += d.dv;
    p_.px[std::size_t(d.owner)] += h_ * d.dv;
    return;
  }
  const auto r = std::size_t(d.owner - np_);
  p_.v[r] += d.dv;
  p_.x[r] += h_ * d.dv;
  p_.w[r] += d.dw;
  const Vec3 th = 0.5 * h_ * d.dw;
  Quat& q = p_.q[r];
  q.coeffs() += (Quat(0.0, th.x(), th.y(), th.z()) * q).coeffs();
  q.normalize();
}

// Algorithm 2: the normal impulse from the gap, the friction impulse from the slip, then the
// friction impulse into the Coulomb cone (eq. 27).
double Solver::update_contact(int k, double omega, double beta, Slot* slots) {
  const PbdContact& c = p_.contacts[std::size_t(k)];
  Vec3& P = p_.contact_impulse[std::size_t(k)];
  const Vec3 n = c.normal;
  Vec3 t, s;
  tangent_basis(n, t, s);
  const double wn = side_inv_mass(p_, c.a, n) + side_inv_mass(p_, c.b, n);
  if (!(wn > 0.0)) return 0.0;
  // the gradient steps: normal from the gap at the current positions (eq. 25, algorithm 2
  // line 4), friction cancelling the slip h v_T over the step (eq. 28) along the slip direction
  Vec3 step(-omega * contact_gap(p_, c) / (h_ * wn), 0.0, 0.0);
  const Vec3 vrel = side_velocity(p_, c.b) - side_velocity(p_, c.a);
  const Vec3 vt = vrel - n.dot(vrel) * n;
  const double slip = vt.norm();
  if (c.mu > 0.0 && slip > 1e-12) {
    const Vec3 tau = vt / slip;
    const double wt = side_inv_mass(p_, c.a, tau) + side_inv_mass(p_, c.b, tau);
    if (wt > 0.0) {
      const double dT = -omega * slip / wt;
      step[1] = dT * tau.dot(t);
      step[2] = dT * tau.dot(s);
    }
  }
  const Vec3 momentum = gated(step, Vec3(beta * (P - prev_contact_[std::size_t(k)])));
  Vec3 Pn = P;
  Pn[0] = std::max(0.0, P[0] + step[0] + momentum[0]);
  if (c.mu > 0.0) {
    const Vec3 ft = P + step + momentum;
    // the friction impulse onto the disc of the cone at the current normal impulse: the exact,
    // isotropic Coulomb law (the joint projection of [TA11] would lift sliding bodies, the
    // "normal impulse artifact" of the convexified cone the paper warns about in s.2.4)
    const double len = std::hypot(ft[1], ft[2]), cap = c.mu * Pn[0];
    const double scale = len > cap ? cap / len : 1.0;
    Pn[1] = scale * ft[1];
    Pn[2] = scale * ft[2];
  } else {
    Pn[1] = Pn[2] = 0.0;
  }
  const Vec3 dP = Pn - P;
  progress_[std::size_t(k)] = step.dot(dP);
  P = Pn;
  const Vec3 J = dP[0] * n + dP[1] * t + dP[2] * s;  // impulse on side b
  push(c.a, -J, slots);
  push(c.b, J, slots);
  return dP.cwiseAbs().maxCoeff();
}

// Algorithm 3 with compliance and Rayleigh damping (eq. 16-21): one block solve of the
// element's rows.
double Solver::update_element(int k, double omega, double beta, Slot* slots) {
  const PbdElement& e = p_.elements[std::size_t(k)];
  const PbdMaterial& m = p_.materials[std::size_t(e.material)];
  ElementConstraint local;
  ElementConstraint& ec = gs_ ? ec_ : local;
  const std::array<Vec3, 4> x{p_.px[std::size_t(e.particle[0])], p_.px[std::size_t(e.particle[1])],
                              p_.px[std::size_t(e.particle[2])], p_.px[std::size_t(e.particle[3])]};
  element_constraint(m.model, m.lame, x, e.Dm_inv, e.volume, ec);
  const int rows = ec.rows;
  if (rows == 0) return 0.0;  // no constraint form (the World rejects such materials at load)
  Vec12 im, v;
  for (int i = 0; i < 4; ++i) {
    im.segment<3>(3 * i).setConstant(p_.p_inv_mass[std::size_t(e.particle[std::size_t(i)])]);
    v.segment<3>(3 * i) = p_.pv[std::size_t(e.particle[std::size_t(i)])];
  }
  Vec6& P6 = p_.element_impulse[std::size_t(k)];
  Vec6 step = Vec6::Zero(), dP = Vec6::Zero();
  const Vec6 momentum = beta * (P6 - prev_element_[std::size_t(k)]);
  // fixed-size blocks: 6 rows (strain forms) or 3 (Neo-Hookean)
  if (rows == 6) element_step<6>(ec, im, v, m.damping, omega, P6, momentum, step, dP);
  else element_step<3>(ec, im, v, m.damping, omega, P6, momentum, step, dP);
  if (!dP.allFinite()) return 0.0;
  progress_[std::size_t(nc() + k)] = step.dot(dP);
  P6 += dP;
  const Vec12 f = ec.J.transpose() * dP;
  for (int i = 0; i < 4; ++i) push_particle(e.particle[std::size_t(i)], f.segment<3>(3 * i), slots);
  return dP.cwiseAbs().maxCoeff();
}

double Solver::update_attachment(int k, double omega, double beta, Slot* slots) {
  const PbdAttachment& a = p_.attachments[std::size_t(k)];
  PbdSide particle;
  particle.particle[0] = a.particle;
  particle.weight = Vec3(1.0, 0.0, 0.0);
  const Vec3 c = p_.px[std::size_t(a.particle)] - side_position(p_.configuration(), a.target);
  const Mat3 K = side_inv_mass_matrix(p_, particle) + side_inv_mass_matrix(p_, a.target);
  if (!(K.trace() > 0.0)) return 0.0;
  Vec3& P = p_.attachment_impulse[std::size_t(k)];
  const Vec3 step = -omega * K.ldlt().solve(c / h_);
  const Vec3 dP = step + gated(step, Vec3(beta * (P - prev_attach_[std::size_t(k)])));
  progress_[std::size_t(nc() + ne() + k)] = step.dot(dP);
  P += dP;
  push(particle, dP, slots);
  push(a.target, -dP, slots);
  return dP.cwiseAbs().maxCoeff();
}

void Solver::push_rows(const BlockRows& rows, const JointImpulse& dP, Slot*& slots) {
  for (int d = 0; d < rows.dofs; ++d) {
    const int dof = rows.dof[std::size_t(d)];
    if (dof >= p_.num_rigid()) continue;  // joints act on rigid bodies only
    const auto r = std::size_t(dof);
    if (!(p_.inv_mass[r] > 0.0)) continue;
    const Vec6 f = rows.J.middleCols<6>(6 * d).topRows(rows.rows).transpose() * dP.head(rows.rows);
    Slot s;
    s.owner = np_ + dof;
    s.dv = p_.inv_mass[r] * f.head<3>();
    s.dw = world_inv_inertia(p_, dof) * f.tail<3>();
    if (gs_) {
      apply(s);
    } else {
      slots->dv = s.dv;
      slots->dw = s.dw;
      ++slots;
    }
  }
}

// A joint block (constraints.h joint_rows, re-evaluated at the current iterate): its equality
// rows by one block solve of eq. 20-21 with compliance, [h J M^-1 J^T + alpha / h] dP =
// -(C + alpha P / h), then its other rows one at a time: limits with P >= 0, a bounded drive
// within its force bound.
double Solver::update_joint(int k, double omega, double beta, Slot* slots) {
  const JointConstraint& j = p_.joints[std::size_t(k)];
  BlockRows rows;
  joint_rows(p_.configuration(), j, rows);
  const int n = rows.rows;
  int m = 0;
  while (m < n && rows.kind[std::size_t(m)] == RowKind::Bilateral) ++m;
  // N = h J M^-1 J^T + alpha / h over the block's rows
  using MatN = Eigen::Matrix<double, kMaxBlockRows, kMaxBlockRows>;
  MatN N = MatN::Zero();
  for (int d = 0; d < rows.dofs; ++d) {
    const int dof = rows.dof[std::size_t(d)];
    if (dof >= p_.num_rigid() || !(p_.inv_mass[std::size_t(dof)] > 0.0)) continue;
    const auto Jd = rows.J.middleCols<6>(6 * d);
    Eigen::Matrix<double, 6, 6> Minv = Eigen::Matrix<double, 6, 6>::Zero();
    Minv.topLeftCorner<3, 3>() = p_.inv_mass[std::size_t(dof)] * Mat3::Identity();
    Minv.bottomRightCorner<3, 3>() = world_inv_inertia(p_, dof);
    N.noalias() += h_ * Jd * Minv * Jd.transpose();
  }
  N += rows.compliance / h_;
  JointImpulse& P = p_.joint_impulse[std::size_t(k)];
  const JointImpulse r = rows.value + rows.compliance * P / h_;
  JointImpulse step = JointImpulse::Zero();
  if (m > 0) {
    const Eigen::MatrixXd Nm = N.topLeftCorner(m, m);
    const Eigen::LDLT<Eigen::MatrixXd> ldlt(Nm);
    if (ldlt.info() == Eigen::Success) step.head(m) = -omega * ldlt.solve(r.head(m));
  }
  for (int i = m; i < n; ++i)
    if (N(i, i) > 0.0) step[i] = -omega * r[i] / N(i, i);
  if (!step.allFinite()) return 0.0;
  const JointImpulse momentum = gated(step, JointImpulse(beta * (P - prev_joint_[std::size_t(k)])));
  JointImpulse Pn = P + step + momentum;
  // limit rows push only; a bounded drive's impulse stays within its force bound times h
  for (int i = m; i < n; ++i) {
    const RowKind kind = rows.kind[std::size_t(i)];
    if (kind == RowKind::Limit) Pn[i] = std::max(0.0, Pn[i]);
    if (kind == RowKind::Actuator) Pn[i] = std::clamp(Pn[i], rows.lo[i] * h_, rows.hi[i] * h_);
  }
  const JointImpulse dP = Pn - P;
  progress_[std::size_t(nc() + ne() + na() + k)] = step.dot(dP);
  P = Pn;
  push_rows(rows, dP, slots);
  return dP.cwiseAbs().maxCoeff();
}

double Solver::update(int k, double omega, double beta, Slot* slots) {
  if (!gs_)  // a block that returns early leaves no stale change behind
    for (int i = slot_start_[std::size_t(k)]; i < slot_start_[std::size_t(k) + 1]; ++i) {
      slots_[std::size_t(i)].dv.setZero();
      slots_[std::size_t(i)].dw.setZero();
    }
  if (k < nc()) return update_contact(k, omega, beta, slots);
  if (k < nc() + ne()) return update_element(k - nc(), omega, beta, slots);
  if (k < nc() + ne() + na()) return update_attachment(k - nc() - ne(), omega, beta, slots);
  return update_joint(k - nc() - ne() - na(), omega, beta, slots);
}

// L2 norm of the contact penetrations and attachment errors at the current positions: the
// constraint error of seed 002 figure 9.
double Solver::constraint_error() const {
  double e = 0.0;
  for (const PbdContact& c : p_.contacts) e += std::pow(std::min(0.0, contact_gap(p_, c)), 2);
  for (const PbdAttachment& a : p_.attachments)
    e += (p_.px[std::size_t(a.particle)] - side_position(p_.configuration(), a.target)).squaredNorm();
  BlockRows rows;
  for (const JointConstraint& j : p_.joints) {
    joint_rows(p_.configuration(), j, rows);
    for (int r = 0; r < rows.rows; ++r) {
      const RowKind kind = rows.kind[std::size_t(r)];
      if (kind == RowKind::Actuator) continue;  // a saturated drive is not violated
      e += std::pow(kind == RowKind::Limit ? std::min(0.0, rows.value[r]) : rows.value[r], 2);
    }
  }
  return std::sqrt(e);
}

SolverStats Solver::run() {
  const Stopwatch watch;
  SolverStats st;
  gs_ = o_.xpbd.gauss_seidel;
  // every step starts from zero impulses (no warm start at position level: solvers/README.md)
  std::fill(p_.contact_impulse.begin(), p_.contact_impulse.end(), Vec3::Zero());
  std::fill(p_.element_impulse.begin(), p_.element_impulse.end(), Vec6::Zero());
  std::fill(p_.attachment_impulse.begin(), p_.attachment_impulse.end(), Vec3::Zero());
  std::fill(p_.joint_impulse.begin(), p_.joint_impulse.end(), JointImpulse::Zero());
  prev_contact_ = p_.contact_impulse;
  prev_element_ = p_.element_impulse;
  prev_attach_ = p_.attachment_impulse;
  prev_joint_ = p_.joint_impulse;

  const bool nesterov = o_.xpbd.nesterov && !gs_;
  double theta = 1.0;
  const int n = count();
  progress_.assign(std::size_t(n), 0.0);
  std::vector<double> change(std::size_t(n), 0.0);
  for (int it = 0; it < o_.max_iterations; ++it) {
    double beta = 0.0;
    if (nesterov) {  // eq. 35 with theta_0 = 1 ([MHNT15])
      const double next = 0.5 * (-theta * theta + theta * std::sqrt(theta * theta + 4.0));
      beta = theta * (1.0 - theta) / (theta * theta + next);
      theta = next;
    }
    double max_change = 0.0, max_impulse = 0.0;
    if (gs_) {
      for (int k = 0; k < n; ++k) max_change = std::max(max_change, update(k, o_.xpbd.omega, 0.0, nullptr));
    } else {
      // keep P_k: after the sweep it becomes P_{k-1} of the momentum term (buffers reused)
      cur_contact_.assign(p_.contact_impulse.begin(), p_.contact_impulse.end());
      cur_element_.assign(p_.element_impulse.begin(), p_.element_impulse.end());
      cur_attach_.assign(p_.attachment_impulse.begin(), p_.attachment_impulse.end());
      cur_joint_.assign(p_.joint_impulse.begin(), p_.joint_impulse.end());
      detail::jacobi_sweep(n, o_.threads, [&](int begin, int end) {
        for (int k = begin; k < end; ++k) {
          Slot* slots = slots_.data() + slot_start_[std::size_t(k)];
          change[std::size_t(k)] = update(k, o_.xpbd.omega / scale_[std::size_t(k)], beta, slots);
        }
      });
      prev_contact_.swap(cur_contact_);
      prev_element_.swap(cur_element_);
      prev_attach_.swap(cur_attach_);
      prev_joint_.swap(cur_joint_);
      // gather per DOF in slot order (deterministic), then move the DOFs
      const int owners = np_ + p_.num_rigid();
      tbb::parallel_for(tbb::blocked_range<int>(0, owners, 256), [&](const tbb::blocked_range<int>& range) {
        for (int o = range.begin(); o < range.end(); ++o) {
          const int b = owner_start_[std::size_t(o)], e = owner_start_[std::size_t(o) + 1];
          if (b == e) continue;
          Slot sum;
          sum.owner = o;
          for (int i = b; i < e; ++i) {
            const Slot& s = slots_[std::size_t(owner_slots_[std::size_t(i)])];
            sum.dv += s.dv;
            sum.dw += s.dw;
          }
          apply(sum);
        }
      });
      for (double c : change) max_change = std::max(max_change, c);
      // adaptive restart ([MHNT15], O'Donoghue and Candes): when the momentum carries the
      // iterate against the gradient steps, drop it and start the sequence again
      double progress = 0.0;
      for (double d : progress_) progress += d;
      if (nesterov && progress < 0.0) {
        theta = 1.0;
        prev_contact_ = p_.contact_impulse;
        prev_element_ = p_.element_impulse;
        prev_attach_ = p_.attachment_impulse;
        prev_joint_ = p_.joint_impulse;
      }
    }
    for (const Vec3& P : p_.contact_impulse) max_impulse = std::max(max_impulse, P.cwiseAbs().maxCoeff());
    for (const Vec3& P : p_.attachment_impulse) max_impulse = std::max(max_impulse, P.cwiseAbs().maxCoeff());
    for (const JointImpulse& P : p_.joint_impulse) max_impulse = std::max(max_impulse, P.cwiseAbs().maxCoeff());
    st.iterations = it + 1;
    if (o_.record_history) st.history.push_back(constraint_error());
    if (max_change <= o_.abs_tol || max_change <= o_.rel_tol * max_impulse) break;
    if (it + 1 == o_.max_iterations) st.converged = false;
  }
  st.residual = constraint_error();
  // There is no linear map v = A lambda + b at position level, so the FCLib merit does not apply;
  // the constraint error stands in for it (solvers/README.md).
  st.merit = st.residual;
  st.time_ms = watch.ms();
  return st;
}

}  // namespace

SolverStats solve_xpbd(PositionProblem& problem, const SolverOptions& options) {
  Solver s(problem, options);
  return s.run();
}

}  // namespace coulomb
