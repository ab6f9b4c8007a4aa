// The constraint kinds of dynamics/constraints.h: values, Jacobian blocks, compliance and the
// diagonal geometric stiffness. The second derivatives all come from one identity: for a
// rotation q <- exp(d) q of a vector y = R y0 and a fixed e, e . (exp(d) y) has the Hessian
// sym(e y^T) - (e . y) I in d, whose diagonal is e_k y_k - e . y.
#include <coulomb/constraints.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace coulomb {

const char* joint_type_name(JointType t) {
  switch (t) {
    case JointType::Ball: return "ball";
    case JointType::Hinge: return "hinge";
    case JointType::Prismatic: return "prismatic";
    case JointType::Fixed: return "fixed";
  }
  return "?";
}

int joint_equality_rows(JointType t) {
  switch (t) {
    case JointType::Ball: return 3;
    case JointType::Hinge: return 5;
    case JointType::Prismatic: return 5;
    case JointType::Fixed: return 6;
  }
  return 0;
}

int BlockRows::dof_slot(int global_dof) {
  for (int d = 0; d < dofs; ++d)
    if (dof[std::size_t(d)] == global_dof) return d;
  dof[std::size_t(dofs)] = global_dof;
  return dofs++;
}

int BlockRows::add_row(RowKind k, double c, double alpha, double lower, double upper) {
  const int r = rows++;
  kind[std::size_t(r)] = k;
  value[r] = c;
  compliance(r, r) = alpha;
  lo[r] = lower;
  hi[r] = upper;
  return r;
}

namespace {

Mat3 rotation(const Configuration& c, int body) {
  return body >= 0 ? c.q[std::size_t(body)].toRotationMatrix() : Mat3::Identity();
}
Vec3 com(const Configuration& c, int body) { return body >= 0 ? c.x[std::size_t(body)] : Vec3::Zero(); }

// diagonal of the Hessian of e . (exp(d) y) in d
Vec3 rotation_hessian_diag(const Vec3& e, const Vec3& y) {
  return e.cwiseProduct(y) - Vec3::Constant(e.dot(y));
}

// adds sign * (e . p_side) to row r of out
void add_side_row(const Configuration& c, const ConstraintSide& s, const Vec3& e, double sign, int r, BlockRows& out) {
  if (s.is_rigid()) {
    const int d = out.dof_slot(s.rigid);
    out.J.block<1, 3>(r, 6 * d) += sign * e.transpose();
    out.J.block<1, 3>(r, 6 * d + 3) += sign * side_arm(c, s).cross(e).transpose();
    return;
  }
  for (int i = 0; i < 3; ++i) {
    const int p = s.particle[std::size_t(i)];
    if (p < 0 || s.weight[i] == 0.0) continue;
    const int d = out.dof_slot(c.num_rigid + p);
    out.J.block<1, 3>(r, 6 * d) += sign * s.weight[i] * e.transpose();
  }
}

// K diagonal of sign * lambda * (e . p_side): only a body-frame rigid point turns nonlinearly
void add_side_stiffness(const Configuration& c, const ConstraintSide& s, const Vec3& e, double sign_lambda,
                        std::vector<Vec6>& diag) {
  if (!s.is_rigid() || !s.body_frame) return;
  diag[std::size_t(s.rigid)].tail<3>() += sign_lambda * rotation_hessian_diag(e, side_arm(c, s));
}

// Adds entries for a rigid body's (or the world's, skipped) linear and angular columns.
void add_body(BlockRows& out, int r, int body, const Vec3& lin, const Vec3& ang) {
  if (body < 0) return;
  const int d = out.dof_slot(body);
  out.J.block<1, 3>(r, 6 * d) += lin.transpose();
  out.J.block<1, 3>(r, 6 * d + 3) += ang.transpose();
}

// The joint's frames at a configuration.
struct JointFrames {
  Mat3 Ra, Rb;
  Vec3 xa, xb, ra, rb, pa, pb;
};
JointFrames joint_frames(const Configuration& c, const JointConstraint& j) {
  JointFrames f;
  f.Ra = rotation(c, j.a);
  f.Rb = rotation(c, j.b);
  f.xa = com(c, j.a);
  f.xb = com(c, j.b);
  f.ra = f.Ra * j.anchor_a;
  f.rb = f.Rb * j.anchor_b;
  f.pa = f.xa + f.ra;
  f.pb = f.xb + f.rb;
  return f;
}

Quat joint_quat(const Configuration& c, int body) { return body >= 0 ? c.q[std::size_t(body)] : Quat::Identity(); }

// q_d = q_b rel^-1 q_a^-1 in the hemisphere w >= 0: the rotation from where b should be to
// where it is, in the world frame.
Quat lock_error(const Configuration& c, const JointConstraint& j) {
  Quat d = joint_quat(c, j.b) * j.rel.conjugate() * joint_quat(c, j.a).conjugate();
  if (d.w() < 0.0) d.coeffs() = -d.coeffs();
  return d;
}

// Hinge angle theta = atan2(u_b . m_a, u_b . u_a) about the axis, with its angular Jacobian
// for body a (body b's is the negative).
struct HingeAngle {
  double theta, s, c;
  Vec3 ua, ma, ub, Ja;
};
HingeAngle hinge_angle(const JointFrames& f, const JointConstraint& j) {
  HingeAngle h;
  h.ua = f.Ra * j.u1_a;
  h.ma = f.Ra * j.u2_a;
  h.ub = f.Rb * j.u1_b;
  h.s = h.ub.dot(h.ma);
  h.c = h.ub.dot(h.ua);
  h.theta = std::atan2(h.s, h.c);
  const double r2 = std::max(h.s * h.s + h.c * h.c, 1e-300);
  h.Ja = (h.c * h.ma.cross(h.ub) - h.s * h.ua.cross(h.ub)) / r2;
  return h;
}

// a row e . (p_b - p_a) where e turns with body a (prismatic): d/dtheta_a = e x (p_b - x_a)
void add_prismatic_row(BlockRows& out, int r, const JointConstraint& j, const JointFrames& f, const Vec3& e,
                       double sign) {
  add_body(out, r, j.a, -sign * e, sign * e.cross(f.pb - f.xa));
  add_body(out, r, j.b, sign * e, sign * f.rb.cross(e));
}

}  // namespace

