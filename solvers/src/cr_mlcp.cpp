// cr-mlcp: seed 004's collision response. The semi-implicit system A v = b of rigid bodies and FEM
// soft bodies (eq. 4, cr_mlcp_system.cpp) with the constraint rows of the one constraint interface
// (dynamics/constraints.h) as the saddle-point system B y = d (eq. 11, 20), solved by the
// preconditioned conjugate residual method of Algorithm 1 with constraints that switch state during
// the iteration (Algorithm 2) and kinetic friction as an estimated force (Algorithm 3). B is never
// formed and neither is the Delassus operator: B y is A v (sparse) plus products with the rows.
//
// Unknowns and signs. y = (v, lambda): the velocities of the DOFs that move (6 per rigid body,
// 3 per particle) and one impulse per constraint row (unit: N s, physical sign: the force on the
// DOFs is J^T lambda, a normal impulse > 0 pushes apart). Each row is linearised at a configuration
// x^*: C(x^* + h (v - v^*)) ~ C(x^*) + h J (v - v^*), which gives, with target = eps_2 / 2,
//   normal, limit    J v >= c,  c = J v^* + (target - C(x^*)) / h     (eq. 7, unilateral, active set)
//   static friction  J_t v = c_t = 0 (the contact point does not slide; s.3.2, eq. 15)
//   bilateral        J v + D lambda = c, D = alpha / h^2, c = J v^* - C(x^*) / h (joints, attachments)
// and the symmetric (indefinite) system
//   B = [ A  -J_a^T ]   d = [ b + J_k^T gamma^ ]   (J_a: the active rows; J_k: kinetic friction,
//       [-J_a  -D   ]       [ -c               ]    its force gamma^ on the right-hand side, eq. 17)
// Inactive rows (open contacts, kinetic friction rows) are absent: their multiplier stays 0.
// The residual is r = d - B y = r_u + r_c (s.3.5), r_u = b - A v kept by recurrence, r_c the rows'
// part, recomputed without a product with A whenever a constraint changes state.
//
// Preconditioners (s.3.4, eq. 22), A_d = diag(A), S_d = diag(Z J A_d^-1 J^T) + D:
//   diag  C^-1 = [A_d^-1, 0; 0, S_d^-1]
//   full  eq. 22 with A_d and S_d: t = S_d^-1 (-J A_d^-1 r_v - r_l), z_l = t, z_v = A_d^-1 (r_v + J^T t)
// Z (s.3.4.1) counts near-duplicate constraints: for contacts on particles the sum over contacts
// sharing particles of prod_i (1 - |w_a,i - w_b,i|); for contacts between two rigid bodies the
// number of contacts between them.
//
// Before the first iteration the candidate lists are checked with CCD along the prediction (lines
// 5-6): pairs that collide on the way to x(v~) join as rows, linearised at x(v~).
//
// Convergence (Algorithm 1 line 22): ||r|| < eps_1 ||d|| and h ||U r||_inf < eps_2 (U: the active
// rows; h turns their velocity residual into a distance), or ||B C^-1 r|| < eps_1 ||d|| (a local
// minimum, s.4.3). Then the constraints are evaluated once more (line 23), every contact's gap is
// measured at the new configuration (line 25: a contact the linear model missed is activated) and,
// if any gap differs from its linear model by more than eps_2 / 4, all rows are re-linearised at the
// new configuration (line 27, eq. 21 with w = 0, i.e. Newton's method; normals are the problem's,
// fixed over the step) and the method goes on. The step ends when nothing changes: every active
// normal row then satisfies 0 <= C_k(x) < eps_2 and every inactive one C_k(x) >= 0.
// stats.converged says exactly that; it is false when max_iterations CR iterations or
// max_relinearizations rounds ran out first.
#include "cr_mlcp_solver.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace coulomb {

