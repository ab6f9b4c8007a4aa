// Intersection checker: every pair of intersecting surface triangles, between two
// surfaces and within one surface, found through one kDOP hierarchy over all triangles. Two
// triangles of one surface that share a vertex (adjacent: a common edge or corner) are not
// tested. Tests run it after every step of a scene: a collision-free step has none.
//
// Two triangles intersect when they share a point (closed sets): a crossing, one touching the
// other, or coplanar overlap. `tolerance` > 0 treats triangles closer than it as intersecting
// too (a separation below the tolerance counts as contact); 0 tests exact intersection (in
// double precision: the segment-triangle tests of Moller 1997 / Ericson s.5.3.6).
#pragma once
#include <coulomb/candidates.h>
#include <coulomb/math.h>

#include <vector>

namespace coulomb {

struct TriangleIntersection {
  int sa = -1, fa = -1;  // surface and face of the first triangle
  int sb = -1, fb = -1;  // of the second: (sa, fa) < (sb, fb)
  friend bool operator<(const TriangleIntersection& a, const TriangleIntersection& b) {
    return std::array<int, 4>{a.sa, a.fa, a.sb, a.fb} < std::array<int, 4>{b.sa, b.fa, b.sb, b.fb};
  }
  friend bool operator==(const TriangleIntersection& a, const TriangleIntersection& b) {
    return a.sa == b.sa && a.fa == b.fa && a.sb == b.sb && a.fb == b.fb;
  }
};

struct IntersectionOptions {
  double tolerance = 0.0;    // triangles closer than this count as intersecting (unit: m), >= 0
  bool self = true;          // test pairs within one surface (non-adjacent triangles)
  bool fixed_fixed = false;  // test pairs of two fixed surfaces
  int k = 18;
};

// Every intersecting triangle pair, sorted and unique. Uses CandidateSurface::x, faces, fixed and
// self (velocities are ignored).
std::vector<TriangleIntersection> find_intersections(const std::vector<CandidateSurface>& surfaces,
                                                     const IntersectionOptions& opt = {});

// Whether two triangles share a point (or are closer than `tolerance`).
bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1, const Vec3& b2,
                         double tolerance = 0.0);

}  // namespace coulomb
