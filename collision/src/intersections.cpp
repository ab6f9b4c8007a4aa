// Intersection checker: one kDOP tree over every surface triangle walked against
// itself, then an exact triangle-triangle test per overlapping pair.
//
// The test (Moller 1997 / Ericson s.5.3.6, arranged around one predicate): two non-coplanar
// triangles share a point exactly when an edge of one meets the other triangle, because the
// intersection of the two is a segment whose end points lie on edges. An edge meets a triangle
// when its end points are not strictly on one side of the triangle's plane and the line through
// it passes inside the triangle's three edges (signs of three triple products); an edge lying in
// the plane, and coplanar triangles, are tested in 2-D in the plane. The predicates are plain
// double triple products with a dead band of 1e-13 times the configuration's size cubed (squared
// in 2-D): nearly coplanar configurations are classified by the 2-D tests in the plane, which
// are well conditioned there (without it, two faces of scaled icospheres side by side, coplanar
// within rounding, are reported as crossing).
#include <coulomb/ccd.h>
#include <coulomb/intersections.h>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>

namespace coulomb {

namespace {

double orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) { return (b - a).cross(c - a).dot(d - a); }

// signs with a dead band: a triple product below eps (relative to the configuration's size
// cubed, or squared in 2-D) counts as zero, so that nearly coplanar configurations go to the
// 2-D tests instead of taking rounding noise for an orientation
struct Eps {
  double e2 = 0.0, e3 = 0.0;
};
int sign3(double x, const Eps& e) { return (x > e.e3) - (x < -e.e3); }
int sign2(double x, const Eps& e) { return (x > e.e2) - (x < -e.e2); }

using Vec2 = Eigen::Vector2d;

double orient2d(const Vec2& a, const Vec2& b, const Vec2& c) {
  return (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
}

bool on_segment2d(const Vec2& a, const Vec2& b, const Vec2& p) {
  return std::min(a.x(), b.x()) <= p.x() && p.x() <= std::max(a.x(), b.x()) && std::min(a.y(), b.y()) <= p.y() &&
         p.y() <= std::max(a.y(), b.y());
}

bool segments_intersect2d(const Vec2& p, const Vec2& q, const Vec2& r, const Vec2& s, const Eps& e) {
  const int d1 = sign2(orient2d(r, s, p), e), d2 = sign2(orient2d(r, s, q), e);
  const int d3 = sign2(orient2d(p, q, r), e), d4 = sign2(orient2d(p, q, s), e);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (d1 == 0 && on_segment2d(r, s, p)) || (d2 == 0 && on_segment2d(r, s, q)) ||
         (d3 == 0 && on_segment2d(p, q, r)) || (d4 == 0 && on_segment2d(p, q, s));
}

bool point_in_triangle2d(const Vec2& p, const Vec2& a, const Vec2& b, const Vec2& c, const Eps& e) {
  const int s1 = sign2(orient2d(a, b, p), e), s2 = sign2(orient2d(b, c, p), e), s3 = sign2(orient2d(c, a, p), e);
  const bool has_neg = s1 < 0 || s2 < 0 || s3 < 0, has_pos = s1 > 0 || s2 > 0 || s3 > 0;
  return !(has_neg && has_pos);
}

// the plane's coordinates dropping the axis of the largest normal component
struct Plane2d {
  int i = 0, j = 1;
  explicit Plane2d(const Vec3& n) {
    int k = 0;
    n.cwiseAbs().maxCoeff(&k);
    i = (k + 1) % 3;
    j = (k + 2) % 3;
  }
  Vec2 operator()(const Vec3& p) const { return {p[i], p[j]}; }
};

// a segment lying in the plane of triangle abc (normal n) against the triangle, in 2-D
bool coplanar_segment_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& n,
                               const Eps& e) {
  const Plane2d P(n);
  const Vec2 p2 = P(p), q2 = P(q), a2 = P(a), b2 = P(b), c2 = P(c);
  return point_in_triangle2d(p2, a2, b2, c2, e) || point_in_triangle2d(q2, a2, b2, c2, e) ||
         segments_intersect2d(p2, q2, a2, b2, e) || segments_intersect2d(p2, q2, b2, c2, e) ||
         segments_intersect2d(p2, q2, c2, a2, e);
}

// whether segment pq shares a point with triangle abc
bool segment_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c, const Eps& e) {
  const int sp = sign3(orient3d(a, b, c, p), e), sq = sign3(orient3d(a, b, c, q), e);
  if (sp * sq > 0) return false;
  const Vec3 n = (b - a).cross(c - a);
  if (sp == 0 && sq == 0) return coplanar_segment_triangle(p, q, a, b, c, n, e);
  // the point where pq meets the plane, inside (or on) the triangle: tested in 2-D in the plane.
  // (The sign test of the line through p and q against the triangle's edges, orient3d(p, q, a, b),
  // is ill-conditioned for a segment nearly in the plane: it reports two flush faces of a soft
  // box, coplanar within 1e-11 m, as crossing 3.5 cm apart.)
  const double op = orient3d(a, b, c, p), oq = orient3d(a, b, c, q);
  const double t = sp == 0 ? 0.0 : sq == 0 ? 1.0 : std::clamp(op / (op - oq), 0.0, 1.0);
  const Vec3 x = p + t * (q - p);
  return coplanar_segment_triangle(x, x, a, b, c, n, e);
}

}  // namespace

