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
//   in the mesh frame (its support mapping along the k/2 axes); mesh-mesh pairs walk both trees
//   together, each in its own frame (b's nodes measured in a's frame on the fly: no copy).
// - Scratch buffers are per thread and kept between calls (MeshScratch): no allocation in
//   steady state.
// - All points of a pair are filtered and reduced together (reduce_mesh_contacts), sorted by
//   depth and then by index: the same input gives the same contacts in the same order.
#include "mesh_collide.h"

#include "features.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
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
  const double top = std::max(std::max(d[0], d[1]), d[2]);
  const std::uint8_t sharp = m.sharp_edges[std::size_t(t)];
  const auto edge = [&](int e) { return (sharp >> e) & 1u; };
  // With the tolerance, u more than 3 degrees from the face normal can still find all three
  // vertices "on top" (a face), and keeps_axis would then keep neither the axis nor a face point
  // beyond the triangle: the feature is then read without it, so that a box overlapping a jack
  // arm's sharp edge along an axis 4 degrees off the arm's side keeps its contact.
  for (const double tol : {kFeatureSin * size, 1e-9 * size}) {
    const bool on[3] = {d[0] >= top - tol, d[1] >= top - tol, d[2] >= top - tol};
    const int count = int(on[0]) + int(on[1]) + int(on[2]);
    if (count == 3) continue;
    if (count == 2) return edge(on[0] && on[1] ? 0 : on[1] && on[2] ? 1 : 2);
    for (int i = 0; i < 3; ++i)
      if (on[i]) return edge(i) || edge((i + 2) % 3);  // edges v_i->v_i+1 and v_i-1->v_i
  }
  return false;
}

// max over a of n . x  -  min over b of n . x: the depth a translation along n must undo
double overlap_along(const Placed& a, const Placed& b, const Vec3& n) {
  const Vec3 xa = a.pose.apply(support(a.shape, a.pose.q.conjugate() * n));
  const Vec3 xb = b.pose.apply(support(b.shape, b.pose.q.conjugate() * -n));
  return n.dot(xa - xb);
}

