// Shape geometry: convex hulls, bounding boxes and support mappings.
//
// Why this file looks the way it does:
// - Hulls are built once at load time, so clarity beats speed here. Bullet's
//   btConvexHullComputer (Preparata-Hong, by O. Kniemeyer) does the hard part; it works on
//   quantised integer coordinates, so we take the vertices back from the input by
//   `original_vertex_index` (exact input coordinates) and merge faces that came out split
//   although they are coplanar (within an angle tolerance), which quantisation can cause.
// - Support mappings s(d) = argmax_{x in shape} d . x are the only geometry the GJK/EPA
//   narrowphase needs (van den Bergen, "Collision Detection in Interactive 3D Environments",
//   2003, s.4.3); each is closed form except the hull's vertex scan.
#include <coulomb/shapes.h>

#include <LinearMath/btConvexHullComputer.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace coulomb {

const char* shape_type_name(ShapeType t) {
  switch (t) {
    case ShapeType::Sphere: return "sphere";
    case ShapeType::Box: return "box";
    case ShapeType::Capsule: return "capsule";
    case ShapeType::Cylinder: return "cylinder";
    case ShapeType::Plane: return "plane";
    case ShapeType::Convex: return "convex";
    case ShapeType::Compound: return "compound";
    case ShapeType::Mesh: return "mesh";
  }
  return "unknown";
}

namespace {

// faces whose unit normals differ by less than ~1.4e-5 rad are one plane
constexpr double kCoplanarCos = 1.0 - 1e-10;
// a cloud thinner than this fraction of its extent in some direction is flat
constexpr double kFlatRelative = 1e-9;

// Index of the point farthest from a reference (first on ties, for determinism).
template <class Distance>
std::size_t farthest(const std::vector<Vec3>& pts, Distance dist) {
  std::size_t best = 0;
  double best_d = -1.0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double d = dist(pts[i]);
    if (d > best_d) { best_d = d; best = i; }
  }
  return best;
}

// reject clouds that span no volume, with a message saying which way they are degenerate
void check_cloud(const std::vector<Vec3>& pts) {
  if (pts.size() < 4)
    throw std::invalid_argument("a convex hull needs at least 4 points, got " + std::to_string(pts.size()));
  for (std::size_t i = 0; i < pts.size(); ++i)
    if (!pts[i].allFinite()) throw std::invalid_argument("point " + std::to_string(i) + " is not finite");
  // extreme points in the style of the initial simplex of quickhull (Barber et al. 1996)
  const Vec3 p0 = pts[0];
  const Vec3 p1 = pts[farthest(pts, [&](const Vec3& x) { return (x - p0).squaredNorm(); })];
  const double extent = (p1 - p0).norm();
  if (extent == 0.0) throw std::invalid_argument("all points coincide");
  const Vec3 u = (p1 - p0) / extent;
  const auto off_line = [&](const Vec3& x) { return (x - p0 - u * u.dot(x - p0)).squaredNorm(); };
  const Vec3 p2 = pts[farthest(pts, off_line)];
  if (std::sqrt(off_line(p2)) <= kFlatRelative * extent) throw std::invalid_argument("the points are collinear");
  const Vec3 n = (p1 - p0).cross(p2 - p0).normalized();
  const auto off_plane = [&](const Vec3& x) { return std::abs(n.dot(x - p0)); };
  const Vec3 p3 = pts[farthest(pts, off_plane)];
  if (off_plane(p3) <= kFlatRelative * extent)
    throw std::invalid_argument("the points are coplanar (the cloud is flat)");
}

// Newell's method: robust normal of a (possibly slightly non-planar) polygon loop
Vec3 newell_normal(const std::vector<Vec3>& v, const std::vector<int>& loop) {
  Vec3 n = Vec3::Zero();
  for (std::size_t i = 0; i < loop.size(); ++i) {
    const Vec3& a = v[std::size_t(loop[i])];
    const Vec3& b = v[std::size_t(loop[(i + 1) % loop.size()])];
    n += Vec3((a.y() - b.y()) * (a.z() + b.z()), (a.z() - b.z()) * (a.x() + b.x()), (a.x() - b.x()) * (a.y() + b.y()));
  }
  return n.normalized();
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[std::size_t(i)] != i) i = parent[std::size_t(i)] = parent[std::size_t(parent[std::size_t(i)])];
  return i;
}