namespace cr_mlcp_detail {

void CrMlcp::setup() {
  nr_ = p_.num_rigid();
  np_ = p_.num_particles();
  if (p_.x0.size() != p_.x.size()) {
    p_.x0.resize(p_.x.size());
    for (int i = 0; i < nr_; ++i) p_.x0[std::size_t(i)] = p_.x[std::size_t(i)] - h_ * p_.v[std::size_t(i)];
  }
  if (p_.q0.size() != p_.q.size()) p_.q0 = p_.q;  // a hand-built problem: rotation over the step ignored
  if (p_.px0.size() != p_.px.size()) {
    p_.px0.resize(p_.px.size());
    for (int j = 0; j < np_; ++j) p_.px0[std::size_t(j)] = p_.px[std::size_t(j)] - h_ * p_.pv[std::size_t(j)];
  }
  build_cr_velocity_system(p_, cr_, sys_);
  n_ = sys_.size;
  Ad_inv_ = sys_.A.diagonal().cwiseInverse();
  eps1_ = o_.rel_tol;
  eps2_ = o_.abs_tol;
  target_ = 0.5 * eps2_;
  w_zero_.assign(std::size_t(nr_), Vec3::Zero());
  // contacts with exact rigid sides: the lever arm fixed at q^l turns with the body (body frame)
  contacts_ = p_.contacts;
  for (ContactConstraint& c : contacts_)
    for (ConstraintSide* s : {&c.a, &c.b})
      if (s->is_rigid() && !s->body_frame) {
        s->anchor = p_.q0[std::size_t(s->rigid)].conjugate() * s->anchor;
        s->body_frame = true;
      }
  cs_.assign(contacts_.size(), ContactState{});
}

void CrMlcp::set_configuration(const Vec& v) {
  x_.resize(std::size_t(nr_));
  q_.resize(std::size_t(nr_));
  px_.resize(std::size_t(np_));
  for (int i = 0; i < nr_; ++i) {
    const auto k = std::size_t(i);
    const int c = sys_.offset[k];
    const Vec3 lin = c >= 0 ? Vec3(v.segment<3>(c)) : Vec3(sys_.v_fixed.segment<3>(6 * i));
    const Vec3 ang = c >= 0 ? Vec3(v.segment<3>(c + 3)) : Vec3(sys_.v_fixed.segment<3>(6 * i + 3));
    x_[k] = p_.x0[k] + h_ * lin;
    const Eigen::Vector4d dq = h_ * quaternion_rate(p_.q0[k], ang);  // seed 003 eq. 50, as newton-pcr
    q_[k] = Quat(p_.q0[k].w() + dq[0], p_.q0[k].x() + dq[1], p_.q0[k].y() + dq[2], p_.q0[k].z() + dq[3]).normalized();
  }
  for (int j = 0; j < np_; ++j) {
    const int c = sys_.offset[std::size_t(nr_ + j)];
    const Vec3 u = c >= 0 ? Vec3(v.segment<3>(c)) : Vec3(sys_.v_fixed.segment<3>(6 * (nr_ + j)));
    px_[std::size_t(j)] = p_.px0[std::size_t(j)] + h_ * u;
  }
}

// Rows at the current configuration (x_, q_, px_), linearised about the velocities vstar of the
// DOFs that move: null = at x^l (v^* = 0; the fixed DOFs' known motion h v_fixed enters c), else
// at x(v^*) (their motion is then in C(x^*)).
void CrMlcp::linearise(const Vec* vstar) {
  const Configuration cfg = configuration();
  const bool first = rows_.empty() && active_.empty();
  rows_.clear();
  col_.clear();
  ncol_.clear();
  J_.clear();
  BlockRows b;
  const auto add_block = [&](int contact) {
    for (int r = 0; r < b.rows; ++r) {
      Row row;
      row.kind = b.kind[std::size_t(r)];
      row.contact = contact;
      row.value = b.value[r];
      row.D = b.compliance(r, r) / (h_ * h_);
      if (row.kind == RowKind::Actuator) row.lo = b.lo[r] * h_, row.hi = b.hi[r] * h_;
      row.e0 = int(col_.size());
      double Jv_fixed = 0.0, Jv_star = 0.0;
      for (int d = 0; d < b.dofs; ++d) {
        const int dof = b.dof[std::size_t(d)];
        const int c = sys_.offset[std::size_t(dof)];
        const int nc = dof < nr_ ? 6 : 3;
        const Vec6 Jd = b.J.block<1, 6>(r, 6 * d).transpose();
        if (c < 0) {
          Jv_fixed += Jd.head(nc).dot(sys_.v_fixed.segment(6 * dof, nc));
          continue;
        }
        if (Jd.head(nc).isZero(0.0)) continue;
        if (vstar) Jv_star += Jd.head(nc).dot(vstar->segment(c, nc));
        col_.push_back(c);
        ncol_.push_back(nc);
        J_.push_back(Jd);
      }
      row.e1 = int(col_.size());
      switch (row.kind) {
        case RowKind::ContactNormal:
        case RowKind::Limit:
          // an active constraint must end within [0, eps_2) (s.3.3, after eq. 21), which the
          // band's middle, eps_2 / 2, leaves room for the solve's error on both sides. A gap in
          // the band's lower half stays where it is and one penetrating by d moves to min(d,
          // middle) above 0: lifting a resting gap to the middle would throw the body up at
          // eps_2 / (2 h). A gap above the middle moves down to it.
          row.want = row.value < 0.0 ? std::min(target_, -row.value) : row.value < target_ ? row.value : target_;
          row.c = vstar ? Jv_star + (row.want - row.value) / h_ : (row.want - row.value) / h_ - Jv_fixed;
          break;
        case RowKind::ContactFriction: row.c = -Jv_fixed; break;  // no sliding (static friction)
        default: row.c = vstar ? Jv_star - row.value / h_ : -row.value / h_ - Jv_fixed; break;
      }
      rows_.push_back(row);
    }
  };
  contact_row_.resize(contacts_.size());
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    contact_rows(cfg, contacts_[k], b);
    contact_row_[k] = int(rows_.size());
    add_block(int(k));
  }
  joint_row_.resize(p_.joints.size());
  for (std::size_t k = 0; k < p_.joints.size(); ++k) {
    joint_rows(cfg, p_.joints[k], b);
    joint_row_[k] = int(rows_.size());
    add_block(-1);
  }
  attachment_row_.resize(p_.attachments.size());
  for (std::size_t k = 0; k < p_.attachments.size(); ++k) {
    attachment_rows(cfg, p_.attachments[k], b);
    attachment_row_[k] = int(rows_.size());
    add_block(-1);
  }
  m_ = int(rows_.size());
  if (first) {
    active_.assign(std::size_t(m_), 0);
    for (int r = 0; r < m_; ++r)
      if (rows_[std::size_t(r)].kind == RowKind::Bilateral || rows_[std::size_t(r)].kind == RowKind::Actuator)
        active_[std::size_t(r)] = 1;
    saturated_.assign(std::size_t(m_), 0.0);
    at_bound_.assign(std::size_t(m_), 0);
  }
  precompute_S();
}

