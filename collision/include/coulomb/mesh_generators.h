// Closed triangle surfaces built from parameters: the bundled scenes' meshes (tools/meshgen
// writes them as OBJ files) and test fixtures. Every surface is a closed, consistently
// outward-wound 2-manifold, so make_tri_mesh accepts it for moving bodies.
#pragma once
#include <coulomb/math.h>

#include <array>
#include <vector>

namespace coulomb {

struct Surface {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> triangles;
};

// The 12-triangle surface of a box centred at the origin.
Surface box_surface(const Vec3& half_extents);

// The boundary of a union of unit cells (integer coordinates) scaled by `cell`, centred at the
// origin of the cell grid: every face between a filled and an empty cell becomes two triangles.
// Cells must not touch only along an edge or a corner (the surface would not be a manifold).
Surface voxel_surface(const std::vector<std::array<int, 3>>& cells, double cell);

// A jack: a cube of side `arm` with six arms of `length` cells of the same cross-section,
// one along each axis direction (a non-convex closed surface).
Surface jack_surface(double arm, int length);

// A funnel with axis z: a conical wall of `thickness` (measured horizontally) from inner radius
// r_top at z = height down to inner radius r_bottom at z = 0, continued by a vertical spout of
// inner radius r_bottom down to z = -spout; `segments` facets around.
Surface funnel_surface(double r_top, double r_bottom, double height, double spout, double thickness, int segments);

// A torus with axis z: tube radius `minor` around a circle of radius `major`, `segments` quads
// around the axis and `sides` around the tube, each split into two triangles.
Surface torus_surface(double major, double minor, int segments, int sides);

// A sphere of `radius` from a subdivided icosahedron (`subdivisions` = 0: 20 triangles, each level x4).
Surface icosphere_surface(double radius, int subdivisions);

}  // namespace coulomb
