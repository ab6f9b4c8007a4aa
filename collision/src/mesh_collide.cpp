// Narrowphase pairs with triangle meshes (seed 000 s.5: kDOP BVH narrowphase, deterministic
// ordering and filtering of redundant contacts).
//
// Why it is built this way:
// - Each triangle is treated as a convex polytope with two faces (front and back), so the exact
//   separating-axis test, libccd and the clipping manifold of the convex path work on it
//   unchanged; only the choice of the contact normal is mesh-specific.
// - Normals are one-sided and never flip: a contact may push an object out of a triangle's front
//   side only. Where the convex answer points elsewhere (behind the triangle, or across an edge
//   that is flat or concave, an "internal edge"), the triangle's face normal is used instead,
//   as Bullet's btAdjustInternalEdgeContacts and Jolt's active edges do. Sharp (convex, > 5
//   degrees) and boundary edges keep their true closest-feature normal.
// - An object whose centre lies behind a triangle's plane is left to the triangles it is in
//   front of: that is what keeps a thin wall from pushing objects through itself.
// - Candidate triangles come from the mesh's kDOP tree queried with the other shape's exact kDOP
//   in the mesh frame (its support mapping along the k/2 axes); mesh-mesh pairs refit a copy of
//   b's tree to b's vertices moved into a's frame and walk both trees together.
// - All points of a pair are filtered and reduced together (reduce_mesh_contacts), sorted by
//   depth and then by index: the same input gives the same contacts in the same order.
#include "mesh_collide.h"

#include "features.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace coulomb::detail {
namespace {

// A triangle of a mesh as a two-faced convex polytope placed like its mesh.
class TriangleShape {
 public:
  TriangleShape() {
    shape_.type = ShapeType::Convex;
    shape_.hull.vertices.resize(3);
    shape_.hull.faces = {{0, 1, 2}, {0, 2, 1}};
    shape_.hull.face_normals.resize(2);
    shape_.hull.face_offsets.resize(2);
  }
  const Shape& set(const TriMesh& m, int t) {
    ConvexHull& h = shape_.hull;
    for (std::size_t i = 0; i < 3; ++i) h.vertices[i] = m.vertices[std::size_t(m.triangles[std::size_t(t)][i])];
    h.face_normals[0] = m.normals[std::size_t(t)];
    h.face_normals[1] = -m.normals[std::size_t(t)];
    h.face_offsets[0] = h.face_normals[0].dot(h.vertices[0]);
    h.face_offsets[1] = -h.face_offsets[0];
    return shape_;
  }

 private:
  Shape shape_;
};

// Whether the feature of triangle t that supports it along u (mesh frame) is a sharp edge or a
// vertex on a sharp edge (a face is not: the caller handles faces).
bool sharp_feature(const TriMesh& m, int t, const Vec3& u) {
  const auto& tri = m.triangles[std::size_t(t)];
  double d[3], size = 0.0;
  for (std::size_t i = 0; i < 3; ++i) {
    d[i] = m.vertices[std::size_t(tri[i])].dot(u);
    size = std::max(size, (m.vertices[std::size_t(tri[(i + 1) % 3])] - m.vertices[std::size_t(tri[i])]).norm());
  }
  const double top = std::max({d[0], d[1], d[2]}), tol = kFeatureSin * size;
  const bool on[3] = {d[0] >= top - tol, d[1] >= top - tol, d[2] >= top - tol};
  const std::uint8_t sharp = m.sharp_edges[std::size_t(t)];
  const auto edge = [&](int e) { return (sharp >> e) & 1u; };
  const int count = int(on[0]) + int(on[1]) + int(on[2]);
  if (count == 2) return edge(on[0] && on[1] ? 0 : on[1] && on[2] ? 1 : 2);
  for (int i = 0; i < 3; ++i)
    if (on[i]) return count == 1 && (edge(i) || edge((i + 2) % 3));  // edges v_i->v_i+1 and v_i-1->v_i
  return false;
}

// max over a of n . x  -  min over b of n . x: the depth a translation along n must undo
double overlap_along(const Placed& a, const Placed& b, const Vec3& n) {
  const Vec3 xa = a.pose.apply(support(a.shape, a.pose.q.conjugate() * n));
  const Vec3 xb = b.pose.apply(support(b.shape, b.pose.q.conjugate() * -n));
  return n.dot(xa - xb);
}

double half_diagonal(const ShapeLibrary& lib, const Placed& p) {
  if (p.shape.type == ShapeType::Mesh) return 0.5 * (p.shape.mesh->hi - p.shape.mesh->lo).norm();
  const Aabb box = lib.aabb(p.index, Pose{}, 0.0);
  return 0.5 * (box.hi - box.lo).norm();
}

// Ericson, Real-Time Collision Detection (2005), s.5.1.5 ClosestPtPointTriangle.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0.0 && d2 <= 0.0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0.0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return a + ab * (d1 / (d1 - d3));
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0.0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return a + ac * (d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) return b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6)));
  const double denom = 1.0 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