void CrMlcp::start_configuration() {
  x_ = p_.x0;
  q_ = p_.q0;
  px_ = p_.px0;
}

// Z of s.3.4.1, per contact.
void CrMlcp::duplicate_scaling() {
  const std::size_t nc = contacts_.size();
  for (ContactState& c : cs_) c.Z = 1.0;
  if (!cr_.duplicate_scaling) return;
  // particle -> (contact, weight) of the contacts that move it
  std::vector<std::vector<std::pair<int, double>>> by_particle;
  by_particle.resize(std::size_t(np_));
  std::map<std::pair<int, int>, int> rigid_pairs;
  const auto particles = [&](const ContactConstraint& c, auto&& f) {
    for (const ConstraintSide* s : {&c.a, &c.b})
      for (int i = 0; i < 3; ++i)
        if (s->particle[std::size_t(i)] >= 0 && s->weight[i] != 0.0) f(s->particle[std::size_t(i)], s->weight[i]);
  };
  const auto rigid_pair = [](const ContactConstraint& c) { return std::minmax(c.a.rigid, c.b.rigid); };
  for (std::size_t k = 0; k < nc; ++k) {
    const ContactConstraint& c = contacts_[k];
    bool soft = false;
    particles(c, [&](int pi, double w) {
      by_particle[std::size_t(pi)].emplace_back(int(k), w);
      soft = true;
    });
    if (!soft) ++rigid_pairs[rigid_pair(c)];
  }
  std::map<int, double> shared;  // other contact -> product of (1 - |w_a - w_b|)
  for (std::size_t k = 0; k < nc; ++k) {
    const ContactConstraint& c = contacts_[k];
    shared.clear();
    bool soft = false;
    particles(c, [&](int pi, double w) {
      soft = true;
      for (const auto& [other, wo] : by_particle[std::size_t(pi)]) {
        if (other == int(k)) continue;
        auto [it, inserted] = shared.emplace(other, 1.0);
        it->second *= 1.0 - std::min(1.0, std::abs(w - wo));
      }
    });
    double z = 1.0;
    if (soft)
      for (const auto& [other, s] : shared) z += s;
    else z = double(rigid_pairs[rigid_pair(c)]);
    cs_[k].Z = z;
  }
}

