// Tetrahedral meshes: the data every soft body is built on (rest positions, tets), with the
// checks a mesh must pass before a simulation may use it. Soft bodies themselves (materials,
// element kernels, TetGen meshing) build on this module.
#pragma once
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace coulomb {

struct TetMesh {
  std::vector<Vec3> rest;                // (nv) rest positions (unit: m)
  std::vector<std::array<int, 4>> tets;  // (nt) vertex indices, positively oriented
};

// Signed volume of the tetrahedron (a, b, c, d): det[b-a, c-a, d-a] / 6, positive when
// (b-a, c-a, d-a) is right-handed.
double signed_volume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// Rest volume of each tet (nt).
std::vector<double> tet_volumes(const TetMesh& mesh);

// An empty string if the mesh is usable, otherwise the first problem found: no tets, a vertex
// index out of range, a repeated vertex in a tet, a non-finite position, or an inverted or
// degenerate tet (volume <= `min_volume_ratio` times the mean |volume|).
std::string check_tet_mesh(const TetMesh& mesh, double min_volume_ratio = 1e-9);

// Boundary triangles (faces used by exactly one tet), oriented outward, sorted.
std::vector<std::array<int, 3>> boundary_faces(const TetMesh& mesh);

// Memory guard: a mesh is refused before it is allocated when it would hold more than
// kMaxTets tetrahedra (about 0.3 KB each once the soft body's per-tet data is built, measured
// in fem/README.md, "Memory guard"). Thrown by box_tet_mesh and the TetGen paths, with the estimate.
inline constexpr std::int64_t kMaxTets = 2'000'000;
struct MeshTooLarge : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A box [-h, h] split into n[0] x n[1] x n[2] cells of 6 tets each (Kuhn subdivision, which
// makes neighbouring cells share face diagonals so the mesh is conforming).
TetMesh box_tet_mesh(const Vec3& half_extents, const std::array<int, 3>& n);

}  // namespace coulomb
