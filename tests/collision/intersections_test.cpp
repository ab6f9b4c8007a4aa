// Intersection checker: the triangle-triangle predicate against configurations built to
// intersect or not and against an edge-crossing oracle (the point where an edge crosses the other
// triangle's plane, tested for being on that triangle by its distance), and find_intersections
// against all pairs by brute force.
#include <coulomb/ccd.h>
#include <coulomb/intersections.h>
#include <coulomb/mesh_generators.h>

#include <gtest/gtest.h>

#include <random>

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::intersections_test {
namespace {

Vec3 rnd(std::mt19937_64& g, double s = 1.0) {
  std::uniform_real_distribution<double> u(-s, s);
  return {u(g), u(g), u(g)};
}

// an edge of one triangle passes through the other (generic position: no coplanar parts)
bool edge_crossing_oracle(const std::array<Vec3, 3>& A, const std::array<Vec3, 3>& B) {
  const auto crosses = [](const Vec3& p, const Vec3& q, const std::array<Vec3, 3>& T) {
    const Vec3 n = (T[1] - T[0]).cross(T[2] - T[0]);
    const double dp = n.dot(p - T[0]), dq = n.dot(q - T[0]);
    if (dp * dq > 0) return false;
    const Vec3 x = p + dp / (dp - dq) * (q - p);
    return closest_point_triangle(x, T[0], T[1], T[2]).distance < 1e-12;
  };
  for (int i = 0; i < 3; ++i) {
    if (crosses(A[std::size_t(i)], A[std::size_t((i + 1) % 3)], B)) return true;
    if (crosses(B[std::size_t(i)], B[std::size_t((i + 1) % 3)], A)) return true;
  }
  return false;
}

TEST(Intersections, TrianglePredicateMatchesTheEdgeCrossingOracle) {
  std::mt19937_64 g(3);
  int yes = 0, no = 0;
  for (int i = 0; i < 4000; ++i) {
    std::array<Vec3, 3> A{rnd(g), rnd(g), rnd(g)}, B{rnd(g), rnd(g), rnd(g)};
    const bool want = edge_crossing_oracle(A, B);
    ASSERT_EQ(triangles_intersect(A[0], A[1], A[2], B[0], B[1], B[2]), want) << i;
    EXPECT_EQ(triangles_intersect(B[0], B[1], B[2], A[0], A[1], A[2]), want);
    (want ? yes : no)++;
  }
  EXPECT_GT(yes, 500);
  EXPECT_GT(no, 500);
}

TEST(Intersections, DegenerateContactsCount) {
  const Vec3 a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  // a vertex touching the face, an edge lying on it, a shared corner, coplanar overlap
  EXPECT_TRUE(triangles_intersect(a, b, c, Vec3(0.2, 0.2, 0), Vec3(0.2, 0.2, 1), Vec3(0.5, 0.3, 1)));
  EXPECT_TRUE(triangles_intersect(a, b, c, Vec3(0.1, 0.1, 0), Vec3(0.3, 0.1, 0), Vec3(0.2, 0.2, 1)));
  EXPECT_TRUE(triangles_intersect(a, b, c, Vec3(1, 0, 0), Vec3(2, 0, 1), Vec3(2, 1, 1)));
  EXPECT_TRUE(triangles_intersect(a, b, c, Vec3(0.1, 0.1, 0), Vec3(2, 0.1, 0), Vec3(0.1, 2, 0)));
  EXPECT_TRUE(triangles_intersect(a, b, c, Vec3(0.1, 0.1, 0), Vec3(0.2, 0.1, 0), Vec3(0.1, 0.2, 0)));  // inside
  // coplanar apart, parallel planes, a near miss
  EXPECT_FALSE(triangles_intersect(a, b, c, Vec3(1, 1, 0), Vec3(2, 1, 0), Vec3(1, 2, 0)));
  EXPECT_FALSE(triangles_intersect(a, b, c, Vec3(0, 0, 0.01), Vec3(1, 0, 0.01), Vec3(0, 1, 0.01)));
  EXPECT_FALSE(triangles_intersect(a, b, c, Vec3(0.6, 0.6, -1), Vec3(0.6, 0.6, 1), Vec3(2, 2, 0)));
  // coplanar and apart, with coordinates whose triple products round to noise (two faces of
  // scaled icospheres side by side)
  EXPECT_FALSE(triangles_intersect(Vec3(0, 0.5, 0), Vec3(-0.081229924058226571, 0.47552825814757682, 0.1314327780297834),
                                   Vec3(0.081229924058226571, 0.47552825814757682, 0.1314327780297834),
                                   Vec3(0.69999999999999996, 0.5, 0),
                                   Vec3(0.63501606075341865, 0.48042260651806146, 0.10514622242382672),
                                   Vec3(0.76498393924658126, 0.48042260651806146, 0.10514622242382672)));
  // ... which a tolerance turns into contact
  EXPECT_TRUE(triangles_intersect(a, b, c, Vec3(0, 0, 0.01), Vec3(1, 0, 0.01), Vec3(0, 1, 0.01), 0.02));
  EXPECT_FALSE(triangles_intersect(a, b, c, Vec3(0, 0, 0.01), Vec3(1, 0, 0.01), Vec3(0, 1, 0.01), 0.005));
}

TEST(Intersections, FindsEveryPairThatBruteForceFinds) {
  // two spheres overlapping, a third apart, and one sphere with a vertex pushed through itself
  std::vector<std::vector<Vec3>> x;
  std::vector<Surface> s{icosphere_surface(0.5, 2), icosphere_surface(0.4, 2), icosphere_surface(0.3, 1)};
  const Vec3 at[3] = {Vec3(0, 0, 0), Vec3(0.7, 0.1, 0), Vec3(3, 0, 0)};
  for (int i = 0; i < 3; ++i) {
    x.push_back(s[std::size_t(i)].vertices);
    for (Vec3& p : x.back()) p += at[i];
  }
  x[2][0] = at[2] - 1.5 * (x[2][0] - at[2]);  // folds through the other side of sphere 2
  std::vector<CandidateSurface> surf(3);
  for (int i = 0; i < 3; ++i) {
    surf[std::size_t(i)].x = &x[std::size_t(i)];
    surf[std::size_t(i)].faces = &s[std::size_t(i)].triangles;
  }
  const auto found = find_intersections(surf);
  std::vector<TriangleIntersection> brute;
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b)
      for (int f = 0; f < int(s[std::size_t(a)].triangles.size()); ++f)
        for (int h = (a == b ? f + 1 : 0); h < int(s[std::size_t(b)].triangles.size()); ++h) {
          const auto& F = s[std::size_t(a)].triangles[std::size_t(f)];
          const auto& H = s[std::size_t(b)].triangles[std::size_t(h)];
          if (a == b) {
            bool adjacent = false;
            for (int i : F)
              for (int j : H) adjacent |= i == j;
            if (adjacent) continue;
          }
          const auto& X = x[std::size_t(a)];
          const auto& Y = x[std::size_t(b)];
          if (triangles_intersect(X[std::size_t(F[0])], X[std::size_t(F[1])], X[std::size_t(F[2])], Y[std::size_t(H[0])],
                                  Y[std::size_t(H[1])], Y[std::size_t(H[2])]))
            brute.push_back({a, f, b, h});
        }
  EXPECT_EQ(found, brute);
  int across = 0, self = 0;
  for (const auto& p : found) (p.sa == p.sb ? self : across)++;
  EXPECT_GT(across, 10);
  EXPECT_GT(self, 0);
  // the self pairs go away without self tests, and apart spheres have none
  IntersectionOptions o;
  o.self = false;
  for (const auto& p : find_intersections(surf, o)) EXPECT_NE(p.sa, p.sb);
  x[1] = s[1].vertices;
  for (Vec3& p : x[1]) p += Vec3(2, 0, 0);
  x[2] = s[2].vertices;
  for (Vec3& p : x[2]) p += at[2];
  EXPECT_TRUE(find_intersections(surf).empty());
}

// Two triangles of one face of a soft box (soft_pyramid_small after step 22), coplanar within
// 1e-11 m and 3.5 cm apart: the line-through-the-edge sign test called them crossing.
TEST(Intersections, NearlyCoplanarFlushFacesApart) {
  const Vec3 a0(-0.10100305121767804, 0.000999890853215438, 4.999999991471329e-06);
  const Vec3 a1(-0.050999999999955116, 0.050999999999991948, 5.0000000000000004e-06);
  const Vec3 a2(-0.051001032307062884, 0.00099897868844595517, 4.9999999674001028e-06);
  const Vec3 b0(-0.10100161543405248, 0.051000839551954044, 5.0000000000000004e-06);
  const Vec3 b1(-0.10100133398458086, 0.10100187935973168, 5.0000000000000004e-06);
  const Vec3 b2(-0.050999997449144518, 0.10100014945362254, 5.0000000000000004e-06);
  const Vec3 c1(-0.10100151346086732, 0.10100114241595599, 0.050001397444419039);  // the side face
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, b0, b1, b2));
  EXPECT_FALSE(triangles_intersect(a0, a1, a2, b0, c1, b1));
  // the same pair moved into each other still intersects
  const Vec3 d(0.03, -0.03, 0.0);
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, b0 + d, b1 + d, b2 + d));
  EXPECT_TRUE(triangles_intersect(a0, a1, a2, b0 + d, c1 + d, b1 + d));
}

}  // namespace
}  // namespace coulomb::intersections_test