void CrMlcp::precompute_S() {
  for (int r = 0; r < m_; ++r) {
    Row& row = rows_[std::size_t(r)];
    double s = 0.0, mob = 0.0;
    for (int e = row.e0; e < row.e1; ++e) {
      const int c = col_[std::size_t(e)], nc = ncol_[std::size_t(e)];
      s += J_[std::size_t(e)].head(nc).cwiseAbs2().dot(Ad_inv_.segment(c, nc));
      mob += J_[std::size_t(e)].head(nc).cwiseAbs2().dot(sys_.mass_diag.segment(c, nc).cwiseInverse());
    }
    row.mobility = mob;
    const double Z = row.contact >= 0 ? cs_[std::size_t(row.contact)].Z : 1.0;
    row.S = Z * s + row.D;
    if (!(row.S > 0.0)) row.S = 1.0;  // a row on DOFs that do not move: harmless, never moves anything
  }
}

void CrMlcp::multiply(const Vec& y, Vec& out, Vec& Av) const {
  Av.noalias() = sys_.A * y.head(n_);
  out.resize(n_ + m_);
  out.head(n_) = Av;
  for (int r = 0; r < m_; ++r) {
    const double l = y[n_ + r];
    if (!active(r)) {
      out[n_ + r] = 0.0;
      continue;
    }
    row_axpy(r, -l, out);
    out[n_ + r] = -row_dot(r, y) - rows_[std::size_t(r)].D * l;
  }
}

void CrMlcp::precondition(const Vec& r, Vec& z) const {
  z.resize(n_ + m_);
  if (cr_.preconditioner == CrPreconditioner::Diag) {
    z.head(n_) = Ad_inv_.cwiseProduct(r.head(n_));
    for (int k = 0; k < m_; ++k) z[n_ + k] = active(k) ? r[n_ + k] / rows_[std::size_t(k)].S : 0.0;
    return;
  }
  // eq. 22 with A_d and S_d: t = S_d^-1 (L A_d^-1 r_v - r_l) with L = -J
  Vec w = Ad_inv_.cwiseProduct(r.head(n_));
  z.head(n_) = r.head(n_);
  for (int k = 0; k < m_; ++k) {
    if (!active(k)) {
      z[n_ + k] = 0.0;
      continue;
    }
    const double t = (-row_dot(k, w) - r[n_ + k]) / rows_[std::size_t(k)].S;
    z[n_ + k] = t;
    row_axpy(k, t, z);
  }
  z.head(n_) = Ad_inv_.cwiseProduct(z.head(n_));
}

void CrMlcp::constraint_residual(const Vec& y, const Vec& ru, Vec& r) const {
  r.resize(n_ + m_);
  r.head(n_) = ru;
  for (int k = 0; k < m_; ++k) {
    if (!active(k)) {
      r[n_ + k] = 0.0;
      continue;
    }
    const double l = y[n_ + k];
    row_axpy(k, l, r);
    r[n_ + k] = gap_rate(k, y) + rows_[std::size_t(k)].D * l;
  }
  // kinetic friction: its estimated impulse on the right-hand side (eq. 17, 20)
  for (std::size_t c = 0; c < cs_.size(); ++c) {
    if (cs_[c].mode != Friction::Kinetic) continue;
    const int n = contact_row_[c];
    row_axpy(n + 1, cs_[c].gamma_hat[0], r);
    row_axpy(n + 2, cs_[c].gamma_hat[1], r);
  }
  // and a saturated drive's
  for (std::size_t k = 0; k < saturated_.size(); ++k)
    if (saturated_[k] != 0.0) row_axpy(int(k), saturated_[k], r);
}

void CrMlcp::recompute(const Vec& y) {
  ++residual_evaluations_;
  constraint_residual(y, ru_, r_);
  precondition(r_, z_);
  multiply(z_, Bz_, Az_);
  p_dir_ = z_;
  Bp_ = Bz_;
  Ap_ = Az_;
  // ||d||: momentum and the active rows' right-hand sides
  double d2 = sys_.b.squaredNorm();
  for (int k = 0; k < m_; ++k)
    if (active(k)) d2 += rows_[std::size_t(k)].c * rows_[std::size_t(k)].c;
  dnorm_ = std::max(std::sqrt(d2), 1e-300);
}

