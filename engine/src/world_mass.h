// A rigid body's mass properties from its BodyDef, checked (world_mass.cpp).
#pragma once
#include <coulomb/scene.h>

#include <string>

namespace coulomb::detail {

// What a double-precision contact solve can simulate (world_mass.cpp) (unit: kg)
inline constexpr double kMinMass = 1e-15, kMaxMass = 1e15;

// The mass, principal moments and body frame (centre of mass, principal axes) in the shape frame
// of a moving body: from its shape and density, its `mass`, its `inertia` (principal moments
// about the shape's axes, or a full tensor, diagonalised) and its `center_of_mass`. Throws
// InputError at `where` when they are not simulable.
void body_mass(const SceneDef& scene, const BodyDef& d, const std::string& where, double& mass, Vec3& moments,
               Pose& body_in_shape);

// Everything a step starts from must be finite: pose, velocities, shape extent, energies.
void check_finite_start(const SceneDef& scene, const BodyDef& d, const std::string& where, const Pose& body_world,
                        const Vec3& v, const Vec3& w, double mass, const Vec3& moments);

}  // namespace coulomb::detail
