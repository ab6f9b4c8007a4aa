// Contact Jacobian rows (seed 000 eq. 52-56) against finite differences of the gap and of the
// relative motion of the two material points at the contact.
#include <coulomb/contact_assembly.h>
#include <coulomb/integrators.h>
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>

using namespace coulomb;

namespace {

struct TwoBodies {
  RigidModel model;
  RigidState state;
  TwoBodies() {
    model.add("a", 0, 0, false, 2.0, Vec3(1, 2, 3), Pose{});
    model.add("b", 0, 0, false, 3.0, Vec3(2, 1, 1), Pose{});
    state.resize(2);
    state.x[0] = Vec3(0.1, -0.2, 0.3);
    state.q[0] = Quat(Eigen::AngleAxisd(0.4, Vec3(1, 1, 0).normalized()));
    state.v[0] = Vec3(0.3, -0.1, 0.2);
    state.w[0] = Vec3(1.0, 0.5, -0.7);
    state.x[1] = Vec3(0.4, 0.1, 1.2);
    state.q[1] = Quat(Eigen::AngleAxisd(-1.1, Vec3(0, 1, 2).normalized()));
    state.v[1] = Vec3(-0.2, 0.4, -0.5);
    state.w[1] = Vec3(-0.3, 0.8, 0.6);
  }
  Vec6 u(int i) const {
    Vec6 out;
    out << state.v[std::size_t(i)], state.w[std::size_t(i)];
    return out;
  }
};

}  // namespace

TEST(ContactJacobian, RowsGiveRelativeVelocityOfMaterialPoints) {
  TwoBodies tb;
  const Vec3 p(0.3, 0.0, 0.8);  // contact point
  const Vec3 n = Vec3(0.2, 0.1, 1.0).normalized();
  Vec3 t, s;
  tangent_basis(n, t, s);
  Mat46 Ja, Jb;
  contact_jacobian(n, t, s, p - tb.state.x[0], p - tb.state.x[1], Ja, Jb);
  const Vec4 v = Ja * tb.u(0) + Jb * tb.u(1);

  // material points of p on both bodies, moved by a small time step with central differences
  const Vec3 la = tb.state.body_pose(0).apply_inverse(p), lb = tb.state.body_pose(1).apply_inverse(p);
  const double eps = 1e-6;
  auto rel = [&](double h) {
    RigidState s = tb.state;
    integrate_positions(tb.model, s, h);
    return Vec3(s.body_pose(1).apply(lb) - s.body_pose(0).apply(la));
  };
  const Vec3 dp = (rel(eps) - rel(-eps)) / (2 * eps);
  EXPECT_NEAR(v[0], n.dot(dp), 1e-7);
  EXPECT_NEAR(v[1], t.dot(dp), 1e-7);
  EXPECT_NEAR(v[2], s.dot(dp), 1e-7);
  // torsion row: relative spin about n (eq. 52 last row)
  EXPECT_NEAR(v[3], n.dot(tb.state.w[1] - tb.state.w[0]), 1e-14);
}

TEST(ContactJacobian, NormalRowIsTheGapRate) {
  // a box corner over a fixed plane z = 0: gap(q) = z of the corner, so dg/dt = J_N u
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  model.add("box", 0, 0, false, 1.0, Vec3(1, 1, 1), Pose{});
  RigidState st;
  st.resize(2);
  st.x[1] = Vec3(0, 0, 0.7);
  st.q[1] = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 0).normalized()));
  st.v[1] = Vec3(0.1, 0.2, -0.5);
  st.w[1] = Vec3(2.0, -1.0, 0.5);
  const Vec3 corner_local(0.5, -0.5, -0.5);
  auto gap = [&](double h) {
    RigidState s = st;
    integrate_positions(model, s, h);
    return s.body_pose(1).apply(corner_local).z();
  };
  const Vec3 p = st.body_pose(1).apply(corner_local);
  Vec3 t, s;
  const Vec3 n = Vec3::UnitZ();  // from the plane (body 0) to the box (body 1)
  tangent_basis(n, t, s);
  Mat46 Ja, Jb;
  contact_jacobian(n, t, s, p - st.x[0], p - st.x[1], Ja, Jb);
  Vec6 u;
  u << st.v[1], st.w[1];
  const double eps = 1e-6;
  EXPECT_NEAR((Jb * u)[0], (gap(eps) - gap(-eps)) / (2 * eps), 1e-7);
}