Vec3 side_arm(const Configuration& c, const ConstraintSide& s) {
  return s.body_frame ? Vec3(c.q[std::size_t(s.rigid)] * s.anchor) : s.anchor;
}

Vec3 side_position(const Configuration& c, const ConstraintSide& s) {
  if (s.is_rigid()) {
    const auto r = std::size_t(s.rigid);
    if (s.body_frame) return c.x[r] + c.q[r] * s.anchor;
    return c.x[r] + s.anchor + c.h * c.w[r].cross(s.anchor);
  }
  if (s.particle[0] < 0) return s.anchor;
  Vec3 x = Vec3::Zero();
  for (int i = 0; i < 3; ++i)
    if (s.particle[std::size_t(i)] >= 0) x += s.weight[i] * c.px[std::size_t(s.particle[std::size_t(i)])];
  return x;
}

void contact_rows(const Configuration& c, const ContactConstraint& k, BlockRows& out) {
  out.clear();
  const Vec3 d = side_position(c, k.b) - side_position(c, k.a);
  Vec3 t, s;
  tangent_basis(k.normal, t, s);
  const Vec3 dirs[3] = {k.normal, t, s};
  for (int i = 0; i < 3; ++i) {
    const int r = i == 0 ? out.add_row(RowKind::ContactNormal, k.normal.dot(d) - k.offset, 0.0, 0.0, kInfinity)
                         : out.add_row(RowKind::ContactFriction, dirs[i].dot(d - k.tangent_origin), 0.0, -kInfinity,
                                       kInfinity);
    add_side_row(c, k.a, dirs[i], -1.0, r, out);
    add_side_row(c, k.b, dirs[i], 1.0, r, out);
  }
}

void attachment_rows(const Configuration& c, const AttachmentConstraint& a, BlockRows& out) {
  out.clear();
  ConstraintSide p;
  p.particle[0] = a.particle;
  p.weight = Vec3(1.0, 0.0, 0.0);
  const Vec3 d = c.px[std::size_t(a.particle)] - side_position(c, a.target);
  for (int i = 0; i < 3; ++i) {
    const Vec3 e = Vec3::Unit(i);
    const int r = out.add_row(RowKind::Bilateral, d[i], a.compliance, -kInfinity, kInfinity);
    add_side_row(c, p, e, 1.0, r, out);
    add_side_row(c, a.target, e, -1.0, r, out);
  }
}

