// cr-mlcp (seed 004), the constraint side of the solve (cr_mlcp.cpp has the overview): the
// constraint states of Algorithm 2 (eq. 12-13, 16, 18), the gaps measured at the new configuration
// (Algorithm 1 lines 23-25), normal updates (eq. 21) and new collisions from CCD (line 25).
#include "cr_mlcp_solver.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace coulomb::cr_mlcp_detail {

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
      // eq. 12: the linear model penetrates (its gap want + h g falls below 0)
      if (h_ * g < -rows_[std::size_t(n)].want) {
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
  // joint limits (RowKind::Limit): unilateral rows as a contact's normal (eq. 12-13), without
  // friction: active where the linear model passes the limit, inactive again where it pulls
  for (std::size_t k = 0; k < joint_row_.size(); ++k)
    for (int r = joint_row_[k]; r < joint_end_row(k); ++r) {
      if (rows_[std::size_t(r)].kind != RowKind::Limit) continue;
      const double g = gap_rate(r, y);
      double& lambda = y[n_ + r];
      if (active(r) && g >= -vtol && lambda <= 0.0 && h_ * rows_[std::size_t(r)].mobility * std::abs(lambda) > eps2_) {
        active_[std::size_t(r)] = 0;
        lambda = 0.0;
        changed = true;
      } else if (!active(r) && h_ * g < -rows_[std::size_t(r)].want) {
        active_[std::size_t(r)] = 1;
        lambda = 0.0;
        changed = true;
      }
    }
  // a joint's bounded rows (RowKind::Actuator: drives, joint friction), as Algorithm 2 treats
  // friction's bound: a row whose impulse leaves [lo h, hi h] leaves the active set with the
  // bound's impulse on the right-hand side, and comes back once its row, with that impulse, asks
  // for no more (the residual's sign turns: at the upper bound it wants a smaller impulse while
  // the residual is negative)
  for (std::size_t k = 0; k < joint_row_.size(); ++k)
    for (int r = joint_row_[k]; r < joint_end_row(k); ++r) {
      const Row& row = rows_[std::size_t(r)];
      if (row.kind != RowKind::Actuator) continue;
      double& at = saturated_[std::size_t(r)];
      std::uint8_t& bound = at_bound_[std::size_t(r)];
      const double l = y[n_ + r];
      if (active(r) && (l > row.hi || l < row.lo)) {
        at = l > row.hi ? row.hi : row.lo;
        bound = l > row.hi ? 1 : 2;
        active_[std::size_t(r)] = 0;
        y[n_ + r] = 0.0;
        changed = true;
      } else if (!active(r) && bound != 0) {
        const double residual = gap_rate(r, y) + row.D * at;
        if (bound == 1 ? residual >= 0.0 : residual <= 0.0) {
          active_[std::size_t(r)] = 1;
          y[n_ + r] = at;
          at = 0.0;
          bound = 0;
          changed = true;
        }
      }
    }
  return changed;
}

// Lines 25-27: the rows' values at x(v) against their linear models. Returns true (and leaves the
// configuration at x(v)) if some row is off by more than eps_2 / 4, or a contact penetrates by
// more than kGapSlack eps_2, or an active contact is not within [0, eps_2).
bool CrMlcp::measure(const Vec& y) {
  set_configuration(y);
  const Configuration cfg = configuration();
  BlockRows b;
  const auto off = [&](int r, double value) {
    const Row& row = rows_[std::size_t(r)];
    const bool unilateral = row.kind == RowKind::ContactNormal || row.kind == RowKind::Limit;
    const double model = h_ * (row_dot(r, y) - row.c) + (unilateral ? row.want : 0.0);
    if (std::abs(value - model) > 0.25 * eps2_) return true;
    // a gap kept where it was (CrMlcp::linearise) may end a rounding below 0: the CR solve meets
    // its rows to within its tolerance, not exactly
    if (unilateral && value < -kGapSlack * eps2_) return true;
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

// Line 25 (and lines 5-6, before the first iteration): the World's candidate lists
// (PositionProblem::find_new_contacts) checked with CCD from
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
  const std::vector<double> saturated_old = saturated_;
  const std::vector<std::uint8_t> at_bound_old = at_bound_;
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
  saturated_.assign(std::size_t(m_), 0.0);
  at_bound_.assign(std::size_t(m_), 0);
  for (int r = 0; r < old_m; ++r) {
    const int to = r < 3 * old_nc ? r : r + 3 * added;
    y_[n_ + to] = y_old[n_ + r];
    active_[std::size_t(to)] = active_old[std::size_t(r)];
    saturated_[std::size_t(to)] = saturated_old[std::size_t(r)];
    at_bound_[std::size_t(to)] = at_bound_old[std::size_t(r)];
  }
  ru_ = sys_.b - sys_.A * v;
  return true;
}

}  // namespace coulomb::cr_mlcp_detail