// A convex polytope in world coordinates, as the separating-axis test reads it: vertices,
// outward face normals, edge directions (spans into the storage of a WorldTriangle or a
// WorldPolytope). A triangle's two faces are one axis and its negation (two_sided).
struct PolytopeView {
  const Vec3* v;
  int nv;
  const Vec3* faces;
  int nf;
  const Vec3* edges;
  int ne;
  Vec3 centre;
  bool two_sided = false;               // nf == 2 and faces[1] == -faces[0]
  double face_lo = 0.0, face_hi = 0.0;  // two_sided: range(faces[0]) of its own vertices
  // half the diagonal of the vertices' box
  double half_diagonal() const {
    Vec3 lo = v[0], hi = v[0];
    for (int i = 1; i < nv; ++i) lo = lo.cwiseMin(v[i]), hi = hi.cwiseMax(v[i]);
    return 0.5 * (hi - lo).norm();
  }
  // min and max of n . v over the vertices, from one dot product per vertex
  void range(const Vec3& n, double& lo, double& hi) const {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (int i = 0; i < nv; ++i) {
      const double x = n.dot(v[i]);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
};

// A triangle of a mesh in the world, 248 bytes: the mesh pairs keep one slot per triangle, so
// a compact slot keeps a pair's triangles in cache (the funnel's jacks test thousands of
// triangle pairs per body pair). lo/hi: its world box, for the cull before the axis test.
struct WorldTriangle {
  Vec3 v[3], faces[2], edges[3];
  Vec3 centre = Vec3::Zero();
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
  double face_lo = 0.0, face_hi = 0.0;  // its vertices along faces[0]
  std::uint64_t stamp = 0;              // mesh_mesh: the call that set this slot
  void set(const TriMesh& m, int t, const Pose& pose) {
    const auto& tri = m.triangles[std::size_t(t)];
    for (std::size_t i = 0; i < 3; ++i) v[i] = pose.apply(m.vertices[std::size_t(tri[i])]);
    faces[0] = pose.rotate(m.normals[std::size_t(t)]);
    faces[1] = -faces[0];
    for (std::size_t i = 0; i < 3; ++i) edges[i] = (v[(i + 1) % 3] - v[i]).normalized();
    centre = (v[0] + v[1] + v[2]) / 3.0;
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(std::min(v[0][k], v[1][k]), v[2][k]);  // not std::min({...}): a loop over
      hi[k] = std::max(std::max(v[0][k], v[1][k]), v[2][k]);  // the list (the same result)
    }
    view().range(faces[0], face_lo, face_hi);
  }
  PolytopeView view() const { return {v, 3, faces, 2, edges, 3, centre, true, face_lo, face_hi}; }
};

// A box or a convex hull in the world.
struct WorldPolytope {
  AxisList v, faces, edges;
  Vec3 centre = Vec3::Zero();
  void set(const Shape& s, const Pose& pose) {
    // the loader fills box hulls; a hand-made box shape may not have one
    if (s.type == ShapeType::Box && s.hull.faces.size() != 6) {
      Shape filled = s;
      filled.hull = box_hull(s.half_extents);
      set(filled, pose);
      return;
    }
    const ConvexHull& h = s.hull;
    v.resize(h.vertices.size());
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = pose.apply(h.vertices[i]);
    faces.resize(h.face_normals.size());
    for (std::size_t i = 0; i < faces.size(); ++i) faces[i] = pose.rotate(h.face_normals[i]);
    AxisList local_faces;
    edges.clear();
    polytope_axes(s, local_faces, edges);
    for (Vec3& e : edges) e = pose.rotate(e);
    centre = pose.p;
  }
  PolytopeView view() const {
    return {v.data(), int(v.size()), faces.data(), int(faces.size()), edges.data(), int(edges.size()), centre};
  }
};

// Per-thread buffers of the mesh pairs, kept between calls so that the narrowphase does not
// allocate in steady state; every call clears what it uses.
// a triangle pair that the separating-axis test kept, and its axis
struct TrianglePair {
  int i, j;
  std::size_t order;  // in the tree walk
  Penetration pen;
};

// a triangle pair whose boxes meet: its index in the tree walk and the bound of its rank
struct TriangleCandidate {
  std::size_t e;
  double bound;
};

struct MeshScratch {
  std::vector<std::pair<int, int>> pairs;
  BvhWalkScratch walk;
  std::vector<TriangleCandidate> candidates;
  std::vector<TrianglePair> kept;
  std::vector<WorldTriangle> world_a, world_b;
  std::uint64_t stamp = 0;
  std::vector<int> tris;
  std::vector<ContactPoint> reduce_in;
  std::vector<std::size_t> order;
  std::vector<ContactPoint> group_pts[kMaxMeshManifolds];
  TriangleShape tri_a, tri_b;
};
// not inlined: inlined, GCC recomputed the thread-local address (a __tls_get_addr call in a
// shared library) inside the callers' loops
[[gnu::noinline]] MeshScratch& mesh_scratch() {
  thread_local MeshScratch s;
  return s;
}

bool is_polytope(const Shape& s) { return s.type == ShapeType::Box || s.type == ShapeType::Convex; }

// The separating-axis test of penetration.cpp (face axes win ties, edge axes near the best face
// axis must beat it by the face preference) on polytopes whose vertices are already in the
// world: a triangle pair costs 9 edge axes x 6 dot products and 6 for its face axes. Stops at
// the first axis that separates them by more than `envelope`: the best depth only decreases, so
// the pair is dropped (keep() is false) either way: most triangle pairs whose boxes overlap are
// apart, and on the funnel this test is the narrowphase's largest cost. With a `floor`, it
// also stops once the rank bound min(depth, max_depth) + max_depth is below it: mesh_mesh's
// shallowest kept pair, which such a pair cannot displace.
Penetration polytope_sat(const PolytopeView& a, const PolytopeView& b, double scale, double envelope,
                         double floor = -std::numeric_limits<double>::infinity(), double max_depth = 0.0) {
  Penetration best{Vec3::Zero(), std::numeric_limits<double>::infinity()};
  // the overlap along n is max_a - min_b, along -n max_b - min_a (the same dot products negated)
  const auto consider = [&](const Vec3& n, double o, double bias) {
    if (o + bias < best.depth) best = {n, o};
    return !keep(best.depth, envelope) || std::min(best.depth, max_depth) + max_depth < floor;
  };
  double alo, ahi, blo, bhi;
  const auto along = [&](const Vec3& n, double bias) {
    a.range(n, alo, ahi);
    b.range(n, blo, bhi);
    return consider(n, ahi - blo, bias);
  };
  // a two-sided face list is one axis: both overlaps from one range of each polytope, its own
  // range kept with it
  if (a.two_sided) {
    b.range(a.faces[0], blo, bhi);
    if (consider(a.faces[0], a.face_hi - blo, 0.0) || consider(a.faces[1], bhi - a.face_lo, 0.0)) return best;
  } else {
    for (int i = 0; i < a.nf; ++i)
      if (along(a.faces[i], 0.0)) return best;
  }
  if (b.two_sided) {  // along b.faces[1] = -b.faces[0]: b's range negated
    a.range(b.faces[1], alo, ahi);
    if (consider(b.faces[1], ahi + b.face_hi, 0.0) || consider(b.faces[0], -b.face_lo - alo, 0.0)) return best;
  } else {
    for (int i = 0; i < b.nf; ++i)
      if (along(-b.faces[i], 0.0)) return best;
  }
  const Vec3 centres = b.centre - a.centre;
  const double tol = 1e-9 * scale;
  // the face preference (features.h) scaled by this pair's size, not the meshes': the sum of the
  // polytopes' half box diagonals, computed once an edge axis comes within 3 degrees of the face
  const Vec3 face = best.n;
  double pair_size = -1.0;
  const auto size = [&] {
    if (pair_size < 0.0) pair_size = a.half_diagonal() + b.half_diagonal();
    return pair_size;
  };
  for (int i = 0; i < a.ne; ++i)
    for (int j = 0; j < b.ne; ++j) {
      Vec3 n = a.edges[i].cross(b.edges[j]);
      const double len = n.norm();
      if (len < 1e-6) continue;
      n /= len;
      if (n.dot(centres) < 0.0) n = -n;
      if (along(n, edge_axis_bias(n.cross(face).norm(), tol, size))) return best;
    }
  return best;
}

double half_diagonal(const ShapeLibrary& lib, const Placed& p) {
  if (p.shape.type == ShapeType::Mesh) return 0.5 * (p.shape.mesh->hi - p.shape.mesh->lo).norm();
  const Aabb box = lib.aabb(p.shape, Pose{}, 0.0);
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

// Triangle t's front face as a reference feature in the world.
Feature front_face(const TriMesh& m, int t, const Pose& pose) {
  Feature f;
  for (int v : m.triangles[std::size_t(t)]) f.pts.push_back(pose.apply(m.vertices[std::size_t(v)]));
  f.normal = pose.rotate(m.normals[std::size_t(t)]);
  f.align = 1.0;
  f.id = 0;
  return f;
}

// The one-sided normal rule for triangle t of mesh m (placed at `pose`): the axis n (pointing
// away from the triangle) stands when it is the face normal or leaves through a sharp feature
// on the front side; otherwise the face normal replaces it.
bool keeps_axis(const TriMesh& m, int t, const Pose& pose, const Vec3& n, const Vec3& nt) {
  const double c = n.dot(nt);
  return c >= kFeatureCos || (c >= 0.0 && sharp_feature(m, t, pose.q.conjugate() * n));
}

// The points from `first` on, made by a face normal that replaced the separating axis `pen`, no
// deeper than pen.depth (the normal turns, the depth stays, as in Bullet's
// btAdjustInternalEdgeContacts): the other triangle or shape, met edge-on or beside the face,
// reaches far behind the face's plane, and that reach is no overlap. Each point keeps its place
// on the reference face. Called before any flip (the normals still leave the reference face).
void cap_depth(std::vector<ContactPoint>& out, std::size_t first, double depth) {
  for (std::size_t i = first; i < out.size(); ++i)
    if (out[i].depth > depth) {
      out[i].point += 0.5 * (out[i].depth - depth) * out[i].normal;
      out[i].depth = depth;
    }
}

}  // namespace

void mesh_convex(const ShapeLibrary& lib, const Placed& a, const Placed& b, double env,
                 std::vector<ContactPoint>& out) {
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
  MeshScratch& scratch = mesh_scratch();
  std::vector<int>& tris = scratch.tris;
  bvh_query(m.bvh, box, env, tris);
  if (tris.empty()) return;

  const double scale = std::max(half_diagonal(lib, b) + 0.5 * (m.hi - m.lo).norm(), 1e-9);
  const std::size_t start = out.size();
  TriangleShape& triangle = scratch.tri_a;
  WorldTriangle wt;
  WorldPolytope wb;
  const bool polytope = is_polytope(b.shape);
  if (polytope) wb.set(b.shape, b.pose);
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
        // against the face's plane, and only over the face (a neighbour has the rest)
        if ((q - (c - nt.dot(c - v0) * nt)).norm() > 1e-9 * scale) continue;
        n = nt;
        depth = r - nt.dot(c - v0);
      }
      if (keep(depth, env)) out.push_back({c - (r - 0.5 * depth) * n, n, depth, t, 0});
      continue;
    }
    Penetration pen;
    if (polytope) {
      wt.set(m, t, a.pose);
      pen = polytope_sat(wt.view(), wb.view(), scale, env);
      if (!keep(pen.depth, env)) continue;
    }
    const Placed tp{-1, triangle.set(m, t), a.pose};
    if (!polytope && !penetration(tp, b, scale, env, pen)) continue;
    const std::size_t first = out.size();
    if (keeps_axis(m, t, a.pose, pen.n, nt)) {
      convex_manifold(tp, b, pen, env, out);
    } else {
      // the face normal instead: b's feature facing the triangle, clipped to the face's prism
      face_contact(front_face(m, t, a.pose), support_feature(b, -nt, kFeatureCos), env, out);
      cap_depth(out, first, pen.depth);
    }
    for (std::size_t i = first; i < out.size(); ++i) out[i].feature_a = t;
  }
  reduce_mesh_contacts(out, start, 1e-6 * scale);
}

