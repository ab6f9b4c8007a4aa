// Rigid CCD (ccd.h, collision/README.md "Rigid CCD"): swept convex casts for fast bodies.
//
// Why Bullet's btContinuousConvexCollision: it is conservative advancement (Mirtich) on GJK
// distances with the rotation of both bodies included, so it never steps over the first contact
// of two convex shapes; it also has the convex-against-plane case. Our shapes are mapped to
// Bullet's convex shapes per cast (no state kept between calls): sphere, box, capsule, cylinder,
// convex hull, a mesh's triangles near the sweep (queried from its kDOP tree), compound children
// one by one. Bullet's collision margins are set to zero where the shape allows it, so the cast
// sees our shape exactly (a box keeps its exact half extents, a hull is not inflated).
//
// A hit whose pair does not approach along the hit normal (a fast body sliding on the floor it
// touches: touching at t = 0, moving tangentially) is not an impact and is skipped; the
// discrete detection has those contacts.
#include <coulomb/ccd.h>
#include <coulomb/mesh.h>

#include <BulletCollision/CollisionShapes/btBoxShape.h>
#include <BulletCollision/CollisionShapes/btCapsuleShape.h>
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/CollisionShapes/btCylinderShape.h>
#include <BulletCollision/CollisionShapes/btSphereShape.h>
#include <BulletCollision/CollisionShapes/btStaticPlaneShape.h>
#include <BulletCollision/CollisionShapes/btTriangleShape.h>
#include <BulletCollision/NarrowPhaseCollision/btContinuousConvexCollision.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpaPenetrationDepthSolver.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <memory>