bool triangles_intersect(const Vec3& a0, const Vec3& a1, const Vec3& a2, const Vec3& b0, const Vec3& b1,
                         const Vec3& b2, double tolerance) {
  const Vec3* A[3] = {&a0, &a1, &a2};
  const Vec3* B[3] = {&b0, &b1, &b2};
  Vec3 lo = a0, hi = a0;
  for (const Vec3* p : {&a1, &a2, &b0, &b1, &b2}) {
    lo = lo.cwiseMin(*p);
    hi = hi.cwiseMax(*p);
  }
  const double size = (hi - lo).maxCoeff();
  Eps e;
  e.e2 = 1e-13 * size * size;
  e.e3 = e.e2 * size;
  // all of one triangle strictly on one side of the other's plane: apart
  const int sb0 = sign3(orient3d(a0, a1, a2, b0), e), sb1 = sign3(orient3d(a0, a1, a2, b1), e), sb2 = sign3(orient3d(a0, a1, a2, b2), e);
  const int sa0 = sign3(orient3d(b0, b1, b2, a0), e), sa1 = sign3(orient3d(b0, b1, b2, a1), e), sa2 = sign3(orient3d(b0, b1, b2, a2), e);
  const bool apart = (sb0 == sb1 && sb1 == sb2 && sb0 != 0) || (sa0 == sa1 && sa1 == sa2 && sa0 != 0);
  if (!apart) {
    if (sb0 == 0 && sb1 == 0 && sb2 == 0) {  // coplanar: edges cross, or one holds a vertex of the other
      const Vec3 n = (a1 - a0).cross(a2 - a0);
      for (int i = 0; i < 3; ++i)
        if (coplanar_segment_triangle(*B[i], *B[(i + 1) % 3], a0, a1, a2, n, e)) return true;
      const Plane2d P(n);
      if (point_in_triangle2d(P(a0), P(b0), P(b1), P(b2), e)) return true;
    } else {
      for (int i = 0; i < 3; ++i) {
        if (segment_triangle(*A[i], *A[(i + 1) % 3], b0, b1, b2, e)) return true;
        if (segment_triangle(*B[i], *B[(i + 1) % 3], a0, a1, a2, e)) return true;
      }
    }
  }
  if (tolerance <= 0) return false;
  // not intersecting: their distance is that of a vertex to the other triangle or of two edges
  for (int i = 0; i < 3; ++i) {
    if (closest_point_triangle(*A[i], b0, b1, b2).distance < tolerance) return true;
    if (closest_point_triangle(*B[i], a0, a1, a2).distance < tolerance) return true;
    for (int j = 0; j < 3; ++j)
      if (closest_segment_segment(*A[i], *A[(i + 1) % 3], *B[j], *B[(j + 1) % 3]).distance < tolerance) return true;
  }
  return false;
}