void mesh_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  if (!a.shape.mesh) return;
  const TriMesh& m = *a.shape.mesh;
  const auto [n, d] = world_halfspace(b);  // the plane's solid side is n . x <= d
  const std::size_t start = out.size();
  for (std::size_t i = 0; i < m.vertices.size(); ++i) {
    const Vec3 x = a.pose.apply(m.vertices[i]);
    const double height = n.dot(x) - d;
    if (keep(-height, env)) out.push_back({x - 0.5 * height * n, -n, -height, int(i), 0});
  }
  reduce_mesh_contacts(out, start, 1e-6 * (m.hi - m.lo).norm());
}

namespace {

// mesh_mesh's two meshes and their world triangles, computed on first use (a triangle meets
// several of the other's; the slots are the thread's scratch, marked fresh by the call's stamp).
// A triangle pair deeper than max_depth is two bodies passing through each other, not a contact.
struct MeshMeshPair {
  const TriMesh &ma, &mb;
  const Placed &a, &b;
  double env, scale, max_depth;
  MeshScratch& scratch;
  std::uint64_t stamp;

  const WorldTriangle& world(std::vector<WorldTriangle>& w, const TriMesh& m, int t, const Pose& pose) const {
    WorldTriangle& p = w[std::size_t(t)];
    if (p.stamp != stamp) p.set(m, t, pose), p.stamp = stamp;
    return p;
  }
  const Vec3& normal_a(int i) const { return scratch.world_a[std::size_t(i)].faces[0]; }
  const Vec3& normal_b(int j) const { return scratch.world_b[std::size_t(j)].faces[0]; }
  double rank(double depth) const { return depth > max_depth ? -depth : depth + max_depth; }
  // the one-sided rule on both triangles: whether pair (i, j)'s own axis stands
  bool axis_kept(int i, int j, const Penetration& pen) const {
    return keeps_axis(ma, i, a.pose, pen.n, normal_a(i)) && keeps_axis(mb, j, b.pose, -pen.n, normal_b(j));
  }
  // whether triangles i and j face each other (step 2's face normals apply only then)
  bool facing(int i, int j) const { return -normal_a(i).dot(normal_b(j)) >= 0.0; }
  bool deeper(const TrianglePair& x, const TrianglePair& y) const {
    const double rx = rank(x.pen.depth), ry = rank(y.pen.depth);
    return rx > ry || (rx == ry && x.order < y.order);
  }