void element_rows(const Configuration& c, const ElementConstraintDef& e, const ElementMaterial& m, BlockRows& out) {
  out.clear();
  const std::array<Vec3, 4> x{c.px[std::size_t(e.particle[0])], c.px[std::size_t(e.particle[1])],
                              c.px[std::size_t(e.particle[2])], c.px[std::size_t(e.particle[3])]};
  ElementConstraint ec;
  element_constraint(m.model, m.lame, x, e.Dm_inv, e.volume, ec);
  for (int i = 0; i < 4; ++i) out.dof_slot(c.num_rigid + e.particle[std::size_t(i)]);
  for (int r = 0; r < ec.rows; ++r) {
    out.add_row(RowKind::Element, ec.c[r], 0.0, -kInfinity, kInfinity);
    for (int i = 0; i < 4; ++i) out.J.block<1, 3>(r, 6 * i) = ec.J.block<1, 3>(r, 3 * i);
  }
  out.compliance.topLeftCorner(ec.rows, ec.rows) = ec.compliance.topLeftCorner(ec.rows, ec.rows);
}

void joint_rows(const Configuration& c, const JointConstraint& j, BlockRows& out) {
  out.clear();
  const JointFrames f = joint_frames(c, j);
  const double alpha = j.compliance, alpha_ang = j.angular_compliance;
  // ball part: p_b - p_a = 0 along the world axes (ball, hinge, fixed)
  if (j.type != JointType::Prismatic) {
    const Vec3 d = f.pb - f.pa;
    for (int i = 0; i < 3; ++i) {
      const Vec3 e = Vec3::Unit(i);
      const int r = out.add_row(RowKind::Bilateral, d[i], alpha, -kInfinity, kInfinity);
      add_body(out, r, j.a, -e, -f.ra.cross(e));
      add_body(out, r, j.b, e, f.rb.cross(e));
    }
  }
  if (j.type == JointType::Hinge) {
    const Vec3 nb = f.Rb * j.axis_b;
    for (const Vec3* u : {&j.u1_a, &j.u2_a}) {
      const Vec3 ui = f.Ra * *u;
      const int r = out.add_row(RowKind::Bilateral, ui.dot(nb), alpha_ang, -kInfinity, kInfinity);
      add_body(out, r, j.a, Vec3::Zero(), ui.cross(nb));
      add_body(out, r, j.b, Vec3::Zero(), nb.cross(ui));
    }
    if (j.limited) {
      // the joint angle is a's rotation relative to b about the axis, -theta, unwrapped
      const HingeAngle h = hinge_angle(f, j);
      const double angle = unwrap_angle(j.reference - h.theta, j.angle_ref);
      int r = out.add_row(RowKind::Limit, angle - j.lo, alpha_ang, 0.0, kInfinity);
      add_body(out, r, j.a, Vec3::Zero(), -h.Ja);
      add_body(out, r, j.b, Vec3::Zero(), h.Ja);
      r = out.add_row(RowKind::Limit, j.hi - angle, alpha_ang, 0.0, kInfinity);
      add_body(out, r, j.a, Vec3::Zero(), h.Ja);
      add_body(out, r, j.b, Vec3::Zero(), -h.Ja);
    }
  }
  if (j.type == JointType::Prismatic) {
    const Vec3 d = f.pb - f.pa;
    for (const Vec3* u : {&j.u1_a, &j.u2_a}) {
      const Vec3 t = f.Ra * *u;
      const int r = out.add_row(RowKind::Bilateral, t.dot(d), alpha, -kInfinity, kInfinity);
      add_prismatic_row(out, r, j, f, t, 1.0);
    }
  }
  if (j.type == JointType::Prismatic || j.type == JointType::Fixed) {
    const Quat e = lock_error(c, j);
    const Vec3 v = e.vec();
    const Mat3 Jb = e.w() * Mat3::Identity() - skew(v);
    const Mat3 Ja = -(e.w() * Mat3::Identity() + skew(v));
    for (int i = 0; i < 3; ++i) {
      const int r = out.add_row(RowKind::Bilateral, 2.0 * v[i], alpha_ang, -kInfinity, kInfinity);
      add_body(out, r, j.a, Vec3::Zero(), Ja.row(i).transpose());
      add_body(out, r, j.b, Vec3::Zero(), Jb.row(i).transpose());
    }
  }
  if (j.type == JointType::Prismatic && j.limited) {
    // the slide is a's displacement relative to b along the axis, n . (p_a - p_b)
    const Vec3 n = f.Ra * j.axis_a;
    const double slide = j.reference + n.dot(f.pa - f.pb);
    int r = out.add_row(RowKind::Limit, slide - j.lo, alpha, 0.0, kInfinity);
    add_prismatic_row(out, r, j, f, n, -1.0);
    r = out.add_row(RowKind::Limit, j.hi - slide, alpha, 0.0, kInfinity);
    add_prismatic_row(out, r, j, f, n, 1.0);
  }
  if (j.coordinate_rows() == 0 || (j.type != JointType::Hinge && j.type != JointType::Prismatic)) return;
  // the coordinate rows: drive, damping, friction (JointConstraint)
  const JointCoordinate q = joint_coordinate(c, j);
  const auto coordinate_row = [&](RowKind kind, double target, double alpha, double lower, double upper) {
    const int r = out.add_row(kind, q.value - target, alpha, lower, upper);
    add_body(out, r, j.a, q.J_a.head<3>(), q.J_a.tail<3>());
    add_body(out, r, j.b, q.J_b.head<3>(), q.J_b.tail<3>());
  };
  if (j.driven)
    coordinate_row(j.bounded_drive() ? RowKind::Actuator : RowKind::Bilateral, j.drive_target, j.drive_compliance,
                   j.drive_lo, j.drive_hi);
  if (j.damped()) coordinate_row(RowKind::Bilateral, j.damping_target, j.damping_compliance, -kInfinity, kInfinity);
  if (j.friction > 0.0) coordinate_row(RowKind::Actuator, j.friction_target, 0.0, -j.friction, j.friction);
}

