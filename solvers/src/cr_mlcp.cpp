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
#include <coulomb/cr_mlcp.h>
#include <coulomb/constraints.h>
#include <coulomb/integrators.h>
#include <coulomb/merit.h>
#include <coulomb/solver.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numbers>

namespace coulomb {

namespace {

using Clock = std::chrono::steady_clock;
using Vec = Eigen::VectorXd;
using Vec2 = Eigen::Vector2d;

enum class Friction : std::uint8_t { None, Static, Kinetic };

struct Row {
  RowKind kind = RowKind::Bilateral;
  int contact = -1;  // contact index of normal and friction rows
  double c = 0.0;    // right-hand side (unit: m/s or rad/s)
  double D = 0.0;    // compliance / h^2
  double S = 0.0;    // S_d entry (Z J A_d^-1 J^T + D)
  double mobility = 0.0;  // J M^-1 J^T: how far an impulse moves the row over a step, per h
  double value = 0.0;  // C at the linearisation point
  int e0 = 0, e1 = 0;  // entries
};

struct ContactState {
  Friction mode = Friction::None;
  Vec2 delta = Vec2::Zero();       // kinetic friction direction (unit, tangent basis), opposing the slide
  double lambda_hat = 0.0;         // estimate of the normal impulse (SMA, Algorithm 3)
  double history[2] = {0.0, 0.0};  // the last two normal impulses (n = 2)
  int history_size = 0;
  Vec2 gamma_hat = Vec2::Zero();   // kinetic friction impulse on the right-hand side
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
  bool measure(const Vec& y);     // line 27: true if the linear model is off somewhere
  bool new_collisions();          // line 25: contacts from the candidate lists; true if any were added
  int update_normals();           // eq. 21: contact normals from the geometry at x(v), turned at most 15 degrees
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
  CrVelocitySystem sys_;
  Vec Ad_inv_;
  std::vector<Row> rows_;
  std::vector<int> col_, ncol_;
  std::vector<Vec6> J_;
  std::vector<char> active_;
  std::vector<int> contact_row_, joint_row_, attachment_row_;  // first row of each block
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
          row.c = vstar ? Jv_star + (target_ - row.value) / h_ : (target_ - row.value) / h_ - Jv_fixed;
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
      if (rows_[std::size_t(r)].kind == RowKind::Bilateral) active_[std::size_t(r)] = 1;
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
  const auto rigid_pair = [](const ContactConstraint& c) {
    return std::minmax(c.a.rigid, c.b.rigid);
  };
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
    else
      z = double(rigid_pairs[rigid_pair(c)]);
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

// Algorithm 2 (and 3 for kinetic friction). Signs are physical (friction impulse gamma on the
// side b along the tangent basis; s = J_t v - c_t the sliding velocity of b relative to a): static
// friction turns kinetic when |gamma| > mu lambda and the slide it would leave opposes gamma
// (eq. 16), kinetic turns static when the slide stops opposing the friction direction (eq. 18).
bool CrMlcp::evaluate_constraints(const Vec& yc) {
  Vec& y = y_;
  (void)yc;
  bool changed = false;
  const double vtol = eps2_ / h_;  // a velocity that moves less than eps_2 over the step
  const double cos_theta = std::cos(cr_.theta_eps_deg * std::numbers::pi / 180.0);
  const bool friction = cr_.friction;
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    ContactState& st = cs_[k];
    const int n = contact_row_[k], t1 = n + 1, t2 = n + 2;
    const double mu = contacts_[k].mu;
    const double Zinv = 1.0 / st.Z;
    const double g = gap_rate(n, y);
    double& lambda = y[n_ + n];
    if (active(n)) {
      // eq. 13: separating and attracting -> deactivate (unless the change is below eps_2)
      // (g within the tolerance of 0 counts as separating: at convergence an active row has J v = c
      // up to its residual)
      if (g >= -vtol && lambda <= 0.0 && h_ * rows_[std::size_t(n)].mobility * Zinv * std::abs(lambda) > eps2_) {
        active_[std::size_t(n)] = active_[std::size_t(t1)] = active_[std::size_t(t2)] = 0;
        lambda = y[n_ + t1] = y[n_ + t2] = 0.0;
        st.mode = Friction::None;
        st.gamma_hat.setZero();
        changed = true;
        continue;
      }
    } else {
      // eq. 12: the linear model penetrates (gap below 0, i.e. eps_2 / 2 below the target)
      if (h_ * g < -target_) {
        active_[std::size_t(n)] = 1;
        lambda = 0.0;
        changed = true;
        if (friction && mu > 0.0) {
          const Vec2 s(gap_rate(t1, y), gap_rate(t2, y));
          st.lambda_hat = 0.0;
          st.history_size = 0;
          st.gamma_hat.setZero();
          if (s.norm() > vtol) {  // Algorithm 2 line 9: kinetic, against the slide
            st.mode = Friction::Kinetic;
            st.delta = -s.normalized();
          } else {
            st.mode = Friction::Static;
            active_[std::size_t(t1)] = active_[std::size_t(t2)] = 1;
            y[n_ + t1] = y[n_ + t2] = 0.0;
          }
        }
      }
      continue;
    }
    if (!friction || mu <= 0.0) continue;
    const Vec2 s(gap_rate(t1, y), gap_rate(t2, y));
    const double St = 0.5 * (rows_[std::size_t(t1)].mobility + rows_[std::size_t(t2)].mobility) * Zinv;
    if (st.mode == Friction::Static) {
      const Vec2 gamma(y[n_ + t1], y[n_ + t2]);
      const double gn = gamma.norm();
      // eq. 16 (line 12): too large a friction impulse, and the slide it leaves opposes it
      if (gn > mu * std::max(lambda, 0.0) && s.dot(gamma) <= vtol * gn) {
        st.mode = Friction::Kinetic;
        st.delta = gamma / gn;  // line 14: the friction direction (opposing the slide)
        st.lambda_hat = gn / mu;
        st.history_size = 0;
        // line 18 at once: the SMA of lambda sets the magnitude
        st.history[0] = std::max(lambda, 0.0);
        st.history_size = 1;
        st.lambda_hat = st.history[0];
        st.gamma_hat = mu * st.lambda_hat * st.delta;
        active_[std::size_t(t1)] = active_[std::size_t(t2)] = 0;
        y[n_ + t1] = y[n_ + t2] = 0.0;
        changed = true;
      }
      continue;
    }
    if (st.mode == Friction::Kinetic) {
      // eq. 18 (line 15): the slide no longer opposes the friction direction -> static, from gamma^
      if (s.dot(st.delta) >= 0.0) {
        st.mode = Friction::Static;
        active_[std::size_t(t1)] = active_[std::size_t(t2)] = 1;
        y[n_ + t1] = st.gamma_hat[0];
        y[n_ + t2] = st.gamma_hat[1];
        st.gamma_hat.setZero();
        changed = true;
        continue;
      }
      // Algorithm 3: the magnitude from the SMA of lambda (n = 2), the direction turned by
      // alpha_theta towards the slide when they are more than eps_theta apart
      ContactState next = st;
      if (std::abs(mu * next.lambda_hat - mu * lambda) > 0.0) {
        if (next.history_size == 2) next.history[0] = next.history[1];
        next.history[std::min(next.history_size, 1)] = lambda;
        next.history_size = std::min(next.history_size + 1, 2);
        next.lambda_hat = 0.0;
        for (int i = 0; i < next.history_size; ++i) next.lambda_hat += next.history[i] / next.history_size;
        next.lambda_hat = std::max(next.lambda_hat, 0.0);
      }
      if (s.norm() > vtol) {
        const Vec2 want = -s.normalized();
        const double c = next.delta.dot(want);
        if (c > 0.0 && c < cos_theta) next.delta = (next.delta + cr_.theta_alpha * (want - next.delta)).normalized();
      }
      next.gamma_hat = mu * next.lambda_hat * next.delta;
      // line 19: apply only a change that moves the contact by more than eps_2 over the step
      if (h_ * St * (next.gamma_hat - st.gamma_hat).norm() > eps2_) {
        st = next;
        changed = true;
      }
    }
  }
  return changed;
}

// Lines 25-27: the rows' values at x(v) against their linear models. Returns true (and leaves the
// configuration at x(v)) if some row is off by more than eps_2 / 4, or a contact penetrates, or
// an active contact is not within [0, eps_2).
bool CrMlcp::measure(const Vec& y) {
  set_configuration(y);
  const Configuration cfg = configuration();
  BlockRows b;
  const auto off = [&](int r, double value) {
    const Row& row = rows_[std::size_t(r)];
    const bool unilateral = row.kind == RowKind::ContactNormal || row.kind == RowKind::Limit;
    const double model = h_ * (row_dot(r, y) - row.c) + (unilateral ? target_ : 0.0);
    if (std::abs(value - model) > 0.25 * eps2_) return true;
    if (unilateral && value < 0.0) return true;
    if (unilateral && active(r) && value >= eps2_ && y[n_ + r] > 0.0) return true;
    return false;
  };
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    contact_rows(cfg, contacts_[k], b);
    if (off(contact_row_[k], b.value[0])) return true;
  }
  for (std::size_t k = 0; k < p_.joints.size(); ++k) {
    joint_rows(cfg, p_.joints[k], b);
    for (int r = 0; r < b.rows; ++r)
      if (off(joint_row_[k] + r, b.value[r])) return true;
  }
  for (std::size_t k = 0; k < p_.attachments.size(); ++k) {
    attachment_rows(cfg, p_.attachments[k], b);
    for (int r = 0; r < b.rows; ++r)
      if (off(attachment_row_[k] + r, b.value[r])) return true;
  }
  return false;
}

// Eq. 21 (the normals): before a re-linearisation at x(v), a contact whose side is a particle
// triangle (vertex-face) or whose two sides are particle edges (edge-edge) takes the normal of
// that geometry at x(v) (the face normal, or the edges' cross product, on the side of the old
// normal), turned from the old one by at most kMaxNormalTurn (the weight w of eq. 21 that keeps
// the change under 15 degrees). Friction impulses, gamma^ and the kinetic direction are carried
// over as world vectors into the new tangent basis. Other contacts keep the detection's normal.
int CrMlcp::update_normals() {
  constexpr double kMaxNormalTurn = 15.0 * 3.14159265358979323846 / 180.0;
  const auto particles = [](const ConstraintSide& s) {
    if (s.is_rigid()) return 0;
    int n = 0;
    while (n < 3 && s.particle[std::size_t(n)] >= 0) ++n;
    return n;
  };
  int changed = 0;
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    ContactConstraint& c = contacts_[k];
    const int na = particles(c.a), nb = particles(c.b);
    const auto P = [&](const ConstraintSide& s, int i) { return px_[std::size_t(s.particle[std::size_t(i)])]; };
    Vec3 g = Vec3::Zero();
    if (na == 3) g = (P(c.a, 1) - P(c.a, 0)).cross(P(c.a, 2) - P(c.a, 0));
    else if (nb == 3) g = (P(c.b, 1) - P(c.b, 0)).cross(P(c.b, 2) - P(c.b, 0));
    else if (na == 2 && nb == 2) g = (P(c.a, 1) - P(c.a, 0)).cross(P(c.b, 1) - P(c.b, 0));
    else continue;
    const double gn = g.norm();
    if (!(gn > 0.0)) continue;
    g /= gn;
    if (g.dot(c.normal) < 0.0) g = -g;
    const double angle = std::acos(std::clamp(g.dot(c.normal), -1.0, 1.0));
    if (angle < 1e-9) continue;
    Vec3 n = g;
    if (angle > kMaxNormalTurn) {  // rotate the old normal towards g by kMaxNormalTurn
      const Vec3 perp = (g - g.dot(c.normal) * c.normal).normalized();
      n = std::cos(kMaxNormalTurn) * c.normal + std::sin(kMaxNormalTurn) * perp;
    }
    Vec3 t0, s0, t1, s1;
    tangent_basis(c.normal, t0, s0);
    tangent_basis(n, t1, s1);
    const auto turn = [&](const Vec2& v) {
      const Vec3 w = v[0] * t0 + v[1] * s0;
      return Vec2(w.dot(t1), w.dot(s1));
    };
    const int r = contact_row_[k];
    const Vec2 f = turn(Vec2(y_[n_ + r + 1], y_[n_ + r + 2]));
    y_[n_ + r + 1] = f[0];
    y_[n_ + r + 2] = f[1];
    ContactState& st = cs_[k];
    st.gamma_hat = turn(st.gamma_hat);
    if (st.delta.squaredNorm() > 0.0) st.delta = turn(st.delta).normalized();
    c.normal = n.normalized();
    ++changed;
  }
  return changed;
}