  // 1. The separating-axis test of the triangle pairs whose boxes meet, and the deepest
  // kMaxTrianglePairs of them into scratch.kept (deeper than max_depth ranked last). The boxes'
  // overlap bounds a pair's depth from above, so once kMaxTrianglePairs are kept, a pair whose
  // boxes overlap less than the shallowest of them (a min-heap) cannot rank among them and skips
  // the test, and a test stops on the first axis that shows it cannot. The pairs with the largest
  // bounds go first, so that the heap fills with deep pairs early. The kept set is the deepest
  // kMaxTrianglePairs, ties by walk order, up to one slack: a chosen edge axis may carry the face
  // preference (features.h), up to kFacePreference x size deeper than the boxes' bound, so a pair
  // the bound skips could have ranked. The order of the tests is fixed, so the result is
  // deterministic, and nearly the same points as without the nth_element, which saves about a
  // fifth of the time.
  void deepest_pairs(const std::vector<std::pair<int, int>>& pairs) {
    std::vector<TriangleCandidate>& candidates = scratch.candidates;
    candidates.clear();
    for (std::size_t e = 0; e < pairs.size(); ++e) {
      const auto [i, j] = pairs[e];
      const WorldTriangle &wa = world(scratch.world_a, ma, i, a.pose), &wb = world(scratch.world_b, mb, j, b.pose);
      // leaves hold several triangles: cull the pair by the triangles' own boxes first
      double box_overlap = std::numeric_limits<double>::infinity();
      for (int k = 0; k < 3; ++k)
        box_overlap = std::min(std::min(box_overlap, wa.hi[k] - wb.lo[k]), wb.hi[k] - wa.lo[k]);
      if (keep(box_overlap, env)) candidates.push_back({e, std::min(box_overlap, max_depth) + max_depth});
    }
    const std::size_t cap = std::size_t(kMaxTrianglePairs);
    if (candidates.size() > cap)
      std::nth_element(candidates.begin(), candidates.begin() + std::ptrdiff_t(cap), candidates.end(),
                       [](const TriangleCandidate& x, const TriangleCandidate& y) { return x.bound > y.bound; });
    std::vector<TrianglePair>& kept = scratch.kept;  // a heap, the shallowest on top, once full
    kept.clear();
    const auto heap_order = [this](const TrianglePair& x, const TrianglePair& y) { return deeper(x, y); };
    for (const auto& [e, bound] : candidates) {
      const double floor = kept.size() == cap ? rank(kept.front().pen.depth) : -std::numeric_limits<double>::infinity();
      if (bound < floor) continue;
      const auto [i, j] = pairs[e];
      const Penetration pen = polytope_sat(scratch.world_a[std::size_t(i)].view(),
                                           scratch.world_b[std::size_t(j)].view(), scale, env, floor, max_depth);
      if (!keep(pen.depth, env)) continue;
      // a pair to which step 2 gives no point takes no place: its axis is not kept and the
      // triangles face the same way (two flush sides of stacked blocks, 1e-4 m apart, would take
      // all 32 places from the faces between them; MeshContact test, crossed blocks)
      if (!facing(i, j) && !axis_kept(i, j, pen)) continue;
      const TrianglePair p{i, j, e, pen};
      if (kept.size() < cap) {
        kept.push_back(p);
        if (kept.size() == cap) std::make_heap(kept.begin(), kept.end(), heap_order);
      } else if (deeper(p, kept.front())) {
        std::pop_heap(kept.begin(), kept.end(), heap_order);
        kept.back() = p;
        std::push_heap(kept.begin(), kept.end(), heap_order);
      }
    }
  }

