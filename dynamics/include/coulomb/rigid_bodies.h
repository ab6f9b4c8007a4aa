// Rigid bodies as flat arrays indexed by body id (STYLE.md lessons 1-2).
//
// RigidModel is read-only during a step (shapes, masses, materials); RigidState holds what a
// step changes (q, u) and is the rigid part of the World's State (engine/state.h). The body frame
// sits at the centre of mass with axes along the principal axes of inertia, so the body-frame
// inertia is diagonal; `shape_in_body` places the user's shape frame in that body frame.
#pragma once
#include <coulomb/math.h>

#include <cstdint>
#include <string>
#include <vector>

namespace coulomb {

struct RigidModel {
  std::vector<std::string> name;      // (nb)
  std::vector<int> shape;             // (nb) index into the ShapeLibrary
  std::vector<int> material;          // (nb) index into the material table
  std::vector<std::uint8_t> fixed;    // (nb) 1 = infinite mass: never moves, or moves as the program says
  std::vector<std::uint8_t> kinematic;  // (nb) 1 = fixed but moved by its velocity (set by the program)
  std::vector<double> mass;           // (nb) (unit: kg), 0 for fixed bodies
  std::vector<double> inv_mass;       // (nb) (unit: 1/kg)
  std::vector<Vec3> inertia;          // (nb) principal moments, body frame (unit: kg m^2)
  std::vector<Vec3> inv_inertia;      // (nb) their inverses, 0 for fixed bodies
  std::vector<Pose> shape_in_body;    // (nb) shape frame expressed in the body frame

  int size() const { return int(name.size()); }
  // Appends a body and returns its id. Fixed bodies get zero (inverse) mass and inertia.
  int add(const std::string& body_name, int shape_id, int material_id, bool is_fixed, double m,
          const Vec3& principal_moments, const Pose& shape_in_body_frame);
};

struct RigidState {
  std::vector<Vec3> x;  // (nb) centre of mass, world (unit: m)
  std::vector<Quat> q;  // (nb) body orientation (unit quaternion)
  std::vector<Vec3> v;  // (nb) velocity of the centre of mass (unit: m/s)
  std::vector<Vec3> w;  // (nb) angular velocity, world frame (unit: rad/s)

  void resize(int nb);
  Pose body_pose(int i) const { return {x[std::size_t(i)], q[std::size_t(i)]}; }
};

// World pose of body i's shape frame.
inline Pose shape_pose(const RigidModel& m, const RigidState& s, int i) {
  return s.body_pose(i) * m.shape_in_body[std::size_t(i)];
}

// World-frame inverse inertia R diag(1/I) R^T (seed 000 eq. 58).
Mat3 world_inv_inertia(const RigidModel& m, const RigidState& s, int i);
// World-frame inertia R diag(I) R^T (seed 000 eq. 58).
Mat3 world_inertia(const RigidModel& m, const RigidState& s, int i);

// Kinetic energy 1/2 m v^2 + 1/2 w . I w, summed over bodies (unit: J).
double kinetic_energy(const RigidModel& m, const RigidState& s);
// Gravitational potential energy -m g . x, summed over moving bodies (unit: J).
double potential_energy(const RigidModel& m, const RigidState& s, const Vec3& gravity);

}  // namespace coulomb
