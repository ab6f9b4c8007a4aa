// Mass, centre of mass and inertia of shapes: closed forms for primitives, volume integrals
// over the triangulated hull for convex shapes, and the parallel-axis sum for compounds.
#pragma once
#include <coulomb/shapes.h>

#include <array>
#include <vector>

namespace coulomb {

struct MassProperties {
  double volume = 0.0;            // (unit: m^3)
  double mass = 0.0;              // (unit: kg)
  Vec3 com = Vec3::Zero();        // centre of mass in the shape frame (unit: m)
  Mat3 inertia = Mat3::Zero();    // inertia tensor about the com, shape-frame axes (unit: kg m^2)
};

// Throws std::invalid_argument for shapes without a finite volume (planes).
MassProperties mass_properties(const ShapeLibrary& lib, int shape, double density);

// Inertia of a solid tetrahedron-decomposed closed triangle surface (vertices + CCW triangles),
// about the origin of its frame, for unit density: volume, first moments and the second-moment
// (covariance) matrix C = int x x^T dV. Used for hulls here and closed meshes later.
struct VolumeIntegrals {
  double volume = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();
};
VolumeIntegrals volume_integrals(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles);

}  // namespace coulomb