namespace coulomb {

namespace {

btVector3 bt(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
Vec3 from_bt(const btVector3& v) { return {v.x(), v.y(), v.z()}; }
btTransform bt(const Pose& p) { return btTransform(btQuaternion(p.q.x(), p.q.y(), p.q.z(), p.q.w()), bt(p.p)); }

// a convex piece of a shape: a Bullet convex shape and its pose in the shape's frame
struct Piece {
  std::unique_ptr<btConvexShape> shape;
  Pose local;
};

std::unique_ptr<btConvexShape> convex_of(const Shape& s) {
  switch (s.type) {
    case ShapeType::Sphere:
      return std::make_unique<btSphereShape>(s.radius);
    case ShapeType::Box: {
      auto b = std::make_unique<btBoxShape>(bt(s.half_extents));
      b->setMargin(0);
      return b;
    }
    case ShapeType::Capsule:
      return std::make_unique<btCapsuleShapeZ>(s.radius, 2 * s.half_height);
    case ShapeType::Cylinder: {
      auto c = std::make_unique<btCylinderShapeZ>(btVector3(s.radius, s.radius, s.half_height));
      c->setMargin(0);
      return c;
    }
    case ShapeType::Convex: {
      auto h = std::make_unique<btConvexHullShape>();
      for (const Vec3& v : s.hull.vertices) h->addPoint(bt(v), false);
      h->recalcLocalAabb();
      h->setMargin(0);
      return h;
    }
    default:
      return nullptr;
  }
}

// the convex pieces of shape `id` (meshes: the triangles whose boxes meet `near`, a world box,
// with `pose` the shape's world pose at any time of the sweep: near covers the whole sweep)
void pieces_of(const ShapeLibrary& lib, int id, const Pose& in_parent, const Aabb* near, const Pose& pose,
               std::vector<Piece>& out) {
  const Shape& s = lib[id];
  if (s.type == ShapeType::Compound) {
    for (const CompoundChild& c : s.children) pieces_of(lib, c.shape, in_parent * c.pose, near, pose * c.pose, out);
    return;
  }
  if (s.type == ShapeType::Mesh) {
    const TriMesh& m = *s.mesh;
    std::vector<int> tris;
    if (near) {  // the world box's corners in the mesh frame
      Vec3 corners[8];
      for (int i = 0; i < 8; ++i)
        corners[i] = pose.apply_inverse(Vec3(i & 1 ? near->hi.x() : near->lo.x(), i & 2 ? near->hi.y() : near->lo.y(),
                                             i & 4 ? near->hi.z() : near->lo.z()));
      bvh_query(m.bvh, kdop_of(m.bvh, corners, 8), 0.0, tris);
    } else {
      tris.resize(m.triangles.size());
      for (std::size_t i = 0; i < tris.size(); ++i) tris[i] = int(i);
    }
    for (int t : tris) {
      const auto& f = m.triangles[std::size_t(t)];
      auto tri = std::make_unique<btTriangleShape>(bt(m.vertices[std::size_t(f[0])]), bt(m.vertices[std::size_t(f[1])]),
                                                   bt(m.vertices[std::size_t(f[2])]));
      tri->setMargin(0);
      out.push_back({std::move(tri), in_parent});
    }
    return;
  }
  if (auto c = convex_of(s)) out.push_back({std::move(c), in_parent});
}

// the smallest half extent of a shape: how far it may move in one step without CCD
double small_extent(const ShapeLibrary& lib, int id) {
  const Shape& s = lib[id];
  switch (s.type) {
    case ShapeType::Sphere:
    case ShapeType::Capsule:
    case ShapeType::Cylinder:
      return s.type == ShapeType::Cylinder ? std::min(s.radius, s.half_height) : s.radius;
    case ShapeType::Box:
      return s.half_extents.minCoeff();
    case ShapeType::Convex: {
      double r = 1e300;  // inradius about the origin (distance to the nearest face plane)
      for (double d : s.hull.face_offsets) r = std::min(r, std::abs(d));
      return r;
    }
    case ShapeType::Mesh:
      return 0.5 * (s.mesh->hi - s.mesh->lo).minCoeff();
    case ShapeType::Compound: {
      double r = 1e300;
      for (const CompoundChild& c : s.children) r = std::min(r, small_extent(lib, c.shape));
      return r;
    }
    case ShapeType::Plane:
      return 1e300;
  }
  return 1e300;
}

struct Cast {
  double toi = 2.0;
  Vec3 normal = Vec3::UnitZ(), point = Vec3::Zero();
};

// earliest impact of the swept body's pieces (poses a0 -> a1) against another body's (b0 -> b1)
void cast_pair(const ShapeLibrary& lib, int shape_a, const Pose& a0, const Pose& a1, int shape_b, const Pose& b0,
               const Pose& b1, const Aabb& near, Cast& best, int& casts) {
  std::vector<Piece> pa, pb;
  pieces_of(lib, shape_a, Pose{}, nullptr, a0, pa);
  const Shape& sb = lib[shape_b];
  const Vec3 da = a1.p - a0.p, db = b1.p - b0.p;
  const auto keep = [&](double toi, const Vec3& n, const Vec3& point) {
    // an impact closes the gap along n: the relative motion must approach (not slide or separate)
    const double approach = -(da - db).dot(n);
    if (!(approach > 1e-3 * (da - db).norm())) return;
    if (toi < best.toi) best = {toi, n, point};
  };
  if (sb.type == ShapeType::Plane) {
    btStaticPlaneShape plane(bt(sb.normal), sb.offset);
    for (const Piece& p : pa) {
      btContinuousConvexCollision cc(p.shape.get(), &plane);
      btConvexCast::CastResult r;
      ++casts;
      if (cc.calcTimeOfImpact(bt(a0 * p.local), bt(a1 * p.local), bt(b0), bt(b1), r) && r.m_fraction <= 1)
        keep(r.m_fraction, b0.rotate(sb.normal), from_bt(r.m_hitPoint));
    }
    return;
  }
  pieces_of(lib, shape_b, Pose{}, &near, b0, pb);
  btVoronoiSimplexSolver simplex;
  btGjkEpaPenetrationDepthSolver epa;
  for (const Piece& p : pa)
    for (const Piece& q : pb) {
      btContinuousConvexCollision cc(p.shape.get(), q.shape.get(), &simplex, &epa);
      btConvexCast::CastResult r;
      ++casts;
      if (!cc.calcTimeOfImpact(bt(a0 * p.local), bt(a1 * p.local), bt(b0 * q.local), bt(b1 * q.local), r)) continue;
      if (!(r.m_fraction >= 0 && r.m_fraction <= 1)) continue;
      Vec3 n = from_bt(r.m_normal);
      if (!(n.norm() > 0.5)) continue;
      keep(r.m_fraction, n.normalized(), from_bt(r.m_hitPoint));
    }
}

}  // namespace

RigidCcdStats rigid_ccd(const RigidCcdInput& in, std::vector<RigidCcdHit>& out) {
  RigidCcdStats st;
  out.clear();
  const ShapeLibrary& lib = *in.shapes;
  const auto& shape = *in.body_shape;
  const auto& p0 = *in.pose0;
  const auto& p1 = *in.pose1;
  const int nb = int(shape.size());
  // swept boxes, and the fast bodies
  std::vector<Aabb> box(static_cast<std::size_t>(nb));
  std::vector<int> fast;
  for (int i = 0; i < nb; ++i) {
    const auto k = std::size_t(i);
    if (shape[k] < 0) continue;  // no shape: an empty box, which overlaps nothing
    box[k] = lib.aabb(shape[k], p0[k], 0.0);
    box[k].grow(lib.aabb(shape[k], p1[k], 0.0));
    if ((*in.is_static)[k]) continue;
    const double moved = (p1[k].p - p0[k].p).norm();
    if (moved > in.size_fraction * small_extent(lib, shape[k])) fast.push_back(i);
  }
  st.swept = int(fast.size());
  std::vector<Cast> result(fast.size());
  std::vector<int> other(fast.size(), -1), casts(fast.size(), 0);
  tbb::parallel_for(std::size_t(0), fast.size(), [&](std::size_t f) {
    const int i = fast[f];
    const auto k = std::size_t(i);
    for (int j = 0; j < nb; ++j) {
      if (j == i || !box[k].overlaps(box[std::size_t(j)])) continue;
      const auto u = std::size_t(j);
      if (in.contype && in.conaffinity && ((*in.contype)[k] & (*in.conaffinity)[u]) == 0 &&
          ((*in.contype)[u] & (*in.conaffinity)[k]) == 0)
        continue;
      if (in.excluded_pairs &&
          std::binary_search(in.excluded_pairs->begin(), in.excluded_pairs->end(), std::pair(std::min(i, j), std::max(i, j))))
        continue;
      const double before = result[f].toi;
      cast_pair(lib, shape[k], p0[k], p1[k], shape[std::size_t(j)], p0[std::size_t(j)], p1[std::size_t(j)], box[k],
                result[f], casts[f]);
      if (result[f].toi < before) other[f] = j;
    }
  });
  for (std::size_t f = 0; f < fast.size(); ++f) {
    st.casts += casts[f];
    if (result[f].toi > 1.0) continue;
    ++st.hits;
    out.push_back({fast[f], other[f], result[f].toi, result[f].normal, result[f].point});
  }
  return st;
}

}  // namespace coulomb
