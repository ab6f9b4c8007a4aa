// Point queries shared by the soft contact kinds (soft_contact_kinds.cpp). Private to collision/.
//
// - `surface_query`: signed distance of a point to a closed, outward-wound triangle surface (a
//   soft body's boundary or a rigid mesh) through its kDOP tree.
// - `point_vs_shape`: the nearest point of a rigid shape to a point (a soft vertex), through the
//   narrowphase with the vertex as a small ball (meshes through surface_query).
// - `shape_corners`: the corner points of a rigid shape that meet soft triangles.
#pragma once
#include <coulomb/mesh.h>
#include <coulomb/narrowphase.h>
#include <coulomb/shapes.h>

#include <limits>
#include <utility>
#include <vector>

namespace coulomb::detail {

inline constexpr int kSoftChildStride = 1024;  // compound child k's point f is (k + 1) * kSoftChildStride + f

// Closest point of triangle (a, b, c) to p and its barycentric weights `w`.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, Vec3& w);

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

// Buffers of the queries, one per task so that queries allocate nothing in steady state.
struct QueryScratch {
  std::vector<int> tris;
  std::vector<Vec3> q, w;
  std::vector<double> d;
  std::vector<ContactPoint> pts;
  std::vector<std::pair<Vec3, int>> corners;
};

// Signed distance query of p against surface s: reports a point in front within `front_range`
// or inside with depth up to `back_range` (soft_queries.cpp explains the inside/outside rule).
bool surface_query(const SurfaceRef& s, const Vec3& p, double front_range, double back_range, QueryScratch& k,
                   SurfaceHit& hit);

// A soft vertex as a ball for the narrowphase: a shape outside the library with id `id`
// (the library's size), radius max(thickness, kMinBall).
struct VertexBall {
  const ShapeLibrary& lib;
  Shape shape;
  int id = -1;
  double radius = 0.0;
};
VertexBall vertex_ball(const ShapeLibrary& lib, double thickness);

// The nearest point of a rigid shape to a point: signed distance (< 0 inside), the normal
// leaving the shape, and the top-level compound child (-1 for a plain shape).
struct ShapeHit {
  Vec3 on = Vec3::Zero(), n = Vec3::UnitZ();
  double dist = std::numeric_limits<double>::infinity();
  int child = -1;
};
// Updates `best` with the nearest point of shape `shape` at `pose` to p, when closer than
// `range` outside (deeper inside: see soft_queries.cpp).
void point_vs_shape(const VertexBall& ball, int shape, const Pose& pose, const Vec3& p, double range,
                    QueryScratch& k, ShapeHit& best);

// Corner points of a rigid shape at `pose` in the world, with their ids (ContactSide::feature).
void shape_corners(const ShapeLibrary& lib, int shape, const Pose& pose, std::vector<std::pair<Vec3, int>>& out);

}  // namespace coulomb::detail