double unwrap_angle(double angle, double ref) { return ref + std::remainder(angle - ref, 2.0 * std::numbers::pi); }

JointCoordinate joint_coordinate(const Configuration& c, const JointConstraint& j) {
  JointCoordinate q;
  const JointFrames f = joint_frames(c, j);
  if (j.type == JointType::Hinge) {  // a's rotation relative to b about the axis: -theta
    const HingeAngle h = hinge_angle(f, j);
    q.value = unwrap_angle(j.reference - h.theta, j.angle_ref);
    if (j.a >= 0) q.J_a.tail<3>() = -h.Ja;
    if (j.b >= 0) q.J_b.tail<3>() = h.Ja;
    return q;
  }
  if (j.type != JointType::Prismatic) return q;
  // a's displacement relative to b along the axis, n . (p_a - p_b)
  const Vec3 n = f.Ra * j.axis_a;
  q.value = j.reference + n.dot(f.pa - f.pb);
  BlockRows row;
  row.clear();
  const int r = row.add_row(RowKind::Bilateral, 0.0, 0.0, -kInfinity, kInfinity);
  add_prismatic_row(row, r, j, f, n, -1.0);
  for (int d = 0; d < row.dofs; ++d) {
    const Vec6 J = row.J.block<1, 6>(r, 6 * d).transpose();
    (row.dof[std::size_t(d)] == j.a ? q.J_a : q.J_b) = J;
  }
  return q;
}

JointError joint_error(const Configuration& c, const JointConstraint& j) {
  BlockRows b;
  joint_rows(c, j, b);
  JointError e;
  // row order: linear rows first (3 ball or 2 prismatic), then angular rows, then limits
  const int linear = j.type == JointType::Prismatic ? 2 : 3;
  const bool angular_limit = j.type == JointType::Hinge;
  const int rows = b.rows - j.coordinate_rows();  // the coordinate rows (last) act, they are not violations
  for (int r = 0; r < rows; ++r) {
    const double v = b.kind[std::size_t(r)] == RowKind::Limit ? std::max(0.0, -b.value[r]) : std::abs(b.value[r]);
    const bool is_linear = b.kind[std::size_t(r)] == RowKind::Limit ? !angular_limit : r < linear;
    (is_linear ? e.linear : e.angular) = std::max(is_linear ? e.linear : e.angular, v);
  }
  return e;
}

void add_geometric_stiffness(const Configuration& c, const ContactConstraint& k, const double* lambda,
                             std::vector<Vec6>& diag) {
  Vec3 t, s;
  tangent_basis(k.normal, t, s);
  const Vec3 dirs[3] = {k.normal, t, s};
  for (int i = 0; i < 3; ++i) {
    add_side_stiffness(c, k.a, dirs[i], -lambda[i], diag);
    add_side_stiffness(c, k.b, dirs[i], lambda[i], diag);
  }
}

void add_geometric_stiffness(const Configuration& c, const AttachmentConstraint& a, const double* lambda,
                             std::vector<Vec6>& diag) {
  for (int i = 0; i < 3; ++i) add_side_stiffness(c, a.target, Vec3::Unit(i), -lambda[i], diag);
}

