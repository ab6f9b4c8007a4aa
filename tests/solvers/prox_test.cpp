// PROX (seed 000): the ellipsoid proximal operator against a brute-force closest point, and the
// Gauss-Seidel / Jacobi schemes with every r-factor strategy on small problems.
#include <coulomb/contact_assembly.h>
#include <coulomb/merit.h>
#include <coulomb/prox.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include <random>

using namespace coulomb;

namespace {

// closest point of the ellipsoid surface by dense sampling + local refinement (independent oracle)
Vec3 brute_force_closest(const Vec3& z, const Vec3& ax) {
  Vec3 best = Vec3::Zero();
  double best_d = std::numeric_limits<double>::infinity();
  const int n = 400;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j < 2 * n; ++j) {
      const double th = M_PI * i / n, ph = M_PI * j / n;
      const Vec3 x(ax[0] * std::sin(th) * std::cos(ph), ax[1] * std::sin(th) * std::sin(ph), ax[2] * std::cos(th));
      const double d = (x - z).squaredNorm();
      if (d < best_d) { best_d = d; best = x; }
    }
  return best;
}

}  // namespace

TEST(ProxEllipsoid, InsidePointsAreUnchanged) {
  EXPECT_EQ(prox_ellipsoid(Vec3(0.1, -0.2, 0.05), Vec3(1, 2, 0.5)), Vec3(0.1, -0.2, 0.05));
}

TEST(ProxEllipsoid, MatchesBruteForceAndOptimality) {
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-3, 3), a(0.2, 2.0);
  for (int trial = 0; trial < 30; ++trial) {
    const Vec3 ax(a(rng), a(rng), a(rng)), z(u(rng), u(rng), u(rng));
    const Vec3 x = prox_ellipsoid(z, ax);
    const double f = (x.array() / ax.array()).square().sum();
    if ((z.array() / ax.array()).square().sum() <= 1.0) continue;
    EXPECT_NEAR(f, 1.0, 1e-10);  // on the surface (eq. 28)
    // eq. 31: x - z is parallel to the outward normal K x
    const Vec3 grad = x.cwiseQuotient(ax.cwiseProduct(ax));
    EXPECT_NEAR((z - x).normalized().cross(grad.normalized()).norm(), 0.0, 1e-7);
    EXPECT_GE((z - x).dot(grad), 0.0);
    EXPECT_LE((x - z).norm(), (brute_force_closest(z, ax) - z).norm() + 1e-9);
  }
}

namespace {

// the projection by eq. 32 at the root of g (eq. 35) found by bisection in long double: an
// oracle that shares no step with the solver's Newton iteration
Vec3 bisection_projection(const Vec3& z, const Vec3& ax) {
  auto g = [&](long double t) {
    long double s = -1.0L;
    for (int i = 0; i < 3; ++i)
      if (ax[i] > 0.0) {
        const long double a2 = (long double)ax[i] * ax[i], q = a2 + t;
        s += a2 * z[i] * z[i] / (q * q);
      }
    return s;
  };
  long double lo = 0.0L, hi = 1.0L;
  while (g(hi) > 0.0L) hi *= 2.0L;
  for (int it = 0; it < 200; ++it) {
    const long double mid = 0.5L * (lo + hi);
    (g(mid) > 0.0L ? lo : hi) = mid;
  }
  Vec3 x = Vec3::Zero();
  for (int i = 0; i < 3; ++i)
    if (ax[i] > 0.0) {
      const long double a2 = (long double)ax[i] * ax[i];
      x[i] = double(a2 * z[i] / (a2 + lo));
    }
  return x;
}

}  // namespace

