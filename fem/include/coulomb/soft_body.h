// A tetrahedral soft body as the World keeps it: the model (rest shape, element data, masses,
// collision surface) and its state (vertex positions and velocities), as flat arrays. The
// World's State (engine/state.h) holds copies of x and v (SoftState); nothing else here changes.
//
// Built once from a checked TetMesh placed in the world; the solver sees it only through the
// PositionProblem the World assembles (DESIGN.md: solvers never touch bodies).
#pragma once
#include <coulomb/materials.h>
#include <coulomb/tet_mesh.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace coulomb {

struct SoftBody {
  std::string name;
  int material = 0;                          // index into the scene's materials
  MaterialModel model = MaterialModel::Corotational;
  Lame lame;
  double damping = 0.0;                      // Rayleigh ratio rho (seed 002 eq. 19-21) (unit: s)

  // model
  TetMesh mesh;                              // rest positions in the world (after placement)
  std::vector<Mat3> Dm_inv;                  // (nt) inverse rest shape matrices (seed 002 alg. 3)
  std::vector<double> rest_volume;           // (nt) (unit: m^3)
  std::vector<double> mass;                  // (nv) lumped masses (unit: kg)
  std::vector<double> inv_mass;              // (nv) 0 for pinned vertices
  std::vector<std::array<int, 3>> faces;     // outward boundary triangles (collision surface)
  std::vector<int> surface_vertices;         // sorted vertices of the faces
  double total_rest_volume = 0.0;

  // state
  std::vector<Vec3> x, v;                    // (nv) world positions and velocities

  int vertex_count() const { return int(x.size()); }
};

// Builds a soft body from a mesh already placed in the world. `pinned` (nv, may be empty) marks
// vertices of infinite mass. Throws std::invalid_argument if the mesh fails check_tet_mesh or
// the density is not positive.
SoftBody make_soft_body(std::string name, int material, MaterialModel model, const Lame& lame, double damping,
                        TetMesh placed, double density, const Vec3& velocity, const std::vector<std::uint8_t>& pinned);

// Current enclosed volume (sum of signed tet volumes) (unit: m^3).
double soft_volume(const SoftBody& b);
// Smallest signed tet volume at the current positions (negative: an inverted tet) (unit: m^3).
double soft_min_tet_volume(const SoftBody& b);
// Centre of mass (lumped masses, pinned vertices included).
Vec3 soft_centroid(const SoftBody& b);
double soft_kinetic_energy(const SoftBody& b);
double soft_potential_energy(const SoftBody& b, const Vec3& gravity);  // -m g . x, summed
double soft_elastic_energy(const SoftBody& b);                         // sum V0 Psi(F) (unit: J)

}  // namespace coulomb
