// The constraint interface (dynamics/constraints.h): every kind's Jacobian blocks against central
// differences of its values, and its geometric stiffness diagonal (seed 003 eq. 70) against
// central differences of J^T lambda, at random configurations away from the constraint manifold.
#include <coulomb/constraints.h>
#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace coulomb;

namespace {

// A configuration of 2 rigid bodies and 6 particles that the tests perturb coordinate by coordinate.
struct Config {
  std::vector<Vec3> x, w, px;
  std::vector<Quat> q;
  double h = 0.01;
  explicit Config(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    const auto vec = [&] { return Vec3(u(rng), u(rng), u(rng)); };
    for (int i = 0; i < 2; ++i) {
      x.push_back(vec());
      w.push_back(5.0 * vec());
      q.push_back(Quat(Eigen::AngleAxisd(2.0 * u(rng), vec().normalized())));
    }
    for (int i = 0; i < 6; ++i) px.push_back(vec());
    // a well-shaped tetrahedron on particles 0..3
    px[0] = Vec3(0.0, 0.0, 0.0) + 0.1 * vec();
    px[1] = Vec3(1.0, 0.0, 0.0) + 0.1 * vec();
    px[2] = Vec3(0.0, 1.0, 0.0) + 0.1 * vec();
    px[3] = Vec3(0.0, 0.0, 1.0) + 0.1 * vec();
  }
  Configuration view() const {
    Configuration c;
    c.x = x.data();
    c.q = q.data();
    c.w = w.data();
    c.h = h;
    c.num_rigid = int(x.size());
    c.px = px.data();
    c.num_particles = int(px.size());
    return c;
  }
  int dofs() const { return int(x.size() + px.size()); }
  // moves coordinate k (0..5 rigid: dx, dtheta; 0..2 particle) of DOF d by eps; a rotation also
  // turns h w (the linearised lever arms' rotation coordinate) by the same amount
  void perturb(int d, int k, double eps) {
    if (d < int(x.size())) {
      const auto i = std::size_t(d);
      if (k < 3) {
        x[i][k] += eps;
      } else {
        const Vec3 axis = Vec3::Unit(k - 3);
        q[i] = (Quat(Eigen::AngleAxisd(eps, axis)) * q[i]).normalized();
        w[i] += eps / h * axis;
      }
      return;
    }
    px[std::size_t(d) - x.size()][k] += eps;
  }
};

using Eval = std::function<void(const Configuration&, BlockRows&)>;
using Stiffness = std::function<void(const Configuration&, const double*, std::vector<Vec6>&)>;

// J column of DOF d, coordinate k, from a block (zero if the block does not touch d)
double jac(const BlockRows& b, int r, int d, int k) {
  for (int s = 0; s < b.dofs; ++s)
    if (b.dof[std::size_t(s)] == d) return b.J(r, 6 * s + k);
  return 0.0;
}

int coords(const Config& c, int d) { return d < int(c.x.size()) ? 6 : 3; }

void check_jacobian(Config cfg, const Eval& eval, double tol) {
  BlockRows b0;
  eval(cfg.view(), b0);
  ASSERT_GT(b0.rows, 0);
  const double eps = 1e-6;
  for (int d = 0; d < cfg.dofs(); ++d)
    for (int k = 0; k < coords(cfg, d); ++k) {
      Config plus = cfg, minus = cfg;
      plus.perturb(d, k, eps);
      minus.perturb(d, k, -eps);
      BlockRows bp, bm;
      eval(plus.view(), bp);
      eval(minus.view(), bm);
      ASSERT_EQ(bp.rows, b0.rows);
      for (int r = 0; r < b0.rows; ++r) {
        const double fd = (bp.value[r] - bm.value[r]) / (2.0 * eps);
        EXPECT_NEAR(jac(b0, r, d, k), fd, tol * std::max(1.0, std::abs(fd)))
            << "row " << r << " dof " << d << " coord " << k;
      }
    }
}

void check_stiffness(Config cfg, const Eval& eval, const Stiffness& stiff, double tol) {
  BlockRows b0;
  eval(cfg.view(), b0);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> lambda(std::size_t(b0.rows));
  for (double& l : lambda) l = u(rng);
  std::vector<Vec6> diag(std::size_t(cfg.dofs()), Vec6::Zero());
  stiff(cfg.view(), lambda.data(), diag);
  const double eps = 1e-5;
  double largest = 0.0;
  for (int d = 0; d < cfg.dofs(); ++d)
    for (int k = 0; k < coords(cfg, d); ++k) {
      Config plus = cfg, minus = cfg;
      plus.perturb(d, k, eps);
      minus.perturb(d, k, -eps);
      BlockRows bp, bm;
      eval(plus.view(), bp);
      eval(minus.view(), bm);
      double gp = 0.0, gm = 0.0;  // (J^T lambda) at coordinate (d, k)
      for (int r = 0; r < b0.rows; ++r) {
        gp += lambda[std::size_t(r)] * jac(bp, r, d, k);
        gm += lambda[std::size_t(r)] * jac(bm, r, d, k);
      }
      const double fd = (gp - gm) / (2.0 * eps);
      largest = std::max(largest, std::abs(fd));
      EXPECT_NEAR(diag[std::size_t(d)][k], fd, tol * std::max(1.0, std::abs(fd))) << "dof " << d << " coord " << k;
    }
  EXPECT_GT(largest, 1e-3);  // the check saw a nonzero stiffness somewhere
}

ConstraintSide rigid_side(int body, const Vec3& anchor, bool body_frame) {
  ConstraintSide s;
  s.rigid = body;
  s.anchor = anchor;
  s.body_frame = body_frame;
  return s;
}

ConstraintSide triangle_side() {
  ConstraintSide s;
  s.particle = {3, 4, 5};
  s.weight = Vec3(0.2, 0.3, 0.5);
  return s;
}

JointConstraint joint(JointType type, bool limited, int b = 1) {
  JointConstraint j;
  j.type = type;
  j.a = 0;
  j.b = b;
  j.anchor_a = Vec3(0.3, -0.2, 0.5);
  j.anchor_b = Vec3(-0.1, 0.4, 0.2);
  j.axis_a = Vec3(1, 2, -1).normalized();
  j.u1_a = j.axis_a.unitOrthogonal();
  j.u2_a = j.axis_a.cross(j.u1_a);
  j.axis_b = Vec3(-1, 0.5, 1).normalized();
  j.u1_b = j.axis_b.unitOrthogonal();
  j.rel = Quat(Eigen::AngleAxisd(0.7, Vec3(0, 1, 1).normalized()));
  j.limited = limited;
  j.lo = -0.5;
  j.hi = 0.8;
  return j;
}

}  // namespace

