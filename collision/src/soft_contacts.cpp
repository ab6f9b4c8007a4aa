// Soft-body contact detection (seed 002 s.5): soft surface vertices against rigid shapes,
// rigid shape corners against soft surface triangles, and vertices of one soft body against
// the triangles of another.
//
// Why it is built this way:
// - Vertex against rigid shape reuses the narrowphase: the vertex is a small ball (radius
//   max(thickness, kMinBall)) given to `collide` against each (compound child) shape, and the
//   deepest point per vertex and body is kept. The ball's extra radius over `thickness` is
//   taken back out of the depth, so the contact's gap is exactly the vertex's signed distance to
//   the shape minus the thickness. The ball needs a shape id, so the library is copied once
//   per call with the ball appended (shapes share their meshes; a caller that calls this every
//   step may later keep that copy). Triangle meshes are the exception: their narrowphase
//   ignores a ball whose centre is behind a triangle (thin walls), which would lose a vertex
//   that went deep into a closed mesh, so meshes use the signed point query below.
// - Point against a closed triangle surface (`surface_query`): the nearest triangle within
//   range (the kDOP tree gives the candidates). The point is outside when it lies in front of
//   one of the nearest triangles (ties: several triangles share the nearest edge or vertex);
//   then the normal joins the closest point to the point. Inside, the nearest triangle that the
//   point projects into gives its face normal and the projection, unless the nearest feature is
//   strictly closer (a concave edge or vertex), which then gives the normal. Depth is bounded:
//   a point deeper than the bound is not a contact (the soft body's tree is queried with it).
// - Soft trees are rebuilt at every call (build_bvh over the current positions); their order
//   and queries depend on the positions only.
// - Determinism: every loop runs in index order; soft bodies are processed in parallel, each
//   writing its own buffer (the contacts whose point side or vertex side is that body), and the
//   buffers are concatenated in body order and sorted with soft_contact_less.
#include <coulomb/narrowphase.h>
#include <coulomb/soft_contacts.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {
namespace {

constexpr double kMinBall = 1e-5;        // smallest ball radius given to a vertex for `collide` (unit: m)
constexpr int kChildStride = 1024;       // compound child k's feature f is (k + 1) * kChildStride + f
constexpr int kMaxCompoundDepth = 16;
constexpr int kCylinderRim = 8;          // corner points per cylinder cap for RigidTriangle contacts
constexpr double kPi = 3.14159265358979323846;

// Closest point of triangle (a, b, c) to p and its barycentric weights (Ericson, Real-Time
// Collision Detection (2005), s.5.1.5, keeping the weights of each Voronoi region).
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

// A closed, outward-wound triangle surface in some frame, with its tree.
struct SurfaceRef {
  const std::vector<Vec3>& x;
  const std::vector<std::array<int, 3>>& tris;
  const std::vector<Vec3>& normals;  // unit outward (zero for a degenerate triangle)
  const KdopBvh& bvh;
  double scale;  // size of the surface, for relative tolerances
};

// The answer of surface_query: the surface point q = sum w_i x_i of triangle `tri`, the unit
// normal n leaving the surface there and the signed distance n . (p - q) (< 0 inside).
struct SurfaceHit {
  int tri = -1;
  Vec3 q = Vec3::Zero(), w = Vec3::Zero(), n = Vec3::UnitZ();
  double dist = 0.0;
};

struct QueryScratch {
  std::vector<int> tris;
  std::vector<Vec3> q, w;
  std::vector<double> d;
};

// Signed distance query of point p against surface s (file comment): reports a point in front
// within `front_range` or inside with depth up to `back_range`.
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

// One soft body at its current positions, with its tree and triangle normals.
struct SoftBody {
  std::vector<Vec3> normals;
  KdopBvh bvh;
  Aabb box;             // of the surface vertices
  double scale = 0.0;   // bounding box diagonal
  double bound = 0.0;   // deepest reported point behind the surface, beyond the envelope
};

// The nearest point of a rigid shape to p (signed, the normal leaving the shape), or false
// when p is farther than `range` from it.
struct ShapeHit {
  Vec3 on = Vec3::Zero(), n = Vec3::UnitZ();
  double dist = std::numeric_limits<double>::infinity();
  int child = -1;
};

struct Context {
  const ShapeLibrary& lib;  // the caller's library with the vertex ball appended
  int ball = -1;
  double ball_radius = 0.0;
};

void point_vs_shape(const Context& cx, int shape, const Pose& pose, const Vec3& p, double range, int child,
                    int depth, QueryScratch& k, std::vector<ContactPoint>& pts, ShapeHit& best) {
  const Shape& s = cx.lib[shape];
  if (s.type == ShapeType::Compound) {
    if (depth >= kMaxCompoundDepth) return;
    for (std::size_t c = 0; c < s.children.size(); ++c) {
      const CompoundChild& ch = s.children[c];
      if (ch.shape < 0 || ch.shape >= int(cx.lib.shapes.size())) continue;
      const Pose cp = pose * ch.pose;
      const Aabb box = cx.lib.aabb(ch.shape, cp, range);
      if (!((p.array() >= box.lo.array()).all() && (p.array() <= box.hi.array()).all())) continue;
      point_vs_shape(cx, ch.shape, cp, p, range, depth == 0 ? int(c) : child, depth + 1, k, pts, best);
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
  pts.clear();
  const double r = cx.ball_radius;
  collide(cx.lib, shape, pose, cx.ball, Pose{p, Quat::Identity()}, range, pts);  // a superset of dist < range
  for (const ContactPoint& c : pts) {
    if (!c.normal.allFinite() || !std::isfinite(c.depth)) continue;
    const double dist = r - c.depth;
    if (dist < best.dist) best = {p - dist * c.normal, c.normal, dist, child};
  }
}

// Corner points of a rigid shape in its frame (ids as documented on ContactSide::feature).
void shape_points(const ShapeLibrary& lib, int shape, const Pose& pose, int depth, int id_base,
                  std::vector<std::pair<Vec3, int>>& out) {
  const Shape& s = lib[shape];
  const auto add = [&](const Vec3& local, int id) { out.push_back({pose.apply(local), id_base + id}); };
  switch (s.type) {
    case ShapeType::Box: {
      const ConvexHull h = s.hull.vertices.size() == 8 ? s.hull : box_hull(s.half_extents);
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
        shape_points(lib, ch.shape, pose * ch.pose, depth + 1, id_base + (int(c) + 1) * kChildStride, out);
      }
      break;
    case ShapeType::Sphere:
    case ShapeType::Plane:
      break;  // smooth or unbounded: their contacts are RigidVertex ones
  }
}

bool inside(const Aabb& box, const Vec3& p) {
  return (p.array() >= box.lo.array()).all() && (p.array() <= box.hi.array()).all();
}

Aabb grown(Aabb box, double by) {
  box.lo.array() -= by;
  box.hi.array() += by;
  return box;
}

ContactSide soft_triangle(int body, const SoftSurface& s, const SurfaceHit& h) {
  ContactSide side;
  side.soft = body;
  side.vertex = (*s.faces)[std::size_t(h.tri)];
  side.weight = h.w;
  side.point = h.q;
  side.feature = h.tri;
  return side;
}

}  // namespace

SoftDetectStats detect_soft_contacts(const SoftDetectInput& in, std::vector<SoftContact>& out) {
  const std::size_t ns = in.soft.size();
  const DetectInput& rg = in.rigid;
  const std::size_t nr = rg.body_shape && rg.shape_pose && rg.shapes ? rg.body_shape->size() : 0;
  const double thick = std::max(in.thickness, 0.0);
  const auto rigid_reach = [&](std::size_t i) { return rg.reach ? (*rg.reach)[i] : 0.0; };

  // the soft bodies' trees, normals and boxes
  std::vector<SoftBody> bodies(ns);
  tbb::parallel_for(std::size_t(0), ns, [&](std::size_t i) {
    const SoftSurface& s = in.soft[i];
    SoftBody& b = bodies[i];
    if (!s.x || !s.faces || !s.surface_vertices) return;
    for (int v : *s.surface_vertices) b.box.grow({(*s.x)[std::size_t(v)], (*s.x)[std::size_t(v)]});
    for (const auto& f : *s.faces)
      for (int v : f) b.box.grow({(*s.x)[std::size_t(v)], (*s.x)[std::size_t(v)]});
    if (s.faces->empty()) return;
    b.scale = (b.box.hi - b.box.lo).norm();
    b.bound = in.max_depth >= 0.0 ? in.max_depth : 0.25 * (b.box.hi - b.box.lo).minCoeff();
    b.normals.resize(s.faces->size());
    for (std::size_t t = 0; t < s.faces->size(); ++t) {
      const auto& f = (*s.faces)[t];
      const Vec3 n = ((*s.x)[std::size_t(f[1])] - (*s.x)[std::size_t(f[0])]).cross((*s.x)[std::size_t(f[2])] - (*s.x)[std::size_t(f[0])]);
      b.normals[t] = n.norm() > 0.0 ? Vec3(n.normalized()) : Vec3(Vec3::Zero());
    }
    b.bvh = build_bvh(*s.x, *s.faces, in.k);
  });

  // the vertex ball needs a shape id: the caller's library with one ball appended
  ShapeLibrary lib;
  int ball = -1;
  const double ball_radius = std::max(thick, kMinBall);
  if (nr > 0 && ns > 0) {
    lib = *rg.shapes;
    Shape s;
    s.type = ShapeType::Sphere;
    s.name = "soft vertex";
    s.radius = ball_radius;
    ball = lib.add(std::move(s));
  }
  const Context cx{lib, ball, ball_radius};
  std::vector<Aabb> rigid_box(nr);
  for (std::size_t r = 0; r < nr; ++r) rigid_box[r] = rg.shapes->aabb((*rg.body_shape)[r], (*rg.shape_pose)[r], rg.margin);

  std::vector<std::vector<SoftContact>> found(ns);
  std::vector<SoftDetectStats> stats(ns);
  tbb::parallel_for(std::size_t(0), ns, [&](std::size_t si) {
    const SoftSurface& s = in.soft[si];
    const SoftBody& body = bodies[si];
    if (!s.x || !s.faces || !s.surface_vertices) return;
    const bool has_faces = !s.faces->empty();  // a vertex cloud gets RigidVertex and VertexTriangle contacts only
    const int sb = int(si);
    std::vector<SoftContact>& dst = found[si];
    QueryScratch scratch;
    std::vector<ContactPoint> pts;
    std::vector<std::pair<Vec3, int>> corners;
    const SurfaceRef ref{*s.x, *s.faces, body.normals, body.bvh, std::max(body.scale, 1e-9)};

    for (std::size_t r = 0; r < nr; ++r) {
      const double env = rg.envelope + rigid_reach(r) + s.reach;
      const Aabb rbox = grown(rigid_box[r], env + thick);
      if (!rbox.overlaps(body.box)) continue;
      const int shape = (*rg.body_shape)[r];
      const Pose& pose = (*rg.shape_pose)[r];

      // RigidVertex: each surface vertex near the body, its deepest point against the shape
      for (int v : *s.surface_vertices) {
        const Vec3& x = (*s.x)[std::size_t(v)];
        if (!inside(rbox, x)) continue;
        ShapeHit best;
        point_vs_shape(cx, shape, pose, x, env + thick, -1, 0, scratch, pts, best);
        const double gap = best.dist - thick;
        if (!(gap < env) || !best.on.allFinite() || !best.n.allFinite()) continue;
        SoftContact c;
        c.kind = SoftContactKind::RigidVertex;
        c.a.rigid = int(r);
        c.a.point = best.on;
        c.a.feature = best.child;
        c.b.soft = sb;
        c.b.vertex = {v, -1, -1};
        c.b.weight = Vec3(1, 0, 0);
        c.b.point = x;
        c.normal = best.n;
        c.offset = thick;
        c.depth = -gap;
        dst.push_back(c);
        ++stats[si].rigid_vertex;
      }

      // RigidTriangle: the shape's corners against the soft surface
      if (!has_faces) continue;
      corners.clear();
      shape_points(lib, shape, pose, 0, 0, corners);
      const Aabb sbox = grown(body.box, env + thick);
      for (const auto& [p, id] : corners) {
        if (!inside(sbox, p)) continue;
        SurfaceHit h;
        if (!surface_query(ref, p, env + thick, env + body.bound, scratch, h)) continue;
        const double gap = h.dist - thick;
        if (!(gap < env)) continue;
        SoftContact c;
        c.kind = SoftContactKind::RigidTriangle;
        c.a.rigid = int(r);
        c.a.point = p;
        c.a.feature = id;
        c.b = soft_triangle(sb, s, h);
        c.normal = -h.n;
        c.offset = thick;
        c.depth = -gap;
        dst.push_back(c);
        ++stats[si].rigid_triangle;
      }
    }

    // VertexTriangle: this body's surface vertices against the other soft bodies' triangles
    if (!in.soft_soft) return;
    for (std::size_t sj = 0; sj < ns; ++sj) {
      const SoftSurface& o = in.soft[sj];
      const SoftBody& other = bodies[sj];
      if (sj == si || !o.x || !o.faces || !o.surface_vertices || o.faces->empty()) continue;
      const double env = rg.envelope + s.reach + o.reach;
      const Aabb obox = grown(other.box, env + 2.0 * thick);
      if (!obox.overlaps(body.box)) continue;
      const SurfaceRef oref{*o.x, *o.faces, other.normals, other.bvh, std::max(other.scale, 1e-9)};
      for (int v : *s.surface_vertices) {
        const Vec3& x = (*s.x)[std::size_t(v)];
        if (!inside(obox, x)) continue;
        SurfaceHit h;
        if (!surface_query(oref, x, env + 2.0 * thick, env + other.bound, scratch, h)) continue;
        const double gap = h.dist - 2.0 * thick;
        if (!(gap < env)) continue;
        SoftContact c;
        c.kind = SoftContactKind::VertexTriangle;
        c.a.soft = sb;
        c.a.vertex = {v, -1, -1};
        c.a.weight = Vec3(1, 0, 0);
        c.a.point = x;
        c.b = soft_triangle(int(sj), o, h);
        c.normal = -h.n;
        c.offset = 2.0 * thick;
        c.depth = -gap;
        dst.push_back(c);
        ++stats[si].vertex_triangle;
      }
    }
  });

  const std::size_t start = out.size();
  SoftDetectStats total;
  for (std::size_t i = 0; i < ns; ++i) {
    out.insert(out.end(), found[i].begin(), found[i].end());
    total.rigid_vertex += stats[i].rigid_vertex;
    total.rigid_triangle += stats[i].rigid_triangle;
    total.vertex_triangle += stats[i].vertex_triangle;
  }
  std::sort(out.begin() + std::ptrdiff_t(start), out.end(), soft_contact_less);
  return total;
}

}  // namespace coulomb
