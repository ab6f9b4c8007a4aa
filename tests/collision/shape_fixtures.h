// Shape builders shared by the collision tests.
#pragma once
#include <coulomb/mesh_generators.h>
#include <coulomb/shapes.h>

namespace coulomb::fixtures {

inline Shape sphere(double r) {
  Shape s;
  s.type = ShapeType::Sphere;
  s.radius = r;
  return s;
}
inline Shape box(const Vec3& h) {
  Shape s;
  s.type = ShapeType::Box;
  s.half_extents = h;
  s.hull = box_hull(h);
  return s;
}
inline Shape capsule(double r, double hh) {
  Shape s;
  s.type = ShapeType::Capsule;
  s.radius = r;
  s.half_height = hh;
  return s;
}
inline Shape plane(const Vec3& n = Vec3::UnitZ(), double offset = 0.0) {
  Shape s;
  s.type = ShapeType::Plane;
  s.normal = n;
  s.offset = offset;
  return s;
}
inline Shape mesh_shape(const Surface& surface, int k = 18) {
  Shape s;
  s.type = ShapeType::Mesh;
  s.mesh = make_tri_mesh(surface.vertices, surface.triangles, k);
  return s;
}

}  // namespace coulomb::fixtures
