// The NCP functions of seed 003 (ncp.h) and the per-contact forms built on them
// (ncp_contact.h): roots where complementarity holds, derivatives against central finite
// differences swept over random points (away from the kinks), and the friction compliance W of
// eq. 104-105 against its definition from the fixed-point iteration (eq. 33-35, 99-103).
#include <coulomb/ncp.h>
#include <coulomb/ncp_contact.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

namespace coulomb {
namespace {

// central difference of f at x with step h
double central(const std::function<double(double)>& f, double x, double h) { return (f(x + h) - f(x - h)) / (2.0 * h); }

// A derivative is checked where it exists: two step sizes must agree (a kink between x - h and
// x + h makes them differ), then the analytic value must match.
void expect_derivative(const std::function<double(double)>& f, double x, double analytic, const char* what) {
  const double h = 1e-6 * std::max(1.0, std::abs(x));
  const double d1 = central(f, x, h), d2 = central(f, x, 0.5 * h);
  if (std::abs(d1 - d2) > 1e-5 * std::max(1.0, std::abs(d1))) return;  // a kink nearby
  EXPECT_NEAR(analytic, d2, 1e-6 * std::max(1.0, std::abs(d2))) << what << " at " << x;
}

TEST(Ncp, FischerBurmeisterRootsAreComplementarity) {
  // seed 003 eq. 17, 23: phi = 0 iff a >= 0, b >= 0, a b = 0
  EXPECT_EQ(phi_fb(0.0, 3.0).value, 0.0);
  EXPECT_EQ(phi_fb(2.0, 0.0).value, 0.0);
  EXPECT_EQ(phi_fb(0.0, 0.0).value, 0.0);
  EXPECT_GT(std::abs(phi_fb(1.0, 1.0).value), 0.5);   // both positive
  EXPECT_LT(phi_fb(-1.0, 2.0).value, 0.0);             // a < 0
  EXPECT_LT(phi_fb(2.0, -1e-3).value, 0.0);            // b < 0
  EXPECT_EQ(phi_min(0.0, 3.0).value, 0.0);
  EXPECT_EQ(phi_min(2.0, 0.0).value, 0.0);
  EXPECT_EQ(phi_min(1.0, 1.0).value, 1.0);
}

TEST(Ncp, FischerBurmeisterKinkTakesTheSeedsSubgradient) {
  // eq. 26-27: alpha(0, 0) = 0, beta(0, 0) = 1, also in the r-scaled form (beta r)
  const NcpValue v = phi_fb(0.0, 0.0);
  EXPECT_EQ(v.d_a, 0.0);
  EXPECT_EQ(v.d_b, 1.0);
  const NcpValue s = phi_fb_scaled(0.0, 0.0, 4.0);
  EXPECT_EQ(s.d_a, 0.0);
  EXPECT_EQ(s.d_b, 4.0);
}

TEST(Ncp, ScaledFormsMatchFiniteDifferences) {
  // eq. 93-95 (FB) and 96-98 (minimum map): d/dC and d/dlambda with the r-factor inside
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> x(-2.0, 2.0), r_of(0.01, 50.0);
  for (int i = 0; i < 500; ++i) {
    const double c = x(rng), lambda = x(rng), r = r_of(rng);
    const NcpValue fb = phi_fb_scaled(c, lambda, r);
    EXPECT_NEAR(fb.value, c + r * lambda - std::sqrt(c * c + r * r * lambda * lambda), 1e-12);  // eq. 93
    expect_derivative([&](double t) { return phi_fb_scaled(t, lambda, r).value; }, c, fb.d_a, "FB d/dC");
    expect_derivative([&](double t) { return phi_fb_scaled(c, t, r).value; }, lambda, fb.d_b, "FB d/dlambda");
    const NcpValue mn = phi_min_scaled(c, lambda, r);
    EXPECT_EQ(mn.value, std::min(c, r * lambda));  // eq. 96
    expect_derivative([&](double t) { return phi_min_scaled(t, lambda, r).value; }, c, mn.d_a, "min d/dC");
    expect_derivative([&](double t) { return phi_min_scaled(c, t, r).value; }, lambda, mn.d_b, "min d/dlambda");
    // the r-factor leaves the roots alone (section 7): phi(c, r lambda) = 0 iff 0 <= c _|_ lambda >= 0
  }
  EXPECT_EQ(phi_fb_scaled(0.0, 7.0, 0.1).value, 0.0);
  EXPECT_EQ(phi_min_scaled(0.5, 0.0, 100.0).value, 0.0);
}

// W by its definition (eq. 35, 99-103): the next slip and friction magnitude of the fixed-point
// iteration on psi(|v|, r (mu lambda_n - |lambda_f|)), with psi from the scalar NCP function
double w_by_definition(bool fb, double slip, double friction, double limit, double r) {
  const double psi = fb ? phi_fb(slip, r * (limit - friction)).value : phi_min(slip, r * (limit - friction)).value;
  const double next_slip = slip - psi;            // eq. 33 / 99
  const double next_friction = friction + psi / r;  // eq. 34 / 101 (r-scaled)
  return next_slip / next_friction;                 // eq. 103
}

TEST(Ncp, FrictionComplianceIsTheFixedPointRatio) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  int checked = 0;
  for (int i = 0; i < 2000; ++i) {
    const double limit = 0.1 + 2.0 * u01(rng), r = 0.05 + 5.0 * u01(rng);
    const double slip = 3.0 * u01(rng), friction = 1.5 * limit * u01(rng);
    for (bool fb : {true, false}) {
      const double w = fb ? friction_compliance_fb(slip, friction, limit, r)
                          : friction_compliance_min(slip, friction, limit, r);
      const double psi = fb ? phi_fb(slip, r * (limit - friction)).value : phi_min(slip, r * (limit - friction)).value;
      if (!(friction + psi / r > 1e-9 * limit)) continue;  // beyond the cone with a zero next friction: floored
      EXPECT_NEAR(w, w_by_definition(fb, slip, friction, limit, r), 1e-9 * std::max(1.0, w))
          << (fb ? "eq. 104" : "eq. 105") << " slip " << slip << " friction " << friction << " limit " << limit;
      EXPECT_GE(w, 0.0);
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000);
}

TEST(Ncp, FrictionComplianceSticksSlidesAndPenalises) {
  for (bool fb : {true, false}) {
    const auto W = [fb](double slip, double friction, double limit, double r) {
      return fb ? friction_compliance_fb(slip, friction, limit, r) : friction_compliance_min(slip, friction, limit, r);
    };
    // sticking inside the cone: no slip next, W = 0 (phi_f = D^T qdot = 0 imposes no slip)
    EXPECT_EQ(W(0.0, 0.3, 1.0, 2.0), 0.0);
    EXPECT_EQ(W(0.0, 0.0, 1.0, 2.0), 0.0);  // the 0/0 of eq. 104 at rest
    // sliding at the cone's limit: W = |v| / |lambda_f|, so phi_f = v + W lambda_f = 0 iff lambda_f opposes v
    EXPECT_NEAR(W(0.5, 1.0, 1.0, 2.0), 0.5, 1e-15);
    // beyond the limit the compliance grows with the friction (figure 6's penalty)
    EXPECT_GT(W(0.5, 1.2, 1.0, 2.0), W(0.5, 1.1, 1.0, 2.0));
    EXPECT_GT(W(0.5, 1.1, 1.0, 2.0), 0.5);
    EXPECT_TRUE(std::isfinite(W(0.0, 5.0, 1.0, 2.0)));  // a friction far beyond: large but finite
  }
}

// Jacobian blocks of the per-contact functions against central differences, at random points
// where both step sizes agree (no kink between them).
void expect_blocks(const std::function<ContactNcp(const Vec3&, const Vec3&)>& f, const Vec3& u, const Vec3& r,
                   const char* what, int& checked) {
  const ContactNcp c = f(u, r);
  for (int j = 0; j < 3; ++j)
    for (int side = 0; side < 2; ++side) {
      const double h = 1e-6;
      auto at = [&](double t) {
        Vec3 uu = u, rr = r;
        (side == 0 ? uu : rr)[j] += t;
        return f(uu, rr).phi;
      };
      const Vec3 d1 = (at(h) - at(-h)) / (2 * h), d2 = (at(0.5 * h) - at(-0.5 * h)) / h;
      if ((d1 - d2).norm() > 1e-5 * std::max(1.0, d1.norm())) continue;  // a kink nearby
      const Vec3 analytic = side == 0 ? c.d_u.col(j) : c.d_r.col(j);
      EXPECT_LT((analytic - d2).norm(), 1e-5 * std::max(1.0, d2.norm()))
          << what << (side == 0 ? " d/du_" : " d/dr_") << j << " at u = " << u.transpose() << ", r = " << r.transpose()
          << "\nanalytic " << analytic.transpose() << "\nfinite differences " << d2.transpose();
      ++checked;
    }
}

TEST(NcpContact, ConeFormsMatchFiniteDifferences) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> x(-1.0, 1.0), pos(0.05, 2.0);
  int checked_ac = 0, checked_fb = 0;
  for (int i = 0; i < 400; ++i) {
    const Vec3 u(x(rng), x(rng), x(rng)), r(x(rng) + 0.3, x(rng), x(rng));
    const double mu = pos(rng), rn = pos(rng), rf = pos(rng);
    expect_blocks([&](const Vec3& uu, const Vec3& rr) { return contact_ncp_alart_curnier(uu, rr, mu, rn, rf); }, u, r,
                  "Alart-Curnier", checked_ac);
    expect_blocks([&](const Vec3& uu, const Vec3& rr) { return contact_ncp_fb_cone(uu, rr, mu, rn); }, u, r,
                  "FB on the cone", checked_fb);
  }
  EXPECT_GT(checked_ac, 1500);
  EXPECT_GT(checked_fb, 1500);
}

TEST(NcpContact, FixedPointFormMatchesFiniteDifferencesWithWHeldConstant) {
  // eq. 37: the friction rows' derivative is W (held constant) in r_T and the identity in u_T;
  // the normal row is the scalar NCP function's exact derivative
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> x(-1.0, 1.0), pos(0.05, 2.0);
  int checked = 0;
  for (int i = 0; i < 300; ++i) {
    const Vec3 u(x(rng), x(rng), x(rng)), r(x(rng) + 0.3, x(rng), x(rng));
    const double mu = pos(rng), rn = pos(rng), rf = pos(rng);
    for (NcpFunction f : {NcpFunction::FischerBurmeister, NcpFunction::MinMap}) {
      const ContactNcp c = contact_ncp_fixed_point(f, u, r, mu, rn, rf);
      // normal row: against finite differences
      expect_derivative([&](double t) { return contact_ncp_fixed_point(f, Vec3(t, u[1], u[2]), r, mu, rn, rf).phi[0]; },
                        u[0], c.d_u(0, 0), "normal d/du_n");
      expect_derivative([&](double t) { return contact_ncp_fixed_point(f, u, Vec3(t, r[1], r[2]), mu, rn, rf).phi[0]; },
                        r[0], c.d_r(0, 0), "normal d/dr_n");
      // friction rows: phi_T = u_T + W r_T with the W of eq. 104-105, or rho_f r_T without normal impulse
      const double limit = mu * r[0];
      if (limit > 0.0) {
        const double slip = std::hypot(u[1], u[2]), friction = std::hypot(r[1], r[2]);
        const double w = f == NcpFunction::FischerBurmeister ? friction_compliance_fb(slip, friction, limit, rf)
                                                             : friction_compliance_min(slip, friction, limit, rf);
        EXPECT_NEAR((c.phi.tail<2>() - (u.tail<2>() + w * r.tail<2>())).norm(), 0.0, 1e-14);
        EXPECT_EQ(c.d_r(1, 1), w);
        EXPECT_EQ(c.d_u(1, 1), 1.0);
      } else {
        EXPECT_NEAR((c.phi.tail<2>() - rf * r.tail<2>()).norm(), 0.0, 1e-14);
        EXPECT_EQ(c.d_r(2, 2), rf);
        EXPECT_EQ(c.d_u(2, 2), 0.0);
      }
      ++checked;
    }
  }
  EXPECT_EQ(checked, 600);
}

TEST(NcpContact, RootsAreTheCoulombSolutions) {
  // each form vanishes exactly at open, sticking and sliding solutions of FCLib's problem
  // (r in C, u_hat in C*, r . u_hat = 0), and not at a point that breaks the law
  const double mu = 0.5, rn = 2.0, rf = 3.0;
  struct Case {
    Vec3 u, r;
    bool solution;
  };
  const Case cases[] = {
      {{0.7, 0.3, -0.2}, {0.0, 0.0, 0.0}, true},      // open: u_n > 0, r = 0
      {{0.0, 0.0, 0.0}, {1.0, 0.2, -0.1}, true},      // sticks inside the cone
      {{0.0, 0.6, 0.8}, {2.0, -0.6, -0.8}, true},     // slides: |r_T| = mu r_n, r_T opposite u_T
      {{0.0, 0.6, 0.8}, {2.0, 0.6, 0.8}, false},      // friction along the slip
      {{0.0, 0.6, 0.8}, {2.0, -0.3, -0.4}, false},    // slides inside the cone
      {{0.0, 0.0, 0.0}, {1.0, 0.9, 0.0}, false},      // outside the cone
      {{-0.1, 0.0, 0.0}, {0.0, 0.0, 0.0}, false},     // penetrating without impulse
  };
  for (const Case& c : cases) {
    const double fb = contact_ncp_fb_cone(c.u, c.r, mu, rn).phi.norm();
    const double ac = contact_ncp_alart_curnier(c.u, c.r, mu, rn, rf).phi.norm();
    const double fp_fb = contact_ncp_fixed_point(NcpFunction::FischerBurmeister, c.u, c.r, mu, rn, rf).phi.norm();
    const double fp_min = contact_ncp_fixed_point(NcpFunction::MinMap, c.u, c.r, mu, rn, rf).phi.norm();
    for (double v : {fb, ac, fp_fb, fp_min}) {
      if (c.solution) EXPECT_NEAR(v, 0.0, 1e-14) << "u = " << c.u.transpose() << ", r = " << c.r.transpose();
      else EXPECT_GT(v, 1e-3) << "u = " << c.u.transpose() << ", r = " << c.r.transpose();
    }
  }
}

}  // namespace
}  // namespace coulomb