// The one-sided normal rule for triangle t of mesh m (placed at `pose`): the axis n (pointing
// away from the triangle) stands when it is the face normal or leaves through a sharp feature
// on the front side; otherwise the face normal replaces it.
bool keeps_axis(const TriMesh& m, int t, const Pose& pose, const Vec3& n, const Vec3& nt) {
  const double c = n.dot(nt);
  return c >= kFeatureCos || (c >= 0.0 && sharp_feature(m, t, pose.q.conjugate() * n));
}

}  // namespace

void mesh_convex(const ShapeLibrary& lib, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  if (!a.shape.mesh) return;
  const TriMesh& m = *a.shape.mesh;
  // b's exact kDOP in the mesh frame from its support mapping
  const Pose rel = a.pose.inverse() * b.pose;
  const std::vector<Vec3>& axes = kdop_axes(m.bvh.k);
  Kdop box;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const Vec3 d = rel.q.conjugate() * axes[i];
    const double at = axes[i].dot(rel.p);
    box.hi[i] = at + d.dot(support(b.shape, d));
    box.lo[i] = at + d.dot(support(b.shape, -d));
  }
  std::vector<int> tris;
  bvh_query(m.bvh, box, env, tris);
  if (tris.empty()) return;

  const double scale = std::max(half_diagonal(lib, b) + 0.5 * (m.hi - m.lo).norm(), 1e-9);
  const std::size_t start = out.size();
  TriangleShape triangle;
  for (int t : tris) {
    const auto& tri = m.triangles[std::size_t(t)];
    const Vec3 nt = a.pose.rotate(m.normals[std::size_t(t)]);
    const Vec3 v0 = a.pose.apply(m.vertices[std::size_t(tri[0])]);
    if (nt.dot(b.pose.p - v0) < 0.0) continue;  // b's centre is behind this triangle
    if (b.shape.type == ShapeType::Sphere) {
      const Vec3& c = b.pose.p;
      const double r = b.shape.radius;
      const Vec3 q = closest_on_triangle(c, v0, a.pose.apply(m.vertices[std::size_t(tri[1])]),
                                         a.pose.apply(m.vertices[std::size_t(tri[2])]));
      const double dist = (c - q).norm();
      if (!keep(r - dist, env)) continue;
      Vec3 n = dist > 1e-12 * scale ? Vec3((c - q) / dist) : nt;
      double depth = r - dist;
      if (!keeps_axis(m, t, a.pose, n, nt)) {
        n = nt;
        depth = r - nt.dot(c - v0);
      }
      if (keep(depth, env)) out.push_back({c - (r - 0.5 * depth) * n, n, depth, t, 0});
      continue;
    }
    const Placed tp{-1, triangle.set(m, t), a.pose};
    Penetration pen;
    if (!penetration(tp, b, scale, env, pen)) continue;
    if (!keeps_axis(m, t, a.pose, pen.n, nt)) {
      pen = {nt, overlap_along(tp, b, nt)};
      if (!keep(pen.depth, env)) continue;
    }
    const std::size_t first = out.size();
    convex_manifold(tp, b, pen, env, out);
    for (std::size_t i = first; i < out.size(); ++i) out[i].feature_a = t;
  }
  reduce_mesh_contacts(out, start, 1e-6 * scale);
}

void mesh_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  if (!a.shape.mesh) return;
  const TriMesh& m = *a.shape.mesh;
  const double len = b.shape.normal.norm();
  const Vec3 n = b.pose.rotate(b.shape.normal / len);  // the plane's solid side is n . x <= d
  const double d = b.shape.offset / len + n.dot(b.pose.p);
  const std::size_t start = out.size();
  for (std::size_t i = 0; i < m.vertices.size(); ++i) {
    const Vec3 x = a.pose.apply(m.vertices[i]);
    const double height = n.dot(x) - d;
    if (keep(-height, env)) out.push_back({x - 0.5 * height * n, -n, -height, int(i), 0});
  }
  reduce_mesh_contacts(out, start, 1e-6 * (m.hi - m.lo).norm());
}