void add_geometric_stiffness(const Configuration& c, const JointConstraint& j, const double* lambda,
                             std::vector<Vec6>& diag) {
  const JointFrames f = joint_frames(c, j);
  const auto add = [&](int body, const Vec3& k) {
    if (body >= 0) diag[std::size_t(body)].tail<3>() += k;
  };
  int r = 0;
  if (j.type != JointType::Prismatic) {
    for (int i = 0; i < 3; ++i, ++r) {
      const Vec3 e = Vec3::Unit(i);
      add(j.a, -lambda[r] * rotation_hessian_diag(e, f.ra));
      add(j.b, lambda[r] * rotation_hessian_diag(e, f.rb));
    }
  }
  if (j.type == JointType::Hinge) {
    const Vec3 nb = f.Rb * j.axis_b;
    for (const Vec3* u : {&j.u1_a, &j.u2_a}) {
      const Vec3 ui = f.Ra * *u;
      add(j.a, lambda[r] * rotation_hessian_diag(nb, ui));
      add(j.b, lambda[r] * rotation_hessian_diag(ui, nb));
      ++r;
    }
    if (j.limited) {
      // theta = atan2(s, c): d2 theta = (c s'' - s c'')/r^2 - 2 (c s' - s c')(s s' + c c')/r^4
      const HingeAngle h = hinge_angle(f, j);
      const double r2 = std::max(h.s * h.s + h.c * h.c, 1e-300);
      const auto second = [&](const Vec3& ds, const Vec3& dc, const Vec3& dds, const Vec3& ddc) {
        return Vec3((h.c * dds - h.s * ddc) / r2 -
                    2.0 * (h.c * ds - h.s * dc).cwiseProduct(h.s * ds + h.c * dc) / (r2 * r2));
      };
      // rotating a: s = u_b . (R m), c = u_b . (R u); rotating b: s = m_a . (R u_b), c = u_a . (R u_b)
      const Vec3 ka = second(h.ma.cross(h.ub), h.ua.cross(h.ub), rotation_hessian_diag(h.ub, h.ma),
                             rotation_hessian_diag(h.ub, h.ua));
      const Vec3 kb = second(h.ub.cross(h.ma), h.ub.cross(h.ua), rotation_hessian_diag(h.ma, h.ub),
                             rotation_hessian_diag(h.ua, h.ub));
      const double l = lambda[r + 1] - lambda[r];  // the lower row is -theta - lo, the upper hi + theta
      add(j.a, l * ka);
      add(j.b, l * kb);
      r += 2;
    }
  }
  if (j.type == JointType::Prismatic) {
    for (const Vec3* u : {&j.u1_a, &j.u2_a}) {
      const Vec3 t = f.Ra * *u;
      add(j.a, lambda[r] * rotation_hessian_diag(t, f.pb - f.xa));
      add(j.b, lambda[r] * rotation_hessian_diag(t, f.rb));
      ++r;
    }
  }
  if (j.type == JointType::Prismatic || j.type == JointType::Fixed) {
    // C = 2 vec(exp(d) q_d): second order -|d|^2 vec(q_d) / 4, so d2 C_i = -vec_i / 2 per axis
    const Vec3 v = lock_error(c, j).vec();
    double lv = 0.0;
    for (int i = 0; i < 3; ++i) lv += lambda[r + i] * v[i];
    add(j.a, Vec3::Constant(-0.5 * lv));
    add(j.b, Vec3::Constant(-0.5 * lv));
    r += 3;
  }
  if (j.type == JointType::Prismatic && j.limited) {
    const Vec3 n = f.Ra * j.axis_a;
    const double l = lambda[r + 1] - lambda[r];  // the lower row is -n . (p_b - p_a) - lo
    add(j.a, l * rotation_hessian_diag(n, f.pb - f.xa));
    add(j.b, l * rotation_hessian_diag(n, f.rb));
  }
}