double CrMlcp::contact_merit(const Vec& y) const {
  const std::size_t nc = contacts_.size();
  if (nc == 0) return 0.0;
  std::vector<Vec3> r(nc), u(nc);
  std::vector<double> mu(nc);
  double q2 = 0.0;
  for (std::size_t k = 0; k < nc; ++k) {
    const int n = contact_row_[k];
    const ContactState& st = cs_[k];
    r[k] = Vec3(y[n_ + n], y[n_ + n + 1] + st.gamma_hat[0], y[n_ + n + 2] + st.gamma_hat[1]);
    // normal: the gap over the step as a velocity; friction: the slide
    u[k] = Vec3(gap_rate(n, y) + rows_[std::size_t(n)].want / h_, gap_rate(n + 1, y), gap_rate(n + 2, y));
    for (int j = 0; j < 3; ++j) q2 += rows_[std::size_t(n + j)].c * rows_[std::size_t(n + j)].c;
    mu[k] = contacts_[k].mu;
  }
  return fclib_natural_map_merit(r, u, mu, std::sqrt(q2));
}

void CrMlcp::store(const Vec& y) {
  set_configuration(y);
  for (int i = 0; i < nr_; ++i) {
    const auto k = std::size_t(i);
    const int c = sys_.offset[k];
    if (c < 0) continue;  // a fixed or kinematic body keeps the problem's prediction
    p_.x[k] = x_[k];
    p_.q[k] = q_[k];
    p_.v[k] = y.segment<3>(c);
    p_.w[k] = y.segment<3>(c + 3);
  }
  for (int j = 0; j < np_; ++j) {
    const auto k = std::size_t(j);
    const int c = sys_.offset[std::size_t(nr_ + j)];
    if (c < 0) continue;
    p_.px[k] = px_[k];
    p_.pv[k] = y.segment<3>(c);
  }
  // contacts added from the candidate lists join the problem (particle sides only: unchanged)
  for (std::size_t k = p_.contacts.size(); k < contacts_.size(); ++k) p_.contacts.push_back(contacts_[k]);
  p_.size_impulses();
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const int n = contact_row_[k];
    p_.contact_impulse[k] = Vec3(y[n_ + n], y[n_ + n + 1] + cs_[k].gamma_hat[0], y[n_ + n + 2] + cs_[k].gamma_hat[1]);
  }
  for (auto& e : p_.element_impulse) e.setZero();  // FEM is in A, not in constraint rows
  for (std::size_t k = 0; k < p_.attachments.size(); ++k)
    for (int i = 0; i < 3; ++i) p_.attachment_impulse[k][i] = y[n_ + attachment_row_[k] + i];
  for (std::size_t k = 0; k < p_.joints.size(); ++k) {
    const int r0 = joint_row_[k], r1 = joint_end_row(k);
    p_.joint_impulse[k].setZero();
    for (int r = r0; r < r1 && r - r0 < kMaxBlockRows; ++r)
      p_.joint_impulse[k][r - r0] = at_bound_[std::size_t(r)] ? saturated_[std::size_t(r)] : y[n_ + r];
  }
}