void mesh_mesh(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  if (!a.shape.mesh || !b.shape.mesh) return;
  const TriMesh &ma = *a.shape.mesh, &mb = *b.shape.mesh;
  // b's tree in a's frame: refit a copy to b's vertices moved there
  const Pose rel = a.pose.inverse() * b.pose;
  std::vector<Vec3> vb(mb.vertices.size());
  for (std::size_t i = 0; i < vb.size(); ++i) vb[i] = rel.apply(mb.vertices[i]);
  KdopBvh tree_b = mb.bvh.k == ma.bvh.k ? mb.bvh : build_bvh(mb.vertices, mb.triangles, ma.bvh.k);
  refit(tree_b, vb, mb.triangles);
  std::vector<std::pair<int, int>> pairs;
  bvh_pairs(ma.bvh, tree_b, env, pairs);
  if (pairs.empty()) return;

  const double size_a = 0.5 * (ma.hi - ma.lo).norm(), size_b = 0.5 * (mb.hi - mb.lo).norm();
  const double scale = std::max(size_a + size_b, 1e-9);
  // a triangle pair deeper than this is two bodies passing through each other, not a contact
  const double max_depth = 0.25 * std::min(size_a, size_b);
  const std::size_t start = out.size();
  TriangleShape tri_a, tri_b;
  for (const auto& [i, j] : pairs) {
    // leaves hold several triangles: cull the pair by the triangles' own boxes first
    Vec3 lo_a = Vec3::Constant(std::numeric_limits<double>::infinity()), hi_a = -lo_a, lo_b = lo_a, hi_b = hi_a;
    for (int k = 0; k < 3; ++k) {
      const Vec3& x = ma.vertices[std::size_t(ma.triangles[std::size_t(i)][std::size_t(k)])];
      const Vec3& y = vb[std::size_t(mb.triangles[std::size_t(j)][std::size_t(k)])];
      lo_a = lo_a.cwiseMin(x), hi_a = hi_a.cwiseMax(x), lo_b = lo_b.cwiseMin(y), hi_b = hi_b.cwiseMax(y);
    }
    if ((lo_a.array() > hi_b.array() + env).any() || (lo_b.array() > hi_a.array() + env).any()) continue;
    const Vec3 na = a.pose.rotate(ma.normals[std::size_t(i)]), nb = b.pose.rotate(mb.normals[std::size_t(j)]);
    const Placed pa{-1, tri_a.set(ma, i), a.pose}, pb{-1, tri_b.set(mb, j), b.pose};
    Penetration pen;
    if (!penetration(pa, pb, scale, env, pen)) continue;
    if (!keeps_axis(ma, i, a.pose, pen.n, na) || !keeps_axis(mb, j, b.pose, -pen.n, nb)) {
      // one of the two face normals instead, whichever needs the smaller push, provided the
      // other triangle faces it
      Penetration best{Vec3::Zero(), std::numeric_limits<double>::infinity()};
      if (-na.dot(nb) >= 0.0) {
        for (const Vec3& n : {na, Vec3(-nb)})
          if (const double o = overlap_along(pa, pb, n); o < best.depth) best = {n, o};
      }
      if (!std::isfinite(best.depth) || !keep(best.depth, env)) continue;
      pen = best;
    }
    if (pen.depth > max_depth) continue;
    const std::size_t first = out.size();
    convex_manifold(pa, pb, pen, env, out);
    for (std::size_t k = first; k < out.size(); ++k) out[k].feature_a = i, out[k].feature_b = j;
  }
  reduce_mesh_contacts(out, start, 1e-6 * scale);
}

void reduce_mesh_contacts(std::vector<ContactPoint>& pts, std::size_t from, double duplicate_distance) {
  if (pts.size() <= from) return;
  const std::vector<ContactPoint> in(pts.begin() + std::ptrdiff_t(from), pts.end());
  pts.resize(from);
  std::vector<std::size_t> order(in.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return in[x].depth > in[y].depth; });
  struct Group { Vec3 normal; std::vector<ContactPoint> pts; };
  std::vector<Group> groups;
  const double dup2 = duplicate_distance * duplicate_distance;
  for (std::size_t k : order) {
    const ContactPoint& p = in[k];
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) { return x.normal.dot(p.normal) >= kClusterCos; });
    if (g == groups.end()) {
      if (int(groups.size()) == kMaxMeshManifolds) continue;
      groups.push_back({p.normal, {}});
      g = groups.end() - 1;
    }
    const bool duplicate = std::any_of(g->pts.begin(), g->pts.end(), [&](const ContactPoint& q) {
      return (q.point - p.point).squaredNorm() <= dup2 && q.normal.dot(p.normal) >= kFeatureCos;
    });
    if (!duplicate) g->pts.push_back(p);
  }
  for (Group& g : groups) {
    reduce_manifold(g.pts, 4);
    pts.insert(pts.end(), g.pts.begin(), g.pts.end());
  }
}

}  // namespace coulomb::detail