// Merges adjacent faces that lie in one plane into a single loop: union-find over faces sharing
// an edge with (nearly) equal normals, then each group's boundary is the set of its directed
// edges whose reverse edge belongs to another group. A convex polygon's boundary is one cycle.
std::vector<std::vector<int>> merge_coplanar(const std::vector<Vec3>& v, const std::vector<std::vector<int>>& faces) {
  const int nf = int(faces.size());
  std::vector<Vec3> normal(std::size_t(nf), Vec3::Zero());
  std::map<std::pair<int, int>, int> edge_face;
  for (int f = 0; f < nf; ++f) {
    const auto& loop = faces[std::size_t(f)];
    normal[std::size_t(f)] = newell_normal(v, loop);
    for (std::size_t i = 0; i < loop.size(); ++i) edge_face[{loop[i], loop[(i + 1) % loop.size()]}] = f;
  }
  std::vector<int> parent(static_cast<std::size_t>(nf));
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& [edge, f] : edge_face) {
    const auto twin = edge_face.find({edge.second, edge.first});
    if (twin == edge_face.end()) continue;
    if (normal[std::size_t(f)].dot(normal[std::size_t(twin->second)]) > kCoplanarCos) {
      const int ra = find_root(parent, f), rb = find_root(parent, twin->second);
      parent[std::size_t(std::max(ra, rb))] = std::min(ra, rb);
    }
  }
  std::vector<std::vector<int>> merged;
  for (int g = 0; g < nf; ++g) {
    if (find_root(parent, g) != g) continue;
    // boundary of group g as a successor map: vertex -> next vertex (ccw, seen from outside)
    std::map<int, int> next;
    int start = -1;
    for (int f = 0; f < nf; ++f) {
      if (find_root(parent, f) != g) continue;
      const auto& loop = faces[std::size_t(f)];
      for (std::size_t i = 0; i < loop.size(); ++i) {
        const int a = loop[i], b = loop[(i + 1) % loop.size()];
        const auto twin = edge_face.find({b, a});
        if (twin != edge_face.end() && find_root(parent, twin->second) == g) continue;  // interior edge
        next[a] = b;
        if (start < 0) start = a;
      }
    }
    std::vector<int> loop{start};
    for (auto it = next.find(start); it != next.end() && it->second != start && loop.size() <= next.size();
         it = next.find(it->second))
      loop.push_back(it->second);
    merged.push_back(std::move(loop));
  }
  return merged;
}

}  // namespace

ConvexHull make_convex_hull(const std::vector<Vec3>& points) {
  check_cloud(points);
  btConvexHullComputer computer;
  static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
  computer.compute(points.front().data(), int(sizeof(Vec3)), int(points.size()), 0.0, 0.0);
  if (computer.vertices.size() < 4 || computer.faces.size() < 4)
    throw std::invalid_argument("the points do not span a volume (degenerate hull)");

  // exact input coordinates for every hull vertex
  std::vector<Vec3> verts(std::size_t(computer.vertices.size()));
  for (int i = 0; i < computer.vertices.size(); ++i) {
    const int src = computer.original_vertex_index[i];
    verts[std::size_t(i)] = (src >= 0 && src < int(points.size()))
                                ? points[std::size_t(src)]
                                : Vec3(computer.vertices[i].x(), computer.vertices[i].y(), computer.vertices[i].z());
  }
  // face loops: Bullet lists each face's edges counter-clockwise seen from outside
  std::vector<std::vector<int>> faces;
  for (int f = 0; f < computer.faces.size(); ++f) {
    const btConvexHullComputer::Edge* first = &computer.edges[computer.faces[f]];
    std::vector<int> loop;
    const btConvexHullComputer::Edge* e = first;
    do {
      loop.push_back(e->getSourceVertex());
      e = e->getNextEdgeOfFace();
    } while (e != first && loop.size() <= std::size_t(computer.edges.size()));
    faces.push_back(std::move(loop));
  }
  faces = merge_coplanar(verts, faces);

  // keep only vertices on some face loop (merging can leave one inside a face), renumbered in order
  std::vector<int> remap(verts.size(), -1);
  for (const auto& loop : faces)
    for (int i : loop) remap[std::size_t(i)] = 0;
  ConvexHull hull;
  for (std::size_t i = 0; i < verts.size(); ++i)
    if (remap[i] == 0) {
      remap[i] = int(hull.vertices.size());
      hull.vertices.push_back(verts[i]);
    }
  Vec3 centre = Vec3::Zero();
  for (const Vec3& x : hull.vertices) centre += x;
  centre /= double(hull.vertices.size());

  for (auto& loop : faces) {
    for (int& i : loop) i = remap[std::size_t(i)];
    Vec3 n = newell_normal(hull.vertices, loop);
    // orientation guard: the normal must point away from the interior
    if (n.dot(hull.vertices[std::size_t(loop[0])] - centre) < 0.0) {
      std::reverse(loop.begin(), loop.end());
      n = -n;
    }
    double d = 0.0;
    for (int i : loop) d += n.dot(hull.vertices[std::size_t(i)]);
    hull.faces.push_back(loop);
    hull.face_normals.push_back(n);
    hull.face_offsets.push_back(d / double(loop.size()));
  }
  if (hull.faces.size() < 4) throw std::invalid_argument("the points do not span a volume (degenerate hull)");
  return hull;
}

ConvexHull box_hull(const Vec3& h) {
  ConvexHull hull;
  // the numbering of shapes.h (kBoxFaceLoops)
  for (int i = 0; i < 8; ++i)
    hull.vertices.emplace_back((i & 1) ? h.x() : -h.x(), (i & 2) ? h.y() : -h.y(), (i & 4) ? h.z() : -h.z());
  for (const auto& loop : kBoxFaceLoops) hull.faces.emplace_back(std::begin(loop), std::end(loop));
  for (int k = 0; k < 3; ++k)
    for (int s = 0; s < 2; ++s) {
      const double sign = s ? 1.0 : -1.0;
      hull.face_normals.push_back(sign * Vec3::Unit(k));
      hull.face_offsets.push_back(h[k]);
    }
  return hull;
}