TEST(ContactJacobian, ActionReactionAndFrameOrthonormality) {
  TwoBodies tb;
  const Vec3 n = Vec3(1, -2, 0.5).normalized();
  Vec3 t, s;
  tangent_basis(n, t, s);
  EXPECT_NEAR(t.dot(n), 0, 1e-15);
  EXPECT_NEAR(s.dot(n), 0, 1e-15);
  EXPECT_NEAR(t.dot(s), 0, 1e-15);
  EXPECT_NEAR(n.cross(t).dot(s), 1.0, 1e-15);  // right-handed [n t s]
  Mat46 Ja, Jb;
  const Vec3 p(0.2, 0.2, 0.7);
  contact_jacobian(n, t, s, p - tb.state.x[0], p - tb.state.x[1], Ja, Jb);
  // an impulse lambda gives equal and opposite forces: J_a^T lambda + J_b^T lambda has zero force
  const Vec4 lambda(1.3, -0.2, 0.4, 0.1);
  const Vec6 fa = Ja.transpose() * lambda, fb = Jb.transpose() * lambda;
  EXPECT_NEAR((fa.head<3>() + fb.head<3>()).norm(), 0.0, 1e-14);
  // and zero net torque about the contact point
  const Vec3 torque = fa.tail<3>() + fb.tail<3>() + (tb.state.x[0] - p).cross(fa.head<3>()) +
                      (tb.state.x[1] - p).cross(fb.head<3>());
  EXPECT_NEAR(torque.norm(), 0.0, 1e-14);
}

TEST(ContactAssembly, SpeculativeAndRestitutionTermsOfTheNormalRow) {
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  model.add("ball", 0, 0, false, 1.0, Vec3::Ones(), Pose{});
  RigidState st;
  st.resize(2);
  st.v[1] = Vec3(0, 0, -2.0);
  std::vector<Vec6> u_free(2, Vec6::Zero());
  u_free[1].head<3>() = st.v[1];
  Contact c{0, 1, Vec3(0, 0, 0), Vec3::UnitZ(), -0.005, -1, -1};
  AssemblySettings as;
  as.dt = 0.01;
  as.gap_horizon = 0.01;
  ContactProblem p;
  // separated by 5 mm, closing at 2 m/s, e = 0.5: touches within the step -> v+ >= 0.5 * 2
  assemble_contacts(model, st, u_free, {c}, {ContactCoefficients{Vec3(0.5, 0.5, 0), 0.5}}, as, p);
  EXPECT_NEAR(p.b[0][0], -2.0 + 0.5 * -2.0, 1e-12);
  // no restitution: speculative term gap / horizon
  assemble_contacts(model, st, u_free, {c}, {ContactCoefficients{Vec3(0.5, 0.5, 0), 0.0}}, as, p);
  EXPECT_NEAR(p.b[0][0], -2.0 + 0.005 / 0.01, 1e-12);
  // penetrating with Baumgarte: beta * gap / dt
  c.depth = 0.002;
  as.baumgarte_beta = 0.2;
  assemble_contacts(model, st, u_free, {c}, {ContactCoefficients{Vec3(0.5, 0.5, 0), 0.0}}, as, p);
  EXPECT_NEAR(p.b[0][0], -2.0 - 0.2 * 0.002 / 0.01, 1e-12);
}

