// CCD of vertex-face and edge-edge pairs (seed 004 s.5.2) against a brute-force oracle: the
// distance of the two features sampled densely over the step and refined around each local
// minimum, with distances from formulas independent of the ones ccd.cpp uses (the nearest of
// the face's plane projection and its edges; the nearest of the two lines' common
// perpendicular and the four end-point distances).
#include <coulomb/ccd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace coulomb {
namespace {

// distance of a point to a segment (clamped projection)
double point_segment(const Vec3& p, const Vec3& a, const Vec3& b) {
  const Vec3 ab = b - a;
  const double l2 = ab.squaredNorm();
  const double s = l2 > 0 ? std::clamp((p - a).dot(ab) / l2, 0.0, 1.0) : 0.0;
  return (a + s * ab - p).norm();
}

double oracle_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  double d = std::min({point_segment(p, a, b), point_segment(p, b, c), point_segment(p, c, a)});
  // projection on the plane, inside when its barycentric coordinates (least squares) are >= 0
  Eigen::Matrix<double, 3, 2> E;
  E.col(0) = b - a;
  E.col(1) = c - a;
  const Eigen::Matrix2d G = E.transpose() * E;
  if (std::abs(G.determinant()) > 1e-18 * G.norm() * G.norm()) {
    const Eigen::Vector2d uv = G.ldlt().solve(E.transpose() * (p - a));
    if (uv.x() >= 0 && uv.y() >= 0 && uv.x() + uv.y() <= 1) d = std::min(d, (a + E * uv - p).norm());
  }
  return d;
}

double oracle_segment_segment(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
  double d = std::min({point_segment(p, r, s), point_segment(q, r, s), point_segment(r, p, q), point_segment(s, p, q)});
  const Vec3 d1 = q - p, d2 = s - r;
  const Vec3 n = d1.cross(d2);
  if (n.squaredNorm() > 1e-24 * d1.squaredNorm() * d2.squaredNorm()) {
    // interior closest points of the two lines
    const double sa = (r - p).cross(d2).dot(n) / n.squaredNorm();
    const double ub = (r - p).cross(d1).dot(n) / n.squaredNorm();
    if (sa >= 0 && sa <= 1 && ub >= 0 && ub <= 1) d = std::min(d, (p + sa * d1 - r - ub * d2).norm());
  }
  return d;
}

struct Case {
  bool ee = false;
  std::array<Vec3, 4> x0, x1;
  double dist(double t) const {
    std::array<Vec3, 4> x;
    for (int i = 0; i < 4; ++i) x[std::size_t(i)] = (1 - t) * x0[std::size_t(i)] + t * x1[std::size_t(i)];
    return ee ? oracle_segment_segment(x[0], x[1], x[2], x[3]) : oracle_point_triangle(x[0], x[1], x[2], x[3]);
  }
  double lipschitz() const {
    double l = 0;
    const int na = ee ? 2 : 1;
    for (int i = 0; i < na; ++i)
      for (int j = na; j < 4; ++j)
        l = std::max(l, ((x1[std::size_t(i)] - x0[std::size_t(i)]) - (x1[std::size_t(j)] - x0[std::size_t(j)])).norm());
    return l;
  }
  std::optional<CcdHit> run(double eta) const {
    CcdOptions o;
    o.thickness = eta;
    return ee ? ccd_edge_edge(x0[0], x0[1], x0[2], x0[3], x1[0], x1[1], x1[2], x1[3], o)
              : ccd_vertex_face(x0[0], x0[1], x0[2], x0[3], x1[0], x1[1], x1[2], x1[3], o);
  }
};

// Brute force: the earliest time the distance is <= eta, and the smallest distance over the step.
struct Oracle {
  double first = 2.0;  // > 1: none
  double min = 1e300;
};
Oracle brute_force(const Case& c, double eta, int n = 800) {
  Oracle o;
  std::vector<double> d(std::size_t(n) + 1);
  for (int k = 0; k <= n; ++k) d[std::size_t(k)] = c.dist(double(k) / n);
  for (int k = 0; k <= n; ++k) {
    const double dk = d[std::size_t(k)];
    o.min = std::min(o.min, dk);
    if (dk <= eta && o.first > 1) o.first = double(k) / n;
    const bool local_min = (k == 0 || dk <= d[std::size_t(k - 1)]) && (k == n || dk <= d[std::size_t(k + 1)]);
    if (!local_min) continue;
    // golden section on [t_{k-1}, t_{k+1}]
    double lo = std::max(0.0, double(k - 1) / n), hi = std::min(1.0, double(k + 1) / n);
    const double g = 0.6180339887498949;
    for (int it = 0; it < 80; ++it) {
      const double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
      if (c.dist(a) < c.dist(b)) hi = b; else lo = a;
    }
    const double tm = 0.5 * (lo + hi), dm = c.dist(tm);
    o.min = std::min(o.min, dm);
    if (dm <= eta && tm < o.first) {
      // the first time at or below eta on the way down to this minimum (bisection)
      double a = std::max(0.0, double(k - 1) / n), b = tm;
      if (c.dist(a) <= eta) b = a;
      for (int it = 0; it < 60 && b > a; ++it) {
        const double m = 0.5 * (a + b);
        (c.dist(m) <= eta ? b : a) = m;
      }
      o.first = std::min(o.first, b);
    }
  }
  return o;
}