TEST(Constraints, ContactJacobianMatchesFiniteDifferences) {
  for (bool body_frame : {true, false}) {
    ContactConstraint k;
    k.a = rigid_side(0, Vec3(0.2, -0.3, 0.1), body_frame);
    k.b = rigid_side(1, Vec3(-0.1, 0.2, 0.4), body_frame);
    k.normal = Vec3(0.3, 0.2, 1.0).normalized();
    k.tangent_origin = Vec3(0.1, 0.2, 0.3);
    check_jacobian(Config(1), [&](const Configuration& c, BlockRows& b) { contact_rows(c, k, b); }, 1e-6);
  }
  ContactConstraint soft;
  soft.a = rigid_side(0, Vec3(0.2, -0.3, 0.1), true);
  soft.b = triangle_side();
  soft.normal = Vec3(0.0, 0.6, 0.8);
  check_jacobian(Config(2), [&](const Configuration& c, BlockRows& b) { contact_rows(c, soft, b); }, 1e-6);
}

TEST(Constraints, ContactGeometricStiffness) {
  ContactConstraint k;
  k.a = rigid_side(0, Vec3(0.2, -0.3, 0.1), true);
  k.b = rigid_side(1, Vec3(-0.1, 0.2, 0.4), true);
  k.normal = Vec3(0.3, 0.2, 1.0).normalized();
  check_stiffness(Config(3), [&](const Configuration& c, BlockRows& b) { contact_rows(c, k, b); },
                  [&](const Configuration& c, const double* l, std::vector<Vec6>& d) { add_geometric_stiffness(c, k, l, d); },
                  1e-5);
}

TEST(Constraints, AttachmentJacobianAndStiffness) {
  AttachmentConstraint a;
  a.particle = 2;
  a.target = rigid_side(1, Vec3(0.3, 0.1, -0.2), true);
  const Eval eval = [&](const Configuration& c, BlockRows& b) { attachment_rows(c, a, b); };
  check_jacobian(Config(4), eval, 1e-6);
  check_stiffness(Config(4), eval,
                  [&](const Configuration& c, const double* l, std::vector<Vec6>& d) { add_geometric_stiffness(c, a, l, d); },
                  1e-5);
}

