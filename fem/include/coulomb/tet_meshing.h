// Making tetrahedral meshes for soft bodies (SCENE_FORMAT.md, "Soft bodies", MESH): TetGen on a
// closed triangle surface, TetGen .node/.ele files, the `sphere` generator (`box` is
// box_tet_mesh in tet_mesh.h), and the per-vertex data derived from a mesh (lumped masses,
// surface edges and vertices).
//
// Why: every path ends in check_tet_mesh, so a mesh that reaches the simulation has only
// positively oriented, non-degenerate tets. Input mistakes throw (std::invalid_argument from the
// pure functions, which the scene loader prefixes with the JSON pointer; InputError naming the
// file from read_tetgen); nothing here runs inside a step.
#pragma once
#include <coulomb/tet_mesh.h>

#include <array>
#include <filesystem>
#include <vector>

namespace coulomb {

// Tetrahedralise the solid bounded by a closed triangle surface with TetGen 1.5 (switches
// "pzQ" + "q<quality>" + "a<max_volume>": a constrained Delaunay mesh of the surface, refined
// until every tet has volume <= max_volume and radius-edge ratio <= quality; TetGen may add
// points on the surface triangles, which keeps the surface's shape but refines it). A first
// pass with -d looks for self-intersections, on which TetGen 1.5 would otherwise crash.
//
// `quality` is TetGen's bound on a tet's circumradius / shortest edge (a regular tet has
// sqrt(6)/4 ~ 0.61); smaller means rounder tets and more of them. It must be >= 1.1: TetGen
// only guarantees termination above 2, works well from ~1.2 up, and does not finish within 30 s
// for 1.0 or 1.02 on a cube (1.05 gives 24 times the tets of 1.414). 1.414 is a good default.
// `max_volume` (unit: m^3) must be > 0.
//
// The surface is checked first (std::invalid_argument, message names the vertex, triangle or
// edge): finite vertices, each used by some triangle, no two at the same position; indices in
// range; no zero-area triangle; closed ("the surface is open: edge (i, j) belongs to one
// triangle"), manifold (no edge in more than two triangles) and consistently oriented (each
// edge traversed once in each direction). TetGen's own failures (self-intersecting surface,
// too small a feature, running out of memory) are reported as std::invalid_argument too.
//
// Output: the surface's vertices first, in input order and bit-for-bit equal, then TetGen's
// Steiner points; every tet positively oriented. Deterministic (TetGen seeds its own random
// choices). Several disjoint closed shells give several solids; a shell nested inside another
// is meshed as solid, not as a cavity.
TetMesh tetrahedralize(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles,
                       double max_volume, double quality);

// Read a TetGen mesh: `node_file` (FILE.node) and its sibling FILE.ele. Format (TetGen manual,
// section 5.2): '#' starts a comment, blank lines are skipped;
//   .node: "<#points> 3 <#attributes> <0|1 boundary marker>", then "<i> <x> <y> <z> [attrs] [marker]"
//   .ele:  "<#tets> 4 <0|1 region attribute>", then "<i> <n0> <n1> <n2> <n3> [attr]"
// Numbering starts at the first point index of the .node file (0 or 1) as in TetGen, and points
// and tets must be numbered consecutively from there. Attributes and markers are read and
// ignored. Tets are taken as positively oriented; a file where every tet is negative (the
// opposite handedness) is flipped consistently, a file with both signs is an error naming the
// first tet whose sign differs from the majority. Unused vertices are rejected (they would get
// no mass). Every problem throws InputError(path of the offending file, "line N: ...").
TetMesh read_tetgen(const std::filesystem::path& node_file);

// A ball of `radius` (unit: m) centred at the origin with about `resolution` elements across
// its diameter. Method: a geodesic icosphere (each icosahedron face split into f x f
// triangles, f = resolution, vertices projected onto the sphere) meshed by TetGen with its
// surface kept as given (-Y), max_volume = h^3 / 6 with h = 2 radius / resolution (the tet
// volume of box_tet_mesh at the same resolution) and quality 1.414. Why: TetGen gives
// well-shaped tets everywhere (a mapped cube has flattened tets near the cube's corners), every
// boundary vertex lies exactly on the sphere, and the surface is uniform at any resolution.
// The volume is that of the inscribed polyhedron (measured in tet_meshing_test.cpp, r = 0.3):
//   resolution    2       4       6      8      12
//   tets         80     551    1702   3836   11993
//   volume err -12.7%  -3.4%  -1.5%  -0.86%  -0.38%
// Deterministic. Throws std::invalid_argument for radius <= 0 or resolution < 2.
TetMesh sphere_tet_mesh(double radius, int resolution);

// Lumped vertex masses (nv, unit: kg): each tet's mass density * volume split equally over its
// four vertices (seed 002 section 3.3, the lumped mass approximation; seed 003 section 9.3).
// `density` (unit: kg/m^3) must be finite and > 0 (std::invalid_argument).
std::vector<double> lumped_masses(const TetMesh& mesh, double density);

// The unique edges {a, b} (a < b) of the triangles `faces`, sorted.
std::vector<std::array<int, 2>> surface_edges(const std::vector<std::array<int, 3>>& faces);

// The unique vertices of the triangles `faces`, sorted.
std::vector<int> surface_vertices(const std::vector<std::array<int, 3>>& faces);

}  // namespace coulomb
