// Soft body construction and the whole-body measures reported in the run output.
#include <coulomb/element_constraint.h>
#include <coulomb/soft_body.h>
#include <coulomb/tet_meshing.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace coulomb {

SoftBody make_soft_body(std::string name, int material, MaterialModel model, const Lame& lame, double damping,
                        TetMesh placed, double density, const Vec3& velocity, const std::vector<std::uint8_t>& pinned) {
  if (const std::string err = check_tet_mesh(placed); !err.empty()) throw std::invalid_argument(err);
  if (!(density > 0.0)) throw std::invalid_argument("the material density must be > 0 for a soft body");
  SoftBody b;
  b.name = std::move(name);
  b.material = material;
  b.model = model;
  b.lame = lame;
  b.damping = damping;
  b.mesh = std::move(placed);
  b.rest_volume = tet_volumes(b.mesh);
  b.Dm_inv.resize(b.mesh.tets.size());
  for (std::size_t t = 0; t < b.mesh.tets.size(); ++t) {
    const auto& T = b.mesh.tets[t];
    Mat3 Dm;
    for (int c = 0; c < 3; ++c) Dm.col(c) = b.mesh.rest[std::size_t(T[std::size_t(c) + 1])] - b.mesh.rest[std::size_t(T[0])];
    b.Dm_inv[t] = Dm.inverse();
    b.total_rest_volume += b.rest_volume[t];
  }
  b.mass = lumped_masses(b.mesh, density);
  b.inv_mass.resize(b.mass.size());
  for (std::size_t i = 0; i < b.mass.size(); ++i)
    b.inv_mass[i] = (i < pinned.size() && pinned[i]) || !(b.mass[i] > 0.0) ? 0.0 : 1.0 / b.mass[i];
  b.faces = boundary_faces(b.mesh);
  b.surface_vertices = surface_vertices(b.faces);
  b.x = b.mesh.rest;
  b.v.assign(b.x.size(), velocity);
  for (std::size_t i = 0; i < b.v.size(); ++i)
    if (b.inv_mass[i] == 0.0) b.v[i].setZero();
  return b;
}

namespace {
std::array<Vec3, 4> corners(const SoftBody& b, std::size_t t) {
  const auto& T = b.mesh.tets[t];
  return {b.x[std::size_t(T[0])], b.x[std::size_t(T[1])], b.x[std::size_t(T[2])], b.x[std::size_t(T[3])]};
}
}  // namespace

double soft_volume(const SoftBody& b) {
  double v = 0.0;
  for (std::size_t t = 0; t < b.mesh.tets.size(); ++t) {
    const auto c = corners(b, t);
    v += signed_volume(c[0], c[1], c[2], c[3]);
  }
  return v;
}

double soft_min_tet_volume(const SoftBody& b) {
  double v = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < b.mesh.tets.size(); ++t) {
    const auto c = corners(b, t);
    v = std::min(v, signed_volume(c[0], c[1], c[2], c[3]));
  }
  return v;
}

Vec3 soft_centroid(const SoftBody& b) {
  Vec3 c = Vec3::Zero();
  double m = 0.0;
  for (std::size_t i = 0; i < b.x.size(); ++i) {
    c += b.mass[i] * b.x[i];
    m += b.mass[i];
  }
  return m > 0.0 ? Vec3(c / m) : c;
}

double soft_kinetic_energy(const SoftBody& b) {
  double e = 0.0;
  for (std::size_t i = 0; i < b.x.size(); ++i) e += 0.5 * b.mass[i] * b.v[i].squaredNorm();
  return e;
}

double soft_potential_energy(const SoftBody& b, const Vec3& gravity) {
  double e = 0.0;
  for (std::size_t i = 0; i < b.x.size(); ++i)
    if (b.inv_mass[i] > 0.0) e -= b.mass[i] * gravity.dot(b.x[i]);
  return e;
}

double soft_elastic_energy(const SoftBody& b) {
  double e = 0.0;
  for (std::size_t t = 0; t < b.mesh.tets.size(); ++t)
    e += b.rest_volume[t] * energy_density(b.model, b.lame, deformation_gradient(corners(b, t), b.Dm_inv[t]));
  return e;
}

}  // namespace coulomb
