// Point queries of the soft contact kinds (soft_queries.h).
//
// Why they are built this way:
// - Vertex against rigid shape reuses the narrowphase: the vertex is a small ball (radius
//   max(thickness, kMinBall)) given to `collide` against each (compound child) shape, and the
//   deepest point per vertex and body is kept. The ball's extra radius over `thickness` is
//   taken back out of the depth, so the contact's gap is exactly the vertex's signed distance to
//   the shape minus the thickness. The ball is a shape outside the library (collide's overload
//   with an id past the library's end), so the library is never copied. Triangle meshes are the
//   exception: their narrowphase ignores a ball whose centre is behind a triangle (thin walls),
//   which would lose a vertex that went deep into a closed mesh, so meshes use the signed point
//   query below.
// - Point against a closed triangle surface (`surface_query`): the nearest triangle within
//   range (the kDOP tree gives the candidates). The point is outside when it lies in front of
//   one of the nearest triangles (ties: several triangles share the nearest edge or vertex);
//   then the normal joins the closest point to the point. Inside, the nearest triangle that the
//   point projects into gives its face normal and the projection, unless the nearest feature is
//   strictly closer (a concave edge or vertex), which then gives the normal. Depth is bounded:
//   a point deeper than the bound is not a contact (the soft body's tree is queried with it).
//   The answer depends on the triangles within range only, not on how the tree groups them, so
//   a refit tree and a rebuilt one give the same hit (ties go to the lower triangle index).
#include "soft_queries.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb::detail {
namespace {

constexpr double kMinBall = 1e-5;        // smallest ball radius given to a vertex for `collide` (unit: m)
constexpr int kMaxCompoundDepth = 16;
constexpr int kCylinderRim = 8;          // corner points per cylinder cap for RigidTriangle contacts
constexpr double kPi = 3.14159265358979323846;

void point_vs_shape(const VertexBall& cx, int shape, const Pose& pose, const Vec3& p, double range, int child,
                    int depth, QueryScratch& k, ShapeHit& best) {
  const Shape& s = cx.lib[shape];
  if (s.type == ShapeType::Compound) {
    if (depth >= kMaxCompoundDepth) return;
    for (std::size_t c = 0; c < s.children.size(); ++c) {
      const CompoundChild& ch = s.children[c];
      if (ch.shape < 0 || ch.shape >= int(cx.lib.shapes.size())) continue;
      const Pose cp = pose * ch.pose;
      const Aabb box = cx.lib.aabb(ch.shape, cp, range);
      if (!((p.array() >= box.lo.array()).all() && (p.array() <= box.hi.array()).all())) continue;
      point_vs_shape(cx, ch.shape, cp, p, range, depth == 0 ? int(c) : child, depth + 1, k, best);
    }
    return;
  }
  if (s.type == ShapeType::Mesh) {
    if (!s.mesh) return;
    const TriMesh& m = *s.mesh;
    // any point inside a closed mesh is within half its smallest box extent of the surface
    const double inner = m.closed ? 0.5 * (m.hi - m.lo).minCoeff() : 0.0;
    const SurfaceRef ref{m.vertices, m.triangles, m.normals, m.bvh, (m.hi - m.lo).norm()};
    SurfaceHit h;
    if (!surface_query(ref, pose.apply_inverse(p), range, range + inner, k, h)) return;
    if (h.dist < best.dist) best = {pose.apply(h.q), pose.rotate(h.n), h.dist, child};
    return;
  }
  // the vertex as a ball of radius r: depth d of the ball is r minus the signed distance
  std::vector<ContactPoint>& pts = k.pts;
  pts.clear();
  const double r = cx.radius;
  collide(cx.lib, shape, pose, cx.shape, cx.id, Pose{p, Quat::Identity()}, range, pts);  // a superset of dist < range
  for (const ContactPoint& c : pts) {
    if (!c.normal.allFinite() || !std::isfinite(c.depth)) continue;
    const double dist = r - c.depth;
    if (dist < best.dist) best = {p - dist * c.normal, c.normal, dist, child};
  }
}

// Corner points of a rigid shape in the world (ids as documented on ContactSide::feature).
void shape_points(const ShapeLibrary& lib, int shape, const Pose& pose, int depth, int id_base,
                  std::vector<std::pair<Vec3, int>>& out) {
  const Shape& s = lib[shape];
  const auto add = [&](const Vec3& local, int id) { out.push_back({pose.apply(local), id_base + id}); };
  switch (s.type) {
    case ShapeType::Box: {
      if (s.hull.vertices.size() == 8) {
        for (std::size_t i = 0; i < 8; ++i) add(s.hull.vertices[i], int(i));
        break;
      }
      const ConvexHull h = box_hull(s.half_extents);
      for (std::size_t i = 0; i < h.vertices.size(); ++i) add(h.vertices[i], int(i));
      break;
    }
    case ShapeType::Convex:
      for (std::size_t i = 0; i < s.hull.vertices.size(); ++i) add(s.hull.vertices[i], int(i));
      break;
    case ShapeType::Mesh:
      if (s.mesh)
        for (std::size_t i = 0; i < s.mesh->vertices.size(); ++i) add(s.mesh->vertices[i], int(i));
      break;
    case ShapeType::Capsule:
      add(Vec3(0, 0, -(s.half_height + s.radius)), 0);
      add(Vec3(0, 0, s.half_height + s.radius), 1);
      break;
    case ShapeType::Cylinder:
      for (int cap = 0; cap < 2; ++cap)
        for (int i = 0; i < kCylinderRim; ++i) {
          const double angle = 2.0 * kPi * i / kCylinderRim;
          add(Vec3(s.radius * std::cos(angle), s.radius * std::sin(angle), (cap ? 1.0 : -1.0) * s.half_height),
              cap * kCylinderRim + i);
        }
      break;
    case ShapeType::Compound:
      if (depth >= kMaxCompoundDepth) break;
      for (std::size_t c = 0; c < s.children.size(); ++c) {
        const CompoundChild& ch = s.children[c];
        if (ch.shape < 0 || ch.shape >= int(lib.shapes.size())) continue;
        shape_points(lib, ch.shape, pose * ch.pose, depth + 1, id_base + (int(c) + 1) * kSoftChildStride, out);
      }
      break;
    case ShapeType::Sphere:
    case ShapeType::Plane:
      break;  // smooth or unbounded: their contacts are RigidVertex ones
  }
}

}  // namespace