Vec3 rnd(std::mt19937_64& g, double s = 1.0) {
  std::uniform_real_distribution<double> u(-s, s);
  return {u(g), u(g), u(g)};
}

// Random pairs, half of them made to cross: the end positions are chosen so that feature a
// passes through a point of feature b (with a random perturbation).
Case random_case(std::mt19937_64& g, bool ee) {
  Case c;
  c.ee = ee;
  for (auto& x : c.x0) x = rnd(g);
  for (int i = 0; i < 4; ++i) c.x1[std::size_t(i)] = c.x0[std::size_t(i)] + rnd(g, 0.3);
  std::uniform_real_distribution<double> u(0, 1);
  if (u(g) < 0.6) {
    // at a time tc, feature a's point meets feature b's point: shift a's end positions
    const double tc = u(g);
    std::array<Vec3, 4> xt;
    for (int i = 0; i < 4; ++i) xt[std::size_t(i)] = (1 - tc) * c.x0[std::size_t(i)] + tc * c.x1[std::size_t(i)];
    double w1 = u(g), w2 = u(g);
    if (w1 + w2 > 1) { w1 = 1 - w1; w2 = 1 - w2; }
    const Vec3 pb = ee ? Vec3((1 - w1) * xt[2] + w1 * xt[3]) : Vec3((1 - w1 - w2) * xt[1] + w1 * xt[2] + w2 * xt[3]);
    const double sa = u(g);
    const Vec3 pa = ee ? Vec3((1 - sa) * xt[0] + sa * xt[1]) : xt[0];
    const Vec3 shift = (pb - pa + rnd(g, 0.02)) / std::max(tc, 0.05);
    const int na = ee ? 2 : 1;
    for (int i = 0; i < na; ++i) {
      c.x1[std::size_t(i)] += shift;
      c.x0[std::size_t(i)] += Vec3::Zero();
    }
  }
  return c;
}

void check_against_brute_force(const Case& c, double eta, int& hits, int& misses) {
  const Oracle o = brute_force(c, eta);
  const auto h = c.run(eta);
  const double L = c.lipschitz();
  const double dtol = 1e-6 + 1e-5 * L;  // CCD's distance tolerances (time 1e-6, feature 1e-9) with room
  if (o.min < eta - dtol) {
    ASSERT_TRUE(h.has_value()) << "missed contact: oracle min " << o.min << " at first " << o.first;
  }
  if (o.min > eta + dtol) {
    ASSERT_FALSE(h.has_value()) << "false contact at " << h->toi << ", oracle min " << o.min;
  }
  if (!h) {
    ++misses;
    return;
  }
  ++hits;
  // at the reported time the features are within eta (never reported before the contact)
  EXPECT_LE(c.dist(h->toi), eta + dtol);
  // and not later than the first contact of the oracle (sampling resolution 1/800, refined)
  if (o.first <= 1) {
    EXPECT_LE(h->toi, o.first + 1e-6) << "late: oracle " << o.first;
  }
  // the closest points and weights agree, the normal is unit
  EXPECT_NEAR(h->distance, c.dist(h->toi), 1e-9);
  EXPECT_NEAR(h->normal.norm(), 1.0, 1e-12);
  EXPECT_NEAR(h->wa[0] + h->wa[1] + h->wa[2], 1.0, 1e-12);
  EXPECT_NEAR(h->wb[0] + h->wb[1] + h->wb[2], 1.0, 1e-12);
  for (double w : h->wa) EXPECT_GE(w, -1e-12);
  for (double w : h->wb) EXPECT_GE(w, -1e-12);
  if (h->distance > 1e-6) {
    EXPECT_LT((h->normal - (h->pa - h->pb).normalized()).norm(), 1e-9);
  }
}