void add_geometric_stiffness(const Configuration& c, const ElementConstraintDef& e, const ElementMaterial& m,
                             const double* lambda, std::vector<Vec6>& diag) {
  if (m.model == MaterialModel::Linear) return;  // J is constant
  BlockRows b;
  element_rows(c, e, m, b);
  const int rows = b.rows;
  if (rows == 0) return;
  Eigen::Map<const Eigen::VectorXd> l(lambda, rows);
  if (m.model == MaterialModel::StVK) {
    // c = sqrt(V0) vec6(E), E_ab = 1/2 F_ka F_kb - delta_ab / 2 with F_ka = sum_v x_vk G_va:
    // d2 E_ab / dx_vk^2 = G_va G_vb for every k
    Eigen::Matrix<double, 4, 3> G;
    G.bottomRows<3>() = e.Dm_inv;
    G.row(0) = -e.Dm_inv.colwise().sum();
    static constexpr int ia[6] = {0, 1, 2, 1, 0, 0}, ib[6] = {0, 1, 2, 2, 2, 1};
    const double sv = std::sqrt(e.volume);
    for (int v = 0; v < 4; ++v) {
      double k = 0.0;
      for (int r = 0; r < rows; ++r) k += l[r] * G(v, ia[r]) * G(v, ib[r]);
      diag[std::size_t(c.num_rigid + e.particle[std::size_t(v)])].head<3>() += Vec3::Constant(sv * k);
    }
    return;
  }
  // corotational (R held fixed in J) and Neo-Hookean (principal stretches): central differences
  // of J^T lambda along each particle coordinate
  std::vector<Vec3> px(c.px, c.px + c.num_particles);
  Configuration cc = c;
  cc.px = px.data();
  for (int v = 0; v < 4; ++v) {
    const auto p = std::size_t(e.particle[std::size_t(v)]);
    const double step = 1e-6 * std::max(1.0, px[p].cwiseAbs().maxCoeff());
    for (int k = 0; k < 3; ++k) {
      const double x0 = px[p][k];
      BlockRows plus, minus;
      px[p][k] = x0 + step;
      element_rows(cc, e, m, plus);
      px[p][k] = x0 - step;
      element_rows(cc, e, m, minus);
      px[p][k] = x0;
      const double gp = (plus.J.col(6 * v + k).head(rows).transpose() * l)(0);
      const double gm = (minus.J.col(6 * v + k).head(rows).transpose() * l)(0);
      diag[std::size_t(c.num_rigid) + p][k] += (gp - gm) / (2.0 * step);
    }
  }
}

double secant_stiffness(double g_new, double g_old, double M_du, double du) {
  if (du == 0.0) return 0.0;
  return -(g_new - g_old + M_du) / du;  // seed 003 eq. 73
}

void ConstraintRows::clear() {
  kind.clear();
  block.clear();
  value.clear();
  lo.clear();
  hi.clear();
  entry_start.assign(1, 0);
  entry_dof.clear();
  entry_J.clear();
  block_start.assign(1, 0);
  compliance_start.assign(1, 0);
  compliance.clear();
}

void ConstraintRows::append(const BlockRows& b, int block_index) {
  for (int r = 0; r < b.rows; ++r) {
    kind.push_back(b.kind[std::size_t(r)]);
    block.push_back(block_index);
    value.push_back(b.value[r]);
    lo.push_back(b.lo[r]);
    hi.push_back(b.hi[r]);
    for (int d = 0; d < b.dofs; ++d) {
      const Vec6 J = b.J.block<1, 6>(r, 6 * d).transpose();
      if (J.isZero(0.0)) continue;
      entry_dof.push_back(b.dof[std::size_t(d)]);
      entry_J.push_back(J);
    }
    entry_start.push_back(int(entry_dof.size()));
  }
  block_start.push_back(int(value.size()));
  for (int r = 0; r < b.rows; ++r)
    for (int s = 0; s < b.rows; ++s) compliance.push_back(b.compliance(r, s));
  compliance_start.push_back(int(compliance.size()));
}

void evaluate_constraints(const Configuration& c, const ConstraintSet& set, ConstraintRows& out) {
  out.clear();
  BlockRows b;
  for (std::size_t i = 0; i < set.contacts.size(); ++i) {
    contact_rows(c, set.contacts[i], b);
    out.append(b, int(i));
  }
  for (std::size_t i = 0; i < set.joints.size(); ++i) {
    joint_rows(c, set.joints[i], b);
    out.append(b, int(i));
  }
  for (std::size_t i = 0; i < set.attachments.size(); ++i) {
    attachment_rows(c, set.attachments[i], b);
    out.append(b, int(i));
  }
  for (std::size_t i = 0; i < set.elements.size(); ++i) {
    element_rows(c, set.elements[i], set.materials[std::size_t(set.elements[i].material)], b);
    out.append(b, int(i));
  }
}

}  // namespace coulomb
