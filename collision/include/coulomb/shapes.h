// Collision shapes and their geometry, in the shape's own frame.
//
// A ShapeLibrary owns every shape of a world; bodies refer to shapes by index. Compound shapes
// refer to child shapes of the same library by index. Convex hulls keep their hull (vertices,
// faces with outward normals) computed once at load time so that mass properties and the
// narrowphase never recompute it.
#pragma once
#include <coulomb/math.h>
#include <coulomb/mesh.h>

#include <cstdint>
#include <string>
#include <vector>

namespace coulomb {

enum class ShapeType : std::uint8_t { Sphere, Box, Capsule, Cylinder, Plane, Convex, Compound, Mesh };
inline constexpr int kShapeTypeCount = 8;
const char* shape_type_name(ShapeType t);

// A convex polyhedron: vertices, faces as counter-clockwise vertex loops seen from outside,
// and one outward unit normal + plane offset per face (n . x = d on the face).
struct ConvexHull {
  std::vector<Vec3> vertices;
  std::vector<std::vector<int>> faces;
  std::vector<Vec3> face_normals;
  std::vector<double> face_offsets;
};

struct CompoundChild {
  int shape = -1;  // index into the ShapeLibrary
  Pose pose;       // child frame in the compound's frame
};

struct Shape {
  ShapeType type = ShapeType::Sphere;
  std::string name;
  double radius = 0.0;                   // sphere, capsule, cylinder (unit: m)
  double half_height = 0.0;              // capsule, cylinder: half length of the axis (local z) (unit: m)
  Vec3 half_extents = Vec3::Zero();      // box (unit: m)
  Vec3 normal = Vec3::UnitZ();           // plane: unit normal; the solid side is n . x <= offset
  double offset = 0.0;                   // plane (unit: m)
  ConvexHull hull;                       // convex (also filled for box, used by the narrowphase)
  std::vector<CompoundChild> children;   // compound
  std::shared_ptr<const TriMesh> mesh;   // mesh (shared, immutable)
};

// Builds the convex hull of a point cloud (Bullet's btConvexHullComputer). Throws
// std::invalid_argument for fewer than 4 points or a flat/degenerate cloud.
ConvexHull make_convex_hull(const std::vector<Vec3>& points);
// The 8-vertex, 6-face hull of a box: vertex i has coordinate k positive when bit k of i is set;
// face 2k + (sign > 0) has outward normal sign e_k (-x, +x, -y, +y, -z, +z), its loop
// kBoxFaceLoops[face] counter-clockwise seen from outside.
inline constexpr int kBoxFaceLoops[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};
ConvexHull box_hull(const Vec3& half_extents);

// Axis-aligned bounding box of a shape placed at `pose`, grown by `margin` on every side.
// Planes return an infinite box.
struct Aabb {
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity());
  Vec3 hi = Vec3::Constant(-std::numeric_limits<double>::infinity());
  bool overlaps(const Aabb& o) const {
    return (lo.array() <= o.hi.array()).all() && (o.lo.array() <= hi.array()).all();
  }
  void grow(const Aabb& o) { lo = lo.cwiseMin(o.lo); hi = hi.cwiseMax(o.hi); }
};

struct ShapeLibrary {
  std::vector<Shape> shapes;
  int add(Shape s) { shapes.push_back(std::move(s)); return int(shapes.size()) - 1; }
  const Shape& operator[](int i) const { return shapes[std::size_t(i)]; }
  Aabb aabb(int shape, const Pose& pose, double margin) const;
  // the same for a shape that need not be in the library (its compound children must be)
  Aabb aabb(const Shape& shape, const Pose& pose, double margin) const;
};

// Support point of a convex shape (not plane/compound) in direction d, in the shape frame.
Vec3 support(const Shape& s, const Vec3& d);

}  // namespace coulomb