// Line 25: the World's candidate lists (PositionProblem::find_new_contacts) checked with CCD from
// x^l to x(v). New contacts join as inactive rows (their impulses 0), every row is linearised at
// x(v) and the evaluation that follows activates those the linear model penetrates.
bool CrMlcp::new_collisions() {
  if (!p_.find_new_contacts) return false;
  set_configuration(y_);
  const Configuration end = configuration();
  std::vector<ContactConstraint> found;
  if (p_.find_new_contacts(end, found) == 0 || found.empty()) return false;
  const int old_nc = int(contacts_.size()), old_m = m_, added = int(found.size());
  const Vec y_old = y_;
  const std::vector<char> active_old = active_;
  for (ContactConstraint& c : found) {
    for (ConstraintSide* s : {&c.a, &c.b})
      if (s->is_rigid() && !s->body_frame) {
        s->anchor = p_.q0[std::size_t(s->rigid)].conjugate() * s->anchor;
        s->body_frame = true;
      }
    contacts_.push_back(c);
    cs_.push_back(ContactState{});
  }
  contacts_added_ += added;
  duplicate_scaling();
  const Vec v = y_.head(n_);
  linearise(&v);
  y_ = Vec::Zero(n_ + m_);
  y_.head(n_) = v;
  active_.assign(std::size_t(m_), 0);
  for (int r = 0; r < old_m; ++r) {
    const int to = r < 3 * old_nc ? r : r + 3 * added;
    y_[n_ + to] = y_old[n_ + r];
    active_[std::size_t(to)] = active_old[std::size_t(r)];
  }
  ru_ = sys_.b - sys_.A * v;
  return true;
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
    u[k] = Vec3(h_ * gap_rate(n, y) / h_ + target_ / h_, gap_rate(n + 1, y), gap_rate(n + 2, y));
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
    p_.contact_impulse[k] =
        Vec3(y[n_ + n], y[n_ + n + 1] + cs_[k].gamma_hat[0], y[n_ + n + 2] + cs_[k].gamma_hat[1]);
  }
  for (auto& e : p_.element_impulse) e.setZero();  // FEM is in A, not in constraint rows
  for (std::size_t k = 0; k < p_.attachments.size(); ++k)
    for (int i = 0; i < 3; ++i) p_.attachment_impulse[k][i] = y[n_ + attachment_row_[k] + i];
  for (std::size_t k = 0; k < p_.joints.size(); ++k) {
    const int r0 = joint_row_[k], r1 = k + 1 < p_.joints.size() ? joint_row_[k + 1]
                                       : (p_.attachments.empty() ? m_ : attachment_row_[0]);
    p_.joint_impulse[k].setZero();
    for (int r = r0; r < r1 && r - r0 < kMaxBlockRows; ++r) p_.joint_impulse[k][r - r0] = y[n_ + r];
  }
}

SolverStats CrMlcp::run() {
  const auto t0 = Clock::now();
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
      y_ += alpha * p_dir_;             // line 10
      r_ -= alpha * Bp_;                // line 11
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
  st.time_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  return st;
}

}  // namespace

SolverStats solve_cr_mlcp(PositionProblem& p, const SolverOptions& o) { return CrMlcp(p, o).run(); }

}  // namespace coulomb
