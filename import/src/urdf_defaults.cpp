// URDF defaults and the repair of links' mass properties: see urdf_defaults.h.
#include "urdf_defaults.h"

#include <coulomb/mesh_io.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <sstream>

namespace coulomb::import_detail {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

std::string show(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

Inertial default_inertial(double mass) {
  Inertial in;
  in.mass = mass;
  in.inertia = sphere_inertia(mass, kDefaultLinkRadius);
  return in;
}

}  // namespace

nlohmann::json urdf_solver(const std::optional<std::string>& type) { return {{"type", type.value_or("newton-pcr")}}; }

std::optional<Inertial> link_inertial(const urdf::Link& link, const BodySpec& body, int inertial_line,
                                      Diagnostics& diag) {
  const int line = inertial_line ? inertial_line : body.line;
  const std::string what = "link '" + link.name + "' inertial";
  const bool has_geometry = !body.geoms.empty();
  const urdf::Inertial* u = link.inertial.get();
  const double mass = u ? u->mass : 0.0;
  if (!(mass > 0.0) || !std::isfinite(mass)) {
    const std::string why = u ? "mass " + show(mass) : "no <inertial>";
    if (body.fixed) return default_inertial(kDefaultLinkMass);
    if (has_geometry) {
      diag.warn(line, what, why + ": mass and inertia are taken from the collision geometry at 1000 kg/m^3");
      return std::nullopt;
    }
    diag.warn(line, what,
              why + " and no collision geometry: a default of " + show(kDefaultLinkMass) + " kg with the inertia of a " +
                  show(kDefaultLinkRadius) + " m sphere");
    return default_inertial(kDefaultLinkMass);
  }
  Mat3 local;
  local << u->ixx, u->ixy, u->ixz, u->ixy, u->iyy, u->iyz, u->ixz, u->iyz, u->izz;
  const Quat q(u->origin.rotation.w, u->origin.rotation.x, u->origin.rotation.y, u->origin.rotation.z);
  const Mat3 r = q.norm() > 0.0 ? q.normalized().toRotationMatrix() : Mat3::Identity();
  Inertial in;
  in.mass = mass;
  in.com = {u->origin.position.x, u->origin.position.y, u->origin.position.z};
  in.inertia = r * local * r.transpose();
  if (!in.com.allFinite() || !in.inertia.allFinite()) diag.fail(line, what, "not finite");
  if (body.fixed) return in;

  // principal moments: none may be <= 0, or below 1e-6 of the largest (a stiff, ill-posed body)
  Eigen::SelfAdjointEigenSolver<Mat3> eig(in.inertia);
  const Vec3 moments = eig.eigenvalues();
  const double largest = moments.maxCoeff();
  if (!(largest > 0.0)) {
    diag.warn(line, what, "the inertia tensor has no positive principal moment: replaced by that of a " +
                              show(kDefaultLinkRadius) + " m sphere of mass " + show(mass) + " kg");
    in.inertia = sphere_inertia(mass, kDefaultLinkRadius);
    return in;
  }
  const double floor = 1e-6 * largest;
  if (moments.minCoeff() < floor) {
    diag.warn(line, what, "principal moments (" + show(moments.x()) + ", " + show(moments.y()) + ", " +
                              show(moments.z()) + " kg m^2) below 1e-6 of the largest are raised to it");
    const Vec3 raised = moments.cwiseMax(floor);
    in.inertia = eig.eigenvectors() * raised.asDiagonal() * eig.eigenvectors().transpose();
  }
  if (balance_inertia(in.inertia))
    diag.warn(line, what,
              "the principal moments break the triangle inequality (no mass distribution has I_a + I_b < I_c): "
              "the smaller ones are raised (balanced inertia)");
  return in;
}

}  // namespace coulomb::import_detail