TEST(Constraints, JointJacobiansMatchFiniteDifferences) {
  for (JointType t : {JointType::Ball, JointType::Hinge, JointType::Prismatic, JointType::Fixed})
    for (bool limited : {false, true})
      for (int b : {1, -1}) {
        SCOPED_TRACE(std::string(joint_type_name(t)) + (limited ? " limited" : "") + (b < 0 ? " to world" : ""));
        const JointConstraint j = joint(t, limited, b);
        check_jacobian(Config(5), [&](const Configuration& c, BlockRows& r) { joint_rows(c, j, r); }, 1e-6);
      }
}

TEST(Constraints, JointGeometricStiffnessMatchesFiniteDifferences) {
  for (JointType t : {JointType::Ball, JointType::Hinge, JointType::Prismatic, JointType::Fixed})
    for (bool limited : {false, true}) {
      SCOPED_TRACE(std::string(joint_type_name(t)) + (limited ? " limited" : ""));
      const JointConstraint j = joint(t, limited);
      check_stiffness(Config(6), [&](const Configuration& c, BlockRows& r) { joint_rows(c, j, r); },
                      [&](const Configuration& c, const double* l, std::vector<Vec6>& d) {
                        add_geometric_stiffness(c, j, l, d);
                      },
                      1e-4);
    }
}

TEST(Constraints, JointRowsVanishAtRestAndCountAsDocumented) {
  Config cfg(8);
  for (JointType t : {JointType::Ball, JointType::Hinge, JointType::Prismatic, JointType::Fixed}) {
    // build the joint at the current configuration so that it is satisfied
    JointConstraint j = joint(t, true);
    const Vec3 p = cfg.x[0] + Vec3(0.1, 0.2, 0.3);
    j.anchor_a = cfg.q[0].conjugate() * (p - cfg.x[0]);
    j.anchor_b = cfg.q[1].conjugate() * (p - cfg.x[1]);
    const Vec3 axis = Vec3(0.0, 0.0, 1.0);
    j.axis_a = cfg.q[0].conjugate() * axis;
    j.u1_a = j.axis_a.unitOrthogonal();
    j.u2_a = j.axis_a.cross(j.u1_a);
    j.axis_b = cfg.q[1].conjugate() * axis;
    j.u1_b = cfg.q[1].conjugate() * (cfg.q[0] * j.u1_a);
    j.rel = cfg.q[0].conjugate() * cfg.q[1];
    BlockRows b;
    joint_rows(cfg.view(), j, b);
    EXPECT_EQ(b.rows, joint_equality_rows(t) + (t == JointType::Hinge || t == JointType::Prismatic ? 2 : 0));
    for (int r = 0; r < b.rows; ++r) {
      if (b.kind[std::size_t(r)] == RowKind::Limit) {
        EXPECT_GT(b.value[r], 0.0);  // 0 lies inside [lo, hi]
      } else {
        EXPECT_NEAR(b.value[r], 0.0, 1e-12) << joint_type_name(t) << " row " << r;
      }
    }
    const JointError e = joint_error(cfg.view(), j);
    EXPECT_LT(e.linear, 1e-12);
    EXPECT_LT(e.angular, 1e-12);
  }
}

TEST(Constraints, HingeAngleLimitRowsMeasureTheAngleAboutTheAxis) {
  std::vector<Vec3> x{Vec3::Zero(), Vec3::Zero()}, w(2, Vec3::Zero());
  // a turned by 0.3 about the axis relative to b: the joint angle (a relative to b) is 0.3
  std::vector<Quat> q{Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ())), Quat::Identity()};
  Configuration c;
  c.x = x.data();
  c.q = q.data();
  c.w = w.data();
  c.num_rigid = 2;
  JointConstraint j;
  j.type = JointType::Hinge;
  j.a = 0;
  j.b = 1;
  j.limited = true;
  j.lo = -0.1;
  j.hi = 0.2;
  BlockRows b;
  joint_rows(c, j, b);
  ASSERT_EQ(b.rows, 7);
  EXPECT_NEAR(b.value[5], 0.3 + 0.1, 1e-12);   // angle - lo
  EXPECT_NEAR(b.value[6], 0.2 - 0.3, 1e-12);   // hi - angle: violated
  const JointError e = joint_error(c, j);
  EXPECT_NEAR(e.angular, 0.1, 1e-12);
  EXPECT_NEAR(e.linear, 0.0, 1e-12);
}