SolverStats CrMlcp::run() {
  const Stopwatch watch;
  SolverStats st;
  st.converged = false;
  setup();
  duplicate_scaling();
  start_configuration();
  linearise(nullptr);
  // y_0: the predicted velocities, no impulses (line 7)
  y_ = Vec::Zero(n_ + m_);
  for (int d = 0; d < nr_ + np_; ++d) {
    const int c = sys_.offset[std::size_t(d)];
    if (c >= 0) y_.segment(c, d < nr_ ? 6 : 3) = sys_.v_fixed.segment(6 * d, d < nr_ ? 6 : 3);
  }
  ru_ = sys_.b - sys_.A * y_.head(n_);
  // lines 5-6: the candidate pairs that collide on the way to the prediction x(v~) join before the
  // first iteration (linearised there), so that the CR does not converge without them and restart
  // from a large residual at line 25, which on stacks of soft bodies (edge-edge pairs the World's
  // detection does not make) costs more than the rest of the solve
  new_collisions();
  evaluate_constraints(y_);  // line 6: activate what the prediction penetrates
  recompute(y_);
  int it = 0;
  bool done = false;
  while (it < o_.max_iterations) {
    const double zBz = z_.dot(Bz_);
    precondition(Bp_, q_tmp_);
    const double den = Bp_.dot(q_tmp_);
    double rn = r_.norm();
    if (den == 0.0 || !std::isfinite(den) || std::abs(zBz) <= 1e-14 * z_.norm() * Bz_.norm()) {
      if (rn == 0.0 || Bz_.norm() == 0.0) {  // an exact solution, no unknowns, or a local minimum
        done = true;
      } else {
        // z^T B z = 0 with B C^-1 r != 0: B is indefinite, and a start with r_v = 0 (a rigid body at
        // its prediction) gives it exactly under Diag. One minimal-residual step along the gradient
        // C^-1 B C^-1 r of ||r||^2_{C^-1} (not a local minimum: that gradient is not zero), then CR again.
        precondition(Bz_, p_dir_);
        multiply(p_dir_, Bp_, Ap_);
        precondition(Bp_, q_tmp_);
        const double d2 = Bp_.dot(q_tmp_);
        const double alpha = d2 > 0.0 ? z_.dot(Bp_) / d2 : 0.0;
        if (alpha == 0.0 || !std::isfinite(alpha)) break;
        y_ += alpha * p_dir_;
        ru_ -= alpha * Ap_;
        ++it;
        recompute(y_);
        continue;
      }
    } else {
      const double alpha = zBz / den;  // line 9
      y_ += alpha * p_dir_;            // line 10
      r_ -= alpha * Bp_;               // line 11
      ru_ -= alpha * Ap_;
      ++it;
      const double ratio = r_.norm() / (eps1_ * dnorm_);
      const int interval = std::max(1, int(std::log2(std::max(ratio, 1.0)) / 3.0));  // Algorithm 2 line 2
      bool changed = false;
      if (alpha > 0.0 && it % interval == 0) changed = evaluate_constraints(y_);  // lines 12-13
      if (changed) {
        recompute(y_);  // lines 19-21
      } else {
        precondition(r_, z_);  // lines 15-17
        Vec Bz_old = Bz_;
        multiply(z_, Bz_, Az_);
        const double beta = z_.dot(Bz_) / zBz;
        p_dir_ = z_ + beta * p_dir_;
        Bp_ = Bz_ + beta * Bp_;
        Ap_ = Az_ + beta * Ap_;
      }
      rn = r_.norm();
    }
    if (o_.record_history) st.history.push_back(rn / dnorm_);
    // line 22
    double ur = 0.0;
    for (int k = 0; k < m_; ++k)
      if (active(k)) ur = std::max(ur, std::abs(r_[n_ + k]));
    const bool solved = done || (rn < eps1_ * dnorm_ && h_ * ur < eps2_) || Bz_.norm() < eps1_ * dnorm_;
    if (!solved) continue;
    if (evaluate_constraints(y_)) {  // line 23
      recompute(y_);
      done = false;
      continue;
    }
    if (new_collisions()) {  // lines 25-26
      evaluate_constraints(y_);
      recompute(y_);
      done = false;
      continue;
    }
    if (!measure(y_)) {  // lines 27-29: nothing off, the step ends
      st.converged = true;
      break;
    }
    if (relinearizations_ >= cr_.max_relinearizations) break;
    ++relinearizations_;
    set_configuration(y_);
    if (cr_.update_normals) update_normals();  // eq. 21's normals at x(v)
    const Vec v = y_.head(n_);
    linearise(&v);  // line 27, at x(v)
    ru_ = sys_.b - sys_.A * v;
    evaluate_constraints(y_);
    recompute(y_);  // line 31
    done = false;
  }
  store(y_);
  st.iterations = it;
  st.residual = r_.norm() / dnorm_;
  st.merit = contact_merit(y_);
  st.linear_iterations = relinearizations_;
  st.time_ms = watch.ms();
  return st;
}

}  // namespace cr_mlcp_detail

SolverStats solve_cr_mlcp(PositionProblem& p, const SolverOptions& o) { return cr_mlcp_detail::CrMlcp(p, o).run(); }

}  // namespace coulomb