  // 2. The kept pairs' contact points, in the tree walk's order
  void contacts(std::vector<ContactPoint>& out) {
    std::vector<TrianglePair>& kept = scratch.kept;
    std::sort(kept.begin(), kept.end(), [](const TrianglePair& x, const TrianglePair& y) { return x.order < y.order; });
    for (const auto& [i, j, order, pen] : kept) {
      const Vec3 &na = normal_a(i), &nb = normal_b(j);
      const Placed pa{-1, scratch.tri_a.set(ma, i), a.pose}, pb{-1, scratch.tri_b.set(mb, j), b.pose};
      const std::size_t first = out.size();
      if (axis_kept(i, j, pen)) {
        if (pen.depth > max_depth) continue;
        convex_manifold(pa, pb, pen, env, out);
      } else if (facing(i, j)) {
        // one of the two face normals instead (the triangles face each other), whichever needs
        // the smaller push: the other triangle clipped to that face's prism
        if (overlap_along(pa, pb, na) <= overlap_along(pa, pb, -nb)) {
          face_contact(front_face(ma, i, a.pose), support_feature(pb, -na, kFeatureCos), env, out);
          cap_depth(out, first, pen.depth);
        } else {
          face_contact(front_face(mb, j, b.pose), support_feature(pa, nb, kFeatureCos), env, out);
          cap_depth(out, first, pen.depth);
          flip(out, first);
        }
      }
      const auto too_deep = [&](const ContactPoint& p) { return p.depth > max_depth; };
      out.erase(std::remove_if(out.begin() + std::ptrdiff_t(first), out.end(), too_deep), out.end());
      for (std::size_t k = first; k < out.size(); ++k) out[k].feature_a = i, out[k].feature_b = j;
    }
  }
};

}  // namespace