namespace {

Aabb point_box(const Vec3& c, const Vec3& half) { return {c - half, c + half}; }

// compounds nest at most this deep; deeper children (or a cycle in bad input) are ignored
constexpr int kMaxCompoundDepth = 16;

Aabb aabb_of(const ShapeLibrary& lib, const Shape& s, const Pose& pose, int depth) {
  const Mat3 R = pose.q.toRotationMatrix();
  switch (s.type) {
    case ShapeType::Sphere:
      return point_box(pose.p, Vec3::Constant(s.radius));
    case ShapeType::Box:
      // half extent along world axis i: sum_k |R_ik| h_k
      return point_box(pose.p, R.cwiseAbs() * s.half_extents);
    case ShapeType::Capsule: {
      const Vec3 axis = R.col(2) * s.half_height;
      return point_box(pose.p, axis.cwiseAbs() + Vec3::Constant(s.radius));
    }
    case ShapeType::Cylinder: {
      // a disc of radius r with unit normal w spans r * sqrt(1 - w_i^2) along axis i
      const Vec3 w = R.col(2);
      const Vec3 disc = (Vec3::Ones() - w.cwiseProduct(w)).cwiseMax(0.0).cwiseSqrt() * s.radius;
      return point_box(pose.p, w.cwiseAbs() * s.half_height + disc);
    }
    case ShapeType::Plane: {
      const double inf = std::numeric_limits<double>::infinity();
      return {Vec3::Constant(-inf), Vec3::Constant(inf)};
    }
    case ShapeType::Convex: {
      if (s.hull.vertices.empty()) return point_box(pose.p, Vec3::Zero());
      Aabb box;
      for (const Vec3& v : s.hull.vertices) box.grow(point_box(pose.apply(v), Vec3::Zero()));
      return box;
    }
    case ShapeType::Compound: {
      Aabb box;
      if (depth >= kMaxCompoundDepth) return box;
      for (const CompoundChild& c : s.children)
        if (c.shape >= 0 && c.shape < int(lib.shapes.size()))
          box.grow(aabb_of(lib, lib[c.shape], pose * c.pose, depth + 1));
      return box;
    }
    case ShapeType::Mesh: {
      // the local box's corners moved to the pose: conservative, O(1) per query
      Aabb box;
      if (!s.mesh) return point_box(pose.p, Vec3::Zero());
      const Vec3 c = pose.apply(0.5 * (s.mesh->lo + s.mesh->hi));
      return point_box(c, R.cwiseAbs() * (0.5 * (s.mesh->hi - s.mesh->lo)));
    }
  }
  return {};
}

}  // namespace

Aabb ShapeLibrary::aabb(int shape, const Pose& pose, double margin) const {
  return aabb((*this)[shape], pose, margin);
}

Aabb ShapeLibrary::aabb(const Shape& shape, const Pose& pose, double margin) const {
  Aabb box = aabb_of(*this, shape, pose, 0);
  box.lo.array() -= margin;
  box.hi.array() += margin;
  return box;
}

namespace {
// sign with sign(0) = +1 so that supports are deterministic for axis-aligned directions
double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }
}  // namespace

Vec3 support(const Shape& s, const Vec3& d) {
  const double len = d.norm();
  const Vec3 u = len > 0.0 ? Vec3(d / len) : Vec3(Vec3::UnitZ());
  switch (s.type) {
    case ShapeType::Sphere:
      return s.radius * u;
    case ShapeType::Box:
      return Vec3(sgn(d.x()) * s.half_extents.x(), sgn(d.y()) * s.half_extents.y(), sgn(d.z()) * s.half_extents.z());
    case ShapeType::Capsule:
      // segment support plus the ball: s(d) = s_seg(d) + r d/|d|
      return Vec3(0.0, 0.0, sgn(u.z()) * s.half_height) + s.radius * u;
    case ShapeType::Cylinder: {
      // rim point in the radial direction of d on the cap facing d
      const double rho = std::hypot(u.x(), u.y());
      const Vec3 radial = rho > 0.0 ? Vec3(u.x() / rho, u.y() / rho, 0.0) : Vec3(Vec3::UnitX());
      return s.radius * radial + Vec3(0.0, 0.0, sgn(u.z()) * s.half_height);
    }
    case ShapeType::Convex: {
      if (s.hull.vertices.empty()) return Vec3::Zero();
      std::size_t best = 0;
      double best_dot = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < s.hull.vertices.size(); ++i) {
        const double x = s.hull.vertices[i].dot(d);
        if (x > best_dot) { best_dot = x; best = i; }
      }
      return s.hull.vertices[best];
    }
    case ShapeType::Plane:
    case ShapeType::Compound:
    case ShapeType::Mesh:
      break;  // unbounded or not convex: no support point; callers dispatch these elsewhere
  }
  return Vec3::Zero();
}

}  // namespace coulomb