std::vector<TriangleIntersection> find_intersections(const std::vector<CandidateSurface>& surfaces,
                                                     const IntersectionOptions& opt) {
  // global numbering: face g of surface s is face_first[s] + f, vertex v is vertex_first[s] + v
  const std::size_t ns = surfaces.size();
  std::vector<int> face_first(ns + 1, 0), vertex_first(ns + 1, 0);
  for (std::size_t s = 0; s < ns; ++s) {
    face_first[s + 1] = face_first[s] + (surfaces[s].faces && surfaces[s].x ? int(surfaces[s].faces->size()) : 0);
    vertex_first[s + 1] = vertex_first[s] + (surfaces[s].faces && surfaces[s].x ? int(surfaces[s].x->size()) : 0);
  }
  std::vector<Vec3> x(static_cast<std::size_t>(vertex_first[ns]));
  std::vector<std::array<int, 3>> tris(static_cast<std::size_t>(face_first[ns]));
  std::vector<int> face_surface(tris.size());
  for (std::size_t s = 0; s < ns; ++s) {
    if (!surfaces[s].faces || !surfaces[s].x) continue;
    std::copy(surfaces[s].x->begin(), surfaces[s].x->end(), x.begin() + vertex_first[s]);
    for (std::size_t f = 0; f < surfaces[s].faces->size(); ++f) {
      const std::size_t g = std::size_t(face_first[s]) + f;
      for (int c = 0; c < 3; ++c) tris[g][std::size_t(c)] = vertex_first[s] + (*surfaces[s].faces)[f][std::size_t(c)];
      face_surface[g] = int(s);
    }
  }
  std::vector<TriangleIntersection> out;
  if (tris.empty()) return out;
  const KdopBvh bvh = build_bvh(x, tris, opt.k);
  std::vector<std::pair<int, int>> pairs;
  bvh_pairs(bvh, bvh, opt.tolerance, pairs);
  // keep g < h of the surfaces the options allow, non-adjacent
  std::vector<std::pair<int, int>> keep;
  for (const auto& [g, h] : pairs) {
    if (g >= h) continue;
    const int sg = face_surface[std::size_t(g)], sh = face_surface[std::size_t(h)];
    const CandidateSurface &A = surfaces[std::size_t(sg)], &B = surfaces[std::size_t(sh)];
    if (sg == sh && (!opt.self || !A.self)) continue;
    if (A.fixed && B.fixed && !opt.fixed_fixed) continue;
    const auto& tg = tris[std::size_t(g)];
    const auto& th = tris[std::size_t(h)];
    bool adjacent = false;
    for (int i : tg)
      for (int j : th) adjacent |= i == j;  // global ids: only within one surface
    if (!adjacent) keep.emplace_back(g, h);
  }
  std::vector<std::uint8_t> hit(keep.size(), 0);
  tbb::parallel_for(std::size_t(0), keep.size(), [&](std::size_t i) {
    const auto& tg = tris[std::size_t(keep[i].first)];
    const auto& th = tris[std::size_t(keep[i].second)];
    hit[i] = triangles_intersect(x[std::size_t(tg[0])], x[std::size_t(tg[1])], x[std::size_t(tg[2])],
                                 x[std::size_t(th[0])], x[std::size_t(th[1])], x[std::size_t(th[2])], opt.tolerance);
  });
  for (std::size_t i = 0; i < keep.size(); ++i) {
    if (!hit[i]) continue;
    const int g = keep[i].first, h = keep[i].second;
    const int sg = face_surface[std::size_t(g)], sh = face_surface[std::size_t(h)];
    out.push_back({sg, g - face_first[std::size_t(sg)], sh, h - face_first[std::size_t(sh)]});
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace coulomb