TEST(Constraints, ElementJacobianAndStiffness) {
  ElementConstraintDef e;
  e.particle = {0, 1, 2, 3};
  e.Dm_inv = Mat3::Identity();  // rest: the unit corner tetrahedron
  e.volume = 1.0 / 6.0;
  for (MaterialModel model : {MaterialModel::StVK, MaterialModel::Linear}) {
    ElementMaterial m{model, lame_from_young(1e5, 0.3), 0.0};
    const Eval eval = [&](const Configuration& c, BlockRows& b) { element_rows(c, e, m, b); };
    check_jacobian(Config(9), eval, 1e-6);
  }
  ElementMaterial stvk{MaterialModel::StVK, lame_from_young(1e5, 0.3), 0.0};
  check_stiffness(Config(9), [&](const Configuration& c, BlockRows& b) { element_rows(c, e, stvk, b); },
                  [&](const Configuration& c, const double* l, std::vector<Vec6>& d) {
                    add_geometric_stiffness(c, e, stvk, l, d);
                  },
                  1e-5);
  // corotational and Neo-Hookean: the stiffness is the difference quotient of their own J^T lambda
  for (MaterialModel model : {MaterialModel::Corotational, MaterialModel::NeoHookean}) {
    Lame lame = lame_from_young(1e5, 0.3);
    if (model == MaterialModel::NeoHookean) lame = stable_neo_hookean_lame(lame);
    ElementMaterial m{model, lame, 0.0};
    check_stiffness(Config(10), [&](const Configuration& c, BlockRows& b) { element_rows(c, e, m, b); },
                    [&](const Configuration& c, const double* l, std::vector<Vec6>& d) {
                      add_geometric_stiffness(c, e, m, l, d);
                    },
                    1e-3);
  }
}

TEST(Constraints, SecantStiffnessOfEq73RecoversTheDiagonal) {
  // a ball joint: g(u) = (J^T lambda)(u) at fixed lambda; a step along one rotation coordinate
  // gives c_k = -(dg_k + M du_k) / du_k, i.e. -M - K_kk; with M = 0 the secant is -K_kk
  Config cfg(11);
  const JointConstraint j = joint(JointType::Ball, false);
  const double lambda[3] = {0.3, -0.7, 0.5};
  std::vector<Vec6> diag(std::size_t(cfg.dofs()), Vec6::Zero());
  add_geometric_stiffness(cfg.view(), j, lambda, diag);
  const double du = 1e-6;
  const auto g = [&](const Config& c) {
    BlockRows b;
    joint_rows(c.view(), j, b);
    double s = 0.0;
    for (int r = 0; r < 3; ++r) s += lambda[r] * jac(b, r, 1, 4);
    return s;
  };
  Config moved = cfg;
  moved.perturb(1, 4, du);
  const double ck = secant_stiffness(g(moved), g(cfg), 0.0, du);
  EXPECT_NEAR(-ck, diag[1][4], 1e-4 * std::max(1.0, std::abs(diag[1][4])));
  EXPECT_EQ(stiffness_shift(-2.0), 2.0);  // eq. 74 only ever adds mass
  EXPECT_EQ(stiffness_shift(3.0), 0.0);
}

TEST(Constraints, FlatRowsKeepEveryBlock) {
  Config cfg(12);
  ConstraintSet set;
  ContactConstraint k;
  k.a = rigid_side(0, Vec3(0.1, 0.0, 0.0), true);
  k.b = triangle_side();
  set.contacts.push_back(k);
  set.joints.push_back(joint(JointType::Hinge, true));
  AttachmentConstraint a;
  a.particle = 1;
  a.target = rigid_side(1, Vec3::Zero(), true);
  set.attachments.push_back(a);
  ElementConstraintDef e;
  e.particle = {0, 1, 2, 3};
  e.volume = 1.0 / 6.0;
  set.elements.push_back(e);
  set.materials.push_back({MaterialModel::StVK, lame_from_young(1e5, 0.3), 0.0});
  ConstraintRows rows;
  evaluate_constraints(cfg.view(), set, rows);
  EXPECT_EQ(rows.rows(), 3 + 7 + 3 + 6);
  EXPECT_EQ(rows.block_start.size(), 5u);
  EXPECT_EQ(rows.compliance_start.back(), 9 + 49 + 9 + 36);
  // every entry is a valid DOF and the rows' J agree with the blocks'
  BlockRows hinge;
  joint_rows(cfg.view(), set.joints[0], hinge);
  for (int r = 0; r < hinge.rows; ++r) {
    const int row = rows.block_start[1] + r;
    EXPECT_EQ(rows.value[std::size_t(row)], hinge.value[r]);
    for (int e2 = rows.entry_start[std::size_t(row)]; e2 < rows.entry_start[std::size_t(row) + 1]; ++e2) {
      const int d = rows.entry_dof[std::size_t(e2)];
      ASSERT_TRUE(d == 0 || d == 1);
      for (int c = 0; c < 6; ++c) EXPECT_EQ(rows.entry_J[std::size_t(e2)][c], jac(hinge, r, d, c));
    }
  }
}