void mesh_mesh(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  if (!a.shape.mesh || !b.shape.mesh) return;
  const TriMesh &ma = *a.shape.mesh, &mb = *b.shape.mesh;
  // both trees as they are, b's placed in a's frame (no copy, no refit)
  MeshScratch& scratch = mesh_scratch();
  std::vector<std::pair<int, int>>& pairs = scratch.pairs;
  bvh_pairs(ma.bvh, mb.bvh, a.pose.inverse() * b.pose, env, pairs, scratch.walk);
  if (pairs.empty()) return;

  const double size_a = 0.5 * (ma.hi - ma.lo).norm(), size_b = 0.5 * (mb.hi - mb.lo).norm();
  const double scale = std::max(size_a + size_b, 1e-9);
  if (scratch.world_a.size() < ma.triangles.size()) scratch.world_a.resize(ma.triangles.size());
  if (scratch.world_b.size() < mb.triangles.size()) scratch.world_b.resize(mb.triangles.size());
  MeshMeshPair m{ma, mb, a, b, env, scale, 0.25 * std::min(size_a, size_b), scratch, ++scratch.stamp};
  const std::size_t start = out.size();
  m.deepest_pairs(pairs);
  m.contacts(out);
  reduce_mesh_contacts(out, start, 1e-6 * scale);
}

void reduce_mesh_contacts(std::vector<ContactPoint>& pts, std::size_t from, double duplicate_distance) {
  if (pts.size() <= from) return;
  MeshScratch& scratch = mesh_scratch();
  std::vector<ContactPoint>& in = scratch.reduce_in;
  in.assign(pts.begin() + std::ptrdiff_t(from), pts.end());
  pts.resize(from);
  std::vector<std::size_t>& order = scratch.order;
  order.resize(in.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  // deepest first, ties by index (a stable sort, without std::stable_sort's buffer)
  std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    return in[x].depth > in[y].depth || (in[x].depth == in[y].depth && x < y);
  });
  Vec3 normal[kMaxMeshManifolds];
  std::vector<ContactPoint>* group = scratch.group_pts;
  int groups = 0;
  const double dup2 = duplicate_distance * duplicate_distance;
  for (std::size_t k : order) {
    const ContactPoint& p = in[k];
    int g = 0;
    while (g < groups && !(normal[g].dot(p.normal) >= kClusterCos)) ++g;
    if (g == groups) {
      if (groups == kMaxMeshManifolds) continue;
      normal[groups] = p.normal;
      group[groups++].clear();
    }
    const bool duplicate = std::any_of(group[g].begin(), group[g].end(), [&](const ContactPoint& q) {
      return (q.point - p.point).squaredNorm() <= dup2 && q.normal.dot(p.normal) >= kFeatureCos;
    });
    if (!duplicate) group[g].push_back(p);
  }
  for (int g = 0; g < groups; ++g) {
    reduce_manifold(group[g], 4);
    pts.insert(pts.end(), group[g].begin(), group[g].end());
  }
}

}  // namespace coulomb::detail