// Ericson, Real-Time Collision Detection (2005), s.5.1.5, keeping the weights of each Voronoi region.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, Vec3& w) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) { w = {1, 0, 0}; return a; }
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) { w = {0, 1, 0}; return b; }
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
    const double v = d1 / (d1 - d3);
    w = {1.0 - v, v, 0.0};
    return a + v * ab;
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) { w = {0, 0, 1}; return c; }
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
    const double t = d2 / (d2 - d6);
    w = {1.0 - t, 0.0, t};
    return a + t * ac;
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
    const double t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    w = {0.0, 1.0 - t, t};
    return b + t * (c - b);
  }
  const double denom = 1.0 / (va + vb + vc);
  const double v = vb * denom, t = vc * denom;
  w = {1.0 - v - t, v, t};
  return a + v * ab + t * ac;
}

bool surface_query(const SurfaceRef& s, const Vec3& p, double front_range, double back_range, QueryScratch& k,
                   SurfaceHit& hit) {
  const double range = std::max(front_range, back_range);
  if (!(range >= 0.0)) return false;
  bvh_query(s.bvh, kdop_of(s.bvh, &p, 1), range, k.tris);
  const std::size_t m = k.tris.size();
  if (m == 0) return false;
  k.q.resize(m);
  k.w.resize(m);
  k.d.resize(m);
  std::size_t best = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const auto& t = s.tris[std::size_t(k.tris[i])];
    k.q[i] = closest_on_triangle(p, s.x[std::size_t(t[0])], s.x[std::size_t(t[1])], s.x[std::size_t(t[2])], k.w[i]);
    k.d[i] = (p - k.q[i]).norm();
    if (!std::isfinite(k.d[i])) k.d[i] = std::numeric_limits<double>::infinity();  // a degenerate triangle
    if (k.d[i] < k.d[best]) best = i;
  }
  const double dmin = k.d[best], tol = 1e-9 * s.scale;
  if (!(dmin <= range)) return false;
  // outside when in front of one of the nearest triangles (those sharing the nearest feature)
  std::size_t front = m;
  double front_height = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    if (k.d[i] > dmin + tol) continue;
    const double h = s.normals[std::size_t(k.tris[i])].dot(p - k.q[i]);
    if (h > front_height) { front_height = h; front = i; }
  }
  if (front < m || dmin <= tol) {
    const std::size_t i = front < m ? front : best;
    if (dmin > front_range) return false;
    const Vec3& nt = s.normals[std::size_t(k.tris[i])];
    hit = {k.tris[i], k.q[i], k.w[i], dmin > tol ? Vec3((p - k.q[i]) / k.d[i]) : nt, k.d[i]};
    return true;
  }
  // inside: the nearest triangle that p projects into, unless a concave feature is closer
  std::size_t face = m;
  double face_depth = std::numeric_limits<double>::infinity();
  Vec3 face_w = Vec3::Zero();
  for (std::size_t i = 0; i < m; ++i) {
    const auto& t = s.tris[std::size_t(k.tris[i])];
    const Vec3& nt = s.normals[std::size_t(k.tris[i])];
    const Vec3 &a = s.x[std::size_t(t[0])], &b = s.x[std::size_t(t[1])], &c = s.x[std::size_t(t[2])];
    const double depth = -nt.dot(p - a);
    if (nt.squaredNorm() == 0.0 || depth < -tol || !(depth < face_depth)) continue;
    // barycentric weights of the projection (areas of the sub-triangles along nt)
    const Vec3 x = p + depth * nt;
    const double area = (b - a).cross(c - a).dot(nt);
    const Vec3 wx((b - x).cross(c - x).dot(nt) / area, (c - x).cross(a - x).dot(nt) / area,
                  (a - x).cross(b - x).dot(nt) / area);
    if (wx.minCoeff() < -1e-9) continue;
    face = i;
    face_depth = depth;
    face_w = wx.cwiseMax(0.0) / wx.cwiseMax(0.0).sum();
  }
  if (face < m && face_depth <= dmin + tol + 1e-6 * dmin) {
    if (face_depth > back_range) return false;
    const int t = k.tris[face];
    const auto& v = s.tris[std::size_t(t)];
    const Vec3 q = face_w[0] * s.x[std::size_t(v[0])] + face_w[1] * s.x[std::size_t(v[1])] + face_w[2] * s.x[std::size_t(v[2])];
    hit = {t, q, face_w, s.normals[std::size_t(t)], -std::max(face_depth, 0.0)};
    return true;
  }
  if (dmin > back_range) return false;
  hit = {k.tris[best], k.q[best], k.w[best], Vec3((k.q[best] - p) / dmin), -dmin};
  return true;
}

VertexBall vertex_ball(const ShapeLibrary& lib, double thickness) {
  VertexBall b{lib, Shape{}, int(lib.shapes.size()), std::max(thickness, kMinBall)};
  b.shape.type = ShapeType::Sphere;
  b.shape.name = "soft vertex";
  b.shape.radius = b.radius;
  return b;
}

void point_vs_shape(const VertexBall& ball, int shape, const Pose& pose, const Vec3& p, double range,
                    QueryScratch& k, ShapeHit& best) {
  point_vs_shape(ball, shape, pose, p, range, -1, 0, k, best);
}

void shape_corners(const ShapeLibrary& lib, int shape, const Pose& pose, std::vector<std::pair<Vec3, int>>& out) {
  out.clear();
  shape_points(lib, shape, pose, 0, 0, out);
}

}  // namespace coulomb::detail