// The compact blocks the ContactProblem keeps (ContactRows) against the dense 4x6 products of
// eq. 56-60: contact velocity, impulse response M^-1 J^T lambda and A_kk = J M^-1 J^T.
TEST(ContactJacobian, CompactRowsMatchDenseBlocks) {
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  TwoBodies tb;
  const Vec3 p(0.3, 0.0, 0.8);
  const Vec3 n = Vec3(0.2, 0.1, 1.0).normalized();
  Vec3 t, s;
  tangent_basis(n, t, s);
  Mat46 Ja, Jb;
  contact_jacobian(n, t, s, p - tb.state.x[0], p - tb.state.x[1], Ja, Jb);
  ContactProblem problem;
  problem.inv_mass = {0.5, 1.0 / 3.0};
  problem.inv_inertia = {world_inv_inertia(tb.model, tb.state, 0), world_inv_inertia(tb.model, tb.state, 1)};
  problem.add_contact(0, 1, contact_rows(n, t, s, p - tb.state.x[0], p - tb.state.x[1]), Vec4(0.1, 0.2, 0.3, 0.4),
                      Vec3(0.5, 0.5, 0.0), p);
  problem.finalize();
  const ContactRows& r = problem.rows[0];
  EXPECT_EQ(problem.J_a(0), Ja);
  EXPECT_EQ(problem.J_b(0), Jb);
  EXPECT_NEAR((r.velocity(tb.u(0), tb.u(1)) - (Ja * tb.u(0) + Jb * tb.u(1))).norm(), 0.0, 1e-14);
  Mat6 Minv_a = Mat6::Zero(), Minv_b = Mat6::Zero();
  Minv_a.topLeftCorner<3, 3>() = 0.5 * Mat3::Identity();
  Minv_a.bottomRightCorner<3, 3>() = problem.inv_inertia[0];
  Minv_b.topLeftCorner<3, 3>() = Mat3::Identity() / 3.0;
  Minv_b.bottomRightCorner<3, 3>() = problem.inv_inertia[1];
  EXPECT_NEAR((problem.MinvJT_a(0) - Minv_a * Ja.transpose()).norm(), 0.0, 1e-14);
  EXPECT_NEAR((problem.MinvJT_b(0) - Minv_b * Jb.transpose()).norm(), 0.0, 1e-14);
  const Mat4 A = Ja * Minv_a * Ja.transpose() + Jb * Minv_b * Jb.transpose();
  EXPECT_NEAR((problem.A_diag[0] - A).norm(), 0.0, 1e-13 * A.norm());
  const Vec4 lambda(1.0, -0.3, 0.2, 0.05);
  std::vector<Vec6> w;
  problem.body_impulse_response({lambda}, w);
  EXPECT_NEAR((w[0] - Minv_a * Ja.transpose() * lambda).norm(), 0.0, 1e-14);
  EXPECT_NEAR((w[1] - Minv_b * Jb.transpose() * lambda).norm(), 0.0, 1e-14);
  // the dense form goes in too, and one without eq. 56's structure is refused
  ContactProblem dense = problem;
  dense.clear_contacts();
  dense.add_contact(0, 1, Ja, Jb, Vec4::Zero(), Vec3::Zero(), p);
  EXPECT_EQ(dense.rows[0].ang_a, r.ang_a);
  EXPECT_EQ(dense.rows[0].lin, r.lin);
  Mat46 bad = Jb;
  bad(3, 0) = 1.0;  // a linear part in the torsion row
  EXPECT_THROW(dense.add_contact(0, 1, Ja, bad, Vec4::Zero(), Vec3::Zero(), p), std::invalid_argument);
}

// assemble_contacts writes each contact's rows in place and derives its blocks in the same pass
// (finalize_contact): a kept problem that held other contacts, more of them and with a fixed
// body where there now is a moving one, comes out bit for bit as a fresh one, and as the
// separate finalize() of the same rows.
TEST(ContactAssembly, KeptProblemIsRewrittenInFull) {
  TwoBodies tb;
  tb.model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  tb.state.resize(3);
  std::vector<Vec6> u_free = {tb.u(0), tb.u(1), Vec6::Zero()};
  const std::vector<Contact> now = {Contact{0, 1, Vec3(0.3, 0.0, 0.8), Vec3(0.2, 0.1, 1.0).normalized(), 0.001, 1, 2},
                                    Contact{0, 1, Vec3(0.1, 0.2, 0.7), Vec3(0.2, 0.1, 1.0).normalized(), -0.002, 3, 2}};
  std::vector<Contact> before = {Contact{2, 0, Vec3(1, 2, 3), Vec3::UnitX(), 0.1, 0, 0},
                                 Contact{2, 1, Vec3(-1, 0, 2), Vec3::UnitY(), -0.1, 0, 0},
                                 Contact{2, 1, Vec3(0, 4, 1), Vec3::UnitZ(), 0.2, 0, 0}};
  const std::vector<ContactCoefficients> coeff(3, ContactCoefficients{Vec3(0.5, 0.4, 0.1), 0.0});
  AssemblySettings as;
  as.dt = as.gap_horizon = 0.01;
  ContactProblem kept, fresh;
  assemble_contacts(tb.model, tb.state, u_free, before, coeff, as, kept);
  assemble_contacts(tb.model, tb.state, u_free, now, {coeff[0], coeff[1]}, as, kept);
  assemble_contacts(tb.model, tb.state, u_free, now, {coeff[0], coeff[1]}, as, fresh);
  ASSERT_TRUE(kept.finalized);
  ASSERT_EQ(kept.num_contacts(), 2);
  const auto same = [](const auto& x, const auto& y) { return std::memcmp(&x, &y, sizeof(x)) == 0; };
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_TRUE(same(kept.rows[k], fresh.rows[k])) << k;
    EXPECT_TRUE(same(kept.A_diag[k], fresh.A_diag[k])) << k;
    EXPECT_TRUE(same(kept.b[k], fresh.b[k])) << k;
    EXPECT_EQ(kept.rows[k].lin.row(3), Eigen::RowVector3d::Zero());  // no linear torsion part
  }
  ContactProblem again = fresh;  // the same rows through the separate pass
  again.finalize();
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_TRUE(same(again.rows[k], fresh.rows[k])) << k;
    EXPECT_TRUE(same(again.A_diag[k], fresh.A_diag[k])) << k;
  }
}
