// A rigid body's mass properties from its scene definition, and the checks that they, and the
// body's start, are simulable (world.cpp builds the model with them).
#include "world_mass.h"

#include <coulomb/error.h>
#include <coulomb/mass_properties.h>

#include "scene_reader.h"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <string>

namespace coulomb::detail {

namespace {

std::string number(double x) { return show(x); }

// Body frame (centre of mass, principal axes) of a shape's mass distribution, in the shape
// frame, and the principal moments. Diagonal tensors keep the shape's own axes so that
// primitives have identical shape and body frames.
void principal_frame(const MassProperties& mp, Pose& body_in_shape, Vec3& moments) {
  body_in_shape.p = mp.com;
  const Mat3& I = mp.inertia;
  const double off = std::abs(I(0, 1)) + std::abs(I(0, 2)) + std::abs(I(1, 2));
  if (off <= 1e-12 * I.trace()) {
    moments = I.diagonal();
    body_in_shape.q = Quat::Identity();
    return;
  }
  Eigen::SelfAdjointEigenSolver<Mat3> eig(I);
  Mat3 R = eig.eigenvectors();
  if (R.determinant() < 0) R.col(2) = -R.col(2);
  moments = eig.eigenvalues();
  body_in_shape.q = Quat(R).normalized();
}

// What a double-precision contact solve can simulate (a mass of 1e-300 sinks while "converged",
// 1e305 gives null energies, inertia [1e-3, 1, 1] on a 1 m cube falls through the floor).
// Rejected at load, so that `coulomb validate` says so with exit 2:
//  - a mass outside [kMinMass, kMaxMass]: its impulses and energies leave the range where
//    sums with unit-scale quantities keep any digit (and m v^2 overflows near 1e308);
//  - principal moments that no mass distribution has: I_a + I_b < I_c (triangle inequality), or
//    I_k > m rho_k^2 with rho_k the largest distance of the shape from axis k (the mass would
//    have to lie outside the shape); the rho bounds (this one and the next) are skipped for a body
//    without a shape and for one that gives its centre_of_mass: that is an imported link's
//    inertial, whose mass (motors, cables) need not lie inside its simplified collision shape and
//    whose small placeholder inertias (1e-6 kg m^2 in many URDFs) are valid models;
//  - I_k < m rho_k^2 / kMaxInertiaRatio: a contact at distance rho_k from the axis then sees an
//    effective mass kMaxInertiaRatio times below the body's own, a Delassus operator no
//    iterative solver converges on in a step's budget. A uniform body has m rho^2 / I of 2.5
//    (ball) to 3 (cube); a thin rod about its own axis 3 too.
constexpr double kMaxInertiaRatio = 1e4;


void check_simulable_mass(const SceneDef& scene, const BodyDef& d, const std::string& where, double mass,
                          const Vec3& moments, const Pose& body_in_shape) {
  const std::string body = "body '" + d.name + "'";
  if (!std::isfinite(mass) || !moments.allFinite())
    throw InputError(where, body + " has an infinite mass or inertia (density times volume overflows)");
  if (mass < kMinMass || mass > kMaxMass)
    throw InputError(where, body + " has a mass of " + number(mass) + " kg, outside the range [" + number(kMinMass) + ", " +
                                number(kMaxMass) + "] kg that a double-precision contact solve can simulate");
  const double sum = moments.sum();
  for (int k = 0; k < 3; ++k)
    if (moments[k] > sum - moments[k] + 1e-9 * sum)
      throw InputError(where, body + " has principal moments [" + number(moments[0]) + ", " + number(moments[1]) + ", " +
                                  number(moments[2]) + "] kg m^2 that break the triangle inequality I_a + I_b >= I_c: no "
                                  "mass distribution has them");
  if (d.shape < 0 || d.center_of_mass) return;
  // the shape's extent about each principal axis through the centre of mass (an upper bound)
  const Aabb box = scene.shapes.aabb(d.shape, body_in_shape.inverse(), 0.0);
  const Vec3 far = box.lo.cwiseAbs().cwiseMax(box.hi.cwiseAbs());
  for (int k = 0; k < 3; ++k) {
    const double rho2 = far[(k + 1) % 3] * far[(k + 1) % 3] + far[(k + 2) % 3] * far[(k + 2) % 3];
    if (!std::isfinite(rho2)) continue;  // an unbounded shape: checked in check_finite_start
    if (moments[k] > mass * rho2 * (1.0 + 1e-9))
      throw InputError(where, body + ": moment " + number(moments[k]) + " kg m^2 about axis " + std::to_string(k) +
                                  " is larger than any mass of " + number(mass) + " kg inside its shape can give (at most " +
                                  number(mass * rho2) + ")");
    if (moments[k] * kMaxInertiaRatio < mass * rho2)
      throw InputError(where, body + ": moment " + number(moments[k]) + " kg m^2 about axis " + std::to_string(k) +
                                  " is below m rho^2 / " + number(kMaxInertiaRatio) + " = " +
                                  number(mass * rho2 / kMaxInertiaRatio) +
                                  " kg m^2 (rho: the shape's extent about that axis); contacts on it would be too "
                                  "ill-conditioned to solve");
  }
}

}  // namespace

// Everything a step starts from must be finite (a 1e308 grid spacing, huge generator boxes or
// infinite derived masses would pass `validate` and fail at step 1 with exit 3).
void check_finite_start(const SceneDef& scene, const BodyDef& d, const std::string& where, const Pose& body_world,
                        const Vec3& v, const Vec3& w, double mass, const Vec3& moments) {
  const std::string body = "body '" + d.name + "'";
  if (!body_world.p.allFinite() || !body_world.q.coeffs().allFinite())
    throw InputError(where, body + " has a non-finite position or orientation");
  if (!(d.position.cwiseAbs().maxCoeff() <= SceneLimits::kLength))
    throw InputError(where, body + " starts " + number(d.position.cwiseAbs().maxCoeff()) +
                                " m from the origin along an axis, beyond the scene limit of " +
                                number(SceneLimits::kLength) + " m for lengths");
  if (!v.allFinite() || !w.allFinite()) throw InputError(where, body + " has a non-finite initial velocity");
  if (d.shape >= 0) {
    const Aabb box = scene.shapes.aabb(d.shape, Pose{body_world.p, body_world.q}, 0.0);
    if (scene.shapes[d.shape].type != ShapeType::Plane && (!box.lo.allFinite() || !box.hi.allFinite()))
      throw InputError(where, body + " has a shape whose extent is not finite at its position");
  }
  if (d.fixed) return;
  // the energies written at every step: they must start finite
  const double kinetic = 0.5 * mass * v.squaredNorm() + 0.5 * moments.dot(w.cwiseAbs2());
  const double potential = mass * scene.gravity.stableNorm() * body_world.p.cwiseAbs().maxCoeff();
  if (!std::isfinite(kinetic) || !std::isfinite(potential))
    throw InputError(where, body + " starts with a non-finite kinetic or potential energy (mass " + number(mass) +
                                " kg at " + number(body_world.p.cwiseAbs().maxCoeff()) + " m from the origin along an axis)");
}

void body_mass(const SceneDef& scene, const BodyDef& d, const std::string& where, double& mass, Vec3& moments,
               Pose& body_in_shape) {
  MassProperties mp;
  if (d.shape >= 0) {
    try {
      mp = mass_properties(scene.shapes, d.shape, scene.materials[std::size_t(d.material)].density);
    } catch (const std::invalid_argument& e) {
      throw InputError(where, "body '" + d.name + "': " + e.what());
    }
  }  // else the loader asked for mass and inertia; the centre of mass defaults to the origin
  if (d.mass) {
    if (d.shape >= 0) mp.inertia *= *d.mass / mp.mass;
    mp.mass = *d.mass;
  }
  if (d.center_of_mass) mp.com = *d.center_of_mass;
  else if (d.shape < 0) mp.com = Vec3::Zero();
  if (d.inertia) {  // the tensor about the centre of mass, shape axes; diagonal: the shape's own axes
    const Vec3& p = d.inertia_products;
    mp.inertia << (*d.inertia)[0], p[0], p[1], p[0], (*d.inertia)[1], p[2], p[1], p[2], (*d.inertia)[2];
  }
  principal_frame(mp, body_in_shape, moments);
  mass = mp.mass;
  if (!(mass > 0.0) || !(moments.array() > 0.0).all())
    throw InputError(where, "body '" + d.name + "' has no positive mass or inertia");
  check_simulable_mass(scene, d, where, mass, moments, body_in_shape);
}

}  // namespace coulomb::detail