TEST(Ccd, VertexFaceMatchesBruteForceOnRandomMotions) {
  std::mt19937_64 g(14);
  int hits = 0, misses = 0;
  for (int i = 0; i < 1500; ++i) check_against_brute_force(random_case(g, false), i % 2 ? 0.05 : 0.0, hits, misses);
  // both outcomes are exercised
  EXPECT_GT(hits, 300);
  EXPECT_GT(misses, 300);
}

TEST(Ccd, EdgeEdgeMatchesBruteForceOnRandomMotions) {
  std::mt19937_64 g(41);
  int hits = 0, misses = 0;
  for (int i = 0; i < 1500; ++i) check_against_brute_force(random_case(g, true), i % 2 ? 0.05 : 0.0, hits, misses);
  EXPECT_GT(hits, 300);
  EXPECT_GT(misses, 300);
}

// A unit right triangle in z = 0 and a vertex falling through it from z = 1 to z = -1.
Case falling_vertex(const Vec3& p0, const Vec3& p1) {
  Case c;
  c.x0 = {p0, Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  c.x1 = {p1, Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0)};
  return c;
}

TEST(Ccd, VertexThroughFaceHitsAtTheCrossingWithTheFaceNormal) {
  const auto h = falling_vertex({0.2, 0.3, 1}, {0.2, 0.3, -1}).run(0.0);
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->toi, 0.5, 1e-6);
  EXPECT_LT((h->normal - Vec3::UnitZ()).norm(), 1e-6);  // from the face to where the vertex came from
  EXPECT_NEAR(h->wb[0], 0.5, 1e-6);
  EXPECT_NEAR(h->wb[1], 0.2, 1e-6);
  EXPECT_NEAR(h->wb[2], 0.3, 1e-6);
  // with a thickness, the contact comes when the vertex is eta above the face
  const auto t = falling_vertex({0.2, 0.3, 1}, {0.2, 0.3, -1}).run(0.1);
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->toi, 0.45, 1e-5);
  EXPECT_NEAR(t->distance, 0.1, 1e-5);
  EXPECT_LT((t->normal - Vec3::UnitZ()).norm(), 1e-9);
}

TEST(Ccd, VertexMissingTheFaceIsNoHit) {
  EXPECT_FALSE(falling_vertex({0.8, 0.8, 1}, {0.8, 0.8, -1}).run(0.0));  // outside the hypotenuse
  EXPECT_FALSE(falling_vertex({0.2, 0.3, 1}, {0.2, 0.3, 0.5}).run(0.0));  // stops short
  EXPECT_FALSE(falling_vertex({0.2, 0.3, 1}, {0.2, 0.3, 0.5}).run(0.4));  // ... of the thickness too
  EXPECT_TRUE(falling_vertex({0.2, 0.3, 1}, {0.2, 0.3, 0.5}).run(0.6));
}

TEST(Ccd, GrazingThroughAnEdgeOrAVertexIsAHit) {
  // through the hypotenuse exactly, and through a corner exactly
  EXPECT_TRUE(falling_vertex({0.5, 0.5, 1}, {0.5, 0.5, -1}).run(0.0));
  EXPECT_TRUE(falling_vertex({1, 0, 1}, {1, 0, -1}).run(0.0));
  // two triangles sharing the edge x = y: a vertex crossing the shared edge hits at least one
  Case a = falling_vertex({0.3, 0.3, 1}, {0.3, 0.3, -1});
  a.x0[2] = a.x1[2] = Vec3(1, 1, 0);
  a.x0[3] = a.x1[3] = Vec3(1, 0, 0);
  Case b = a;
  b.x0[3] = b.x1[3] = Vec3(0, 1, 0);
  EXPECT_TRUE(a.run(0.0) || b.run(0.0));
  // a pass beside the edge, at a distance: a hit within that thickness only
  EXPECT_FALSE(falling_vertex({0.5 + 0.05, 0.5 + 0.05, 1}, {0.55, 0.55, -1}).run(0.0));
  EXPECT_TRUE(falling_vertex({0.55, 0.55, 1}, {0.55, 0.55, -1}).run(0.1));
  EXPECT_FALSE(falling_vertex({0.55, 0.55, 1}, {0.55, 0.55, -1}).run(0.05));
}

TEST(Ccd, MotionParallelToTheFaceHitsOnlyWithinTheThickness) {
  // the vertex slides over the face at height 0.05, from outside to outside across it
  const Case c = falling_vertex({-0.5, 0.2, 0.05}, {1.5, 0.2, 0.05});
  EXPECT_FALSE(c.run(0.0));
  EXPECT_FALSE(c.run(0.04));
  const auto h = c.run(0.06);
  ASSERT_TRUE(h);
  // enters the thickness where its horizontal distance to the edge x = 0 is sqrt(0.06^2 - 0.05^2)
  EXPECT_NEAR(h->toi, (0.5 - std::sqrt(0.06 * 0.06 - 0.05 * 0.05)) / 2.0, 1e-5);
}