TEST(ProxEllipsoid, MatchesALongDoubleBisectionFromJustOutsideToFarAway) {
  // The root search (Newton on (1 + g)^(-1/2), stopping on the accuracy of a_i^2 + t) against an
  // independent bisection: flat and long sets (axis ratios up to 1e4), two and three axes, points
  // a hair outside the set (the common case in a sweep: a root far below a_min^2) and far away.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1), e(-4, 0), r(-12, 3);
  int outside = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    Vec3 ax(std::pow(10.0, e(rng)), std::pow(10.0, e(rng)), trial % 2 ? std::pow(10.0, e(rng)) : 0.0);
    Vec3 dir(u(rng), u(rng), ax[2] > 0.0 ? u(rng) : 0.0);
    if (dir.norm() < 1e-3) continue;
    // a point of the surface along dir, pushed out by a relative distance 10^r
    const double f = std::sqrt((dir.array() / ax.array()).square().matrix().head(ax[2] > 0.0 ? 3 : 2).sum());
    const Vec3 on = dir / f;
    const Vec3 z = on * (1.0 + std::pow(10.0, r(rng)));
    const Vec3 x = prox_ellipsoid(z, ax), ref = bisection_projection(z, ax);
    ASSERT_TRUE(x.allFinite());
    if (x == z) continue;  // inside by rounding
    ++outside;
    EXPECT_LE((x - ref).norm(), 1e-14 * ref.norm()) << "axes " << ax.transpose() << " z " << z.transpose();
  }
  EXPECT_GT(outside, 3500);
}

TEST(ProxEllipsoid, UnitCubeScalingHandlesLargeAndTinyInputs) {
  // eq. 37-38: the same geometry at scales 1e-6 and 1e6 gives the same (scaled) answer
  const Vec3 ax(0.3, 0.7, 0.2), z(1.0, -2.0, 0.5);
  const Vec3 x = prox_ellipsoid(z, ax);
  for (double s : {1e-6, 1e6}) EXPECT_NEAR((prox_ellipsoid(s * z, s * ax) / s - x).norm(), 0.0, 1e-9);
}

TEST(ProxEllipsoid, IsotropicDiscAndFlatAxes) {
  // no torsion, equal axes: radial projection onto the disc of radius mu lambda_n
  const Vec3 x = prox_friction(Vec3(3, 4, 7), Vec3(0.5, 0.5, 0.0), 2.0);
  EXPECT_NEAR(x[0], 0.6, 1e-15);
  EXPECT_NEAR(x[1], 0.8, 1e-15);
  EXPECT_EQ(x[2], 0.0);
  // anisotropic ellipse without torsion: on the ellipse, torsion zero
  const Vec3 e = prox_ellipsoid(Vec3(2, 1, 5), Vec3(0.5, 1.0, 0.0));
  EXPECT_EQ(e[2], 0.0);
  EXPECT_NEAR(e[0] * e[0] / 0.25 + e[1] * e[1], 1.0, 1e-10);
  // lambda_n = 0: the set is the origin
  EXPECT_EQ(prox_friction(Vec3(1, 1, 1), Vec3(0.5, 0.5, 0.1), 0.0), Vec3::Zero());
}

namespace {

// a box resting on a fixed body through four corner contacts, sliding diagonally
ContactProblem box_on_ground(const Vec3& v, double mu) {
  RigidModel model;
  model.add("ground", 0, 0, true, 0.0, Vec3::Zero(), Pose{});
  model.add("box", 0, 0, false, 2.0, Vec3(0.1, 0.1, 0.15), Pose{});
  RigidState st;
  st.resize(2);
  st.x[1] = Vec3(0, 0, 0.2);
  std::vector<Vec6> u(2, Vec6::Zero());
  u[1].head<3>() = v;
  std::vector<Contact> contacts;
  std::vector<ContactCoefficients> coeffs;
  for (double x : {-0.3, 0.3})
    for (double y : {-0.2, 0.2}) {
      contacts.push_back(Contact{0, 1, Vec3(x, y, 0), Vec3::UnitZ(), 0.0, -1, -1});
      coeffs.push_back(ContactCoefficients{Vec3(mu, mu, 0.0), 0.0});
    }
  ContactProblem p;
  assemble_contacts(model, st, u, contacts, coeffs, AssemblySettings{}, p);
  return p;
}

// total normal impulse and total friction impulse (world frame) of a solution
std::pair<double, Vec3> totals(const ContactSolution& sol) {
  Vec3 t, s;
  tangent_basis(Vec3::UnitZ(), t, s);
  double n = 0.0;
  Vec3 f = Vec3::Zero();
  for (const Vec4& l : sol.lambda) {
    n += l[0];
    f += l[1] * t + l[2] * s;
  }
  return {n, f};
}

SolverOptions tight(RStrategy strategy) {
  SolverOptions o;
  o.max_iterations = 5000;
  o.abs_tol = 1e-12;
  o.rel_tol = 1e-12;
  o.prox = ProxOptions::for_strategy(strategy);  // global: auto
  return o;
}

}  // namespace