TEST(Ccd, CoplanarMotionIntoTheFaceIsAHit) {
  // the cubic vanishes identically: the vertex moves in the face's plane, into the triangle
  const Case c = falling_vertex({-1, 0.2, 0}, {0.5, 0.2, 0});
  const auto h = c.run(0.0);
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->toi, 1.0 / 1.5, 1e-5);
  const auto t = c.run(0.1);
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->toi, 0.9 / 1.5, 1e-5);
  EXPECT_LT((t->normal - Vec3(-1, 0, 0)).norm(), 1e-6);
  // coplanar and moving away: none
  EXPECT_FALSE(falling_vertex({-0.5, 0.2, 0}, {-1.5, 0.2, 0}).run(0.1));
}

TEST(Ccd, TouchingAtTheStartIsAHitAtZero) {
  const auto h = falling_vertex({0.2, 0.2, 0}, {0.2, 0.2, 1}).run(0.0);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->toi, 0.0);
  const auto t = falling_vertex({0.2, 0.2, 0.01}, {0.2, 0.2, 1}).run(0.02);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->toi, 0.0);
}

TEST(Ccd, ZeroLengthMotionDependsOnTheDistanceOnly) {
  const Case c = falling_vertex({0.2, 0.2, 0.03}, {0.2, 0.2, 0.03});
  EXPECT_FALSE(c.run(0.02));
  const auto h = c.run(0.04);
  ASSERT_TRUE(h);
  EXPECT_EQ(h->toi, 0.0);
  // the same motion for all four vertices is no relative motion
  Case d = c;
  for (int i = 0; i < 4; ++i) d.x1[std::size_t(i)] = d.x0[std::size_t(i)] + Vec3(3, -2, 1);
  EXPECT_FALSE(d.run(0.02));
}

Case crossing_edges(double z0, double z1) {
  Case c;
  c.ee = true;
  c.x0 = {Vec3(-1, 0, z0), Vec3(1, 0, z0), Vec3(0, -1, 0), Vec3(0, 1, 0)};
  c.x1 = {Vec3(-1, 0, z1), Vec3(1, 0, z1), Vec3(0, -1, 0), Vec3(0, 1, 0)};
  return c;
}

TEST(Ccd, EdgeThroughEdgeHitsWithTheCrossProductNormal) {
  const auto h = crossing_edges(1, -1).run(0.0);
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->toi, 0.5, 1e-6);
  EXPECT_LT((h->normal - Vec3::UnitZ()).norm(), 1e-9);  // towards where edge a came from
  EXPECT_NEAR(h->wa[1], 0.5, 1e-9);
  EXPECT_NEAR(h->wb[1], 0.5, 1e-9);
  const auto up = crossing_edges(-1, 1).run(0.0);
  ASSERT_TRUE(up);
  EXPECT_LT((up->normal + Vec3::UnitZ()).norm(), 1e-9);
  EXPECT_FALSE(crossing_edges(1, 0.2).run(0.1));
  EXPECT_TRUE(crossing_edges(1, 0.2).run(0.3));
}

TEST(Ccd, ParallelEdgesMeetingHeadOnAreAHit) {
  // parallel edges: the cubic vanishes identically, the distance decides
  Case c;
  c.ee = true;
  c.x0 = {Vec3(0, 0, 1), Vec3(1, 0, 1), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  c.x1 = {Vec3(0, 0, -1), Vec3(1, 0, -1), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  const auto h = c.run(0.0);
  ASSERT_TRUE(h);
  EXPECT_NEAR(h->toi, 0.5, 1e-5);
  EXPECT_LT((h->normal - Vec3::UnitZ()).norm(), 1e-6);
  const auto t = c.run(0.2);
  ASSERT_TRUE(t);
  EXPECT_NEAR(t->toi, 0.4, 1e-5);
  // collinear edges sliding along their common line into each other
  Case d;
  d.ee = true;
  d.x0 = {Vec3(-3, 0, 0), Vec3(-2, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  d.x1 = {Vec3(-1, 0, 0), Vec3(0.5, 0, 0) + Vec3(-0.5, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0)};
  const auto e = d.run(0.0);
  ASSERT_TRUE(e);
  EXPECT_NEAR(e->toi, 1.0, 1e-5);
}

}  // namespace
}  // namespace coulomb