class ProxSchemes : public ::testing::TestWithParam<std::tuple<std::string, RStrategy>> {};

TEST_P(ProxSchemes, DiagonalSlidingGivesExactCoulombFriction) {
  const auto& [solver, strategy] = GetParam();
  // 1 m/s along the diagonal; gravity impulse 2 * 9.81 * 0.01; not enough friction to stop
  const ContactProblem p = box_on_ground(Vec3(1.0 / std::sqrt(2.0), 1.0 / std::sqrt(2.0), -0.0981), 0.3);
  ContactSolution sol;
  const SolverStats st = find_solver(solver)->solve(p, tight(strategy), sol);
  EXPECT_TRUE(st.converged) << solver << " " << strategy;
  EXPECT_LT(st.merit, 1e-8);
  // total friction impulse opposes the motion and equals mu times the normal impulse (the cone)
  const auto [n, f] = totals(sol);
  EXPECT_NEAR(n, 2.0 * 0.0981, 1e-8);  // m g dt: the free velocity -g dt is cancelled
  EXPECT_NEAR(f.norm(), 0.3 * n, 1e-8);
  EXPECT_NEAR(f.normalized().dot(-Vec3(1, 1, 0).normalized()), 1.0, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(SchemesAndStrategies, ProxSchemes,
                         ::testing::Combine(::testing::Values("prox-gs", "prox-jacobi"),
                                            ::testing::Values(RStrategy::Global, RStrategy::Local, RStrategy::Blocked)));

TEST(Prox, BoxFrictionOfPgsIsNotIsotropic) {
  // the same diagonal slide with PGS: each tangent is bounded by mu lambda_n separately, so the
  // friction magnitude reaches sqrt(2) mu lambda_n (seed 000 section 3.1's outer approximation)
  const ContactProblem p = box_on_ground(Vec3(1.0 / std::sqrt(2.0), 1.0 / std::sqrt(2.0), -0.0981), 0.3);
  ContactSolution sol;
  find_solver("pgs")->solve(p, tight(RStrategy::Global), sol);
  const auto [n, f] = totals(sol);
  EXPECT_GT(f.norm(), 1.3 * 0.3 * n);
}

TEST(Prox, DivergenceIsDetectedAndRecovered) {
  // an r far too large for this A: the first sweeps diverge, r is halved until they do not
  const ContactProblem p = box_on_ground(Vec3(0.2, 0.1, -0.0981), 0.5);
  SolverOptions o = tight(RStrategy::Global);
  o.prox.r_initial = 5.0;  // the paper's hardwired value, far too large for a 2 kg box (A_ii ~ 3)
  o.record_history = true;
  ContactSolution sol;
  const SolverStats st = find_solver("prox-gs")->solve(p, o, sol);
  EXPECT_GT(st.divergence_detections, 0);
  EXPECT_TRUE(st.converged);
  EXPECT_EQ(int(st.history.size()), st.iterations);
  EXPECT_LT(st.merit, 1e-8);
}

TEST(Prox, JacobiIsIdenticalOnOneAndTwoThreads) {
  const ContactProblem p = box_on_ground(Vec3(0.3, -0.1, -0.0981), 0.4);
  SolverOptions o = tight(RStrategy::Local);
  o.max_iterations = 50;
  ContactSolution one, two;
  find_solver("prox-jacobi")->solve(p, o, one);
  o.threads = 2;
  find_solver("prox-jacobi")->solve(p, o, two);
  for (std::size_t k = 0; k < one.lambda.size(); ++k) EXPECT_EQ(one.lambda[k], two.lambda[k]);
}
