// The step's health check (coulomb/health.h): energy gained without external work, inverted or
// collapsed elements, torn joints, bodies behind fixed planes or inside fixed solids. It runs
// after the state check, on the state the step produced.
#include "step_context.h"

#include <coulomb/constraints.h>
#include <coulomb/soft_body.h>
#include <coulomb/world.h>

#include "scene_reader.h"

#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace coulomb {

namespace {

std::string number(double x) { return detail::show(x, 4); }

double rest_radius(const SoftBody& b) {
  Vec3 c = Vec3::Zero();
  for (const Vec3& p : b.mesh.rest) c += p;
  c /= double(std::max<std::size_t>(1, b.mesh.rest.size()));
  double r = 0.0;
  for (const Vec3& p : b.mesh.rest) r = std::max(r, (p - c).norm());
  return r;
}

// How deep a point lies inside a fixed solid (positive inside), for the shapes whose inside is
// unambiguous: a plane's back side, a sphere, a box or convex hull (its face planes). Other
// shapes (capsules, cylinders, meshes, compounds) give -1.
double depth_inside(const Shape& s, const Pose& pose, const Vec3& world_point) {
  const Vec3 p = pose.apply_inverse(world_point);
  switch (s.type) {
    case ShapeType::Plane: return s.offset - s.normal.dot(p);
    case ShapeType::Sphere: return s.radius - p.norm();
    case ShapeType::Box:
    case ShapeType::Convex: {
      if (s.hull.face_normals.empty()) return -1.0;
      double d = std::numeric_limits<double>::infinity();
      for (std::size_t f = 0; f < s.hull.face_normals.size(); ++f)
        d = std::min(d, s.hull.face_offsets[f] - s.hull.face_normals[f].dot(p));
      return d;
    }
    default: return -1.0;
  }
}

}  // namespace

double World::total_energy() const {
  double e = kinetic_energy(model_.rigid, state_) + potential_energy(model_.rigid, state_, scene_.gravity);
  for (const SoftBody& b : soft_) e += soft_kinetic_energy(b) + soft_potential_energy(b, scene_.gravity) + soft_elastic_energy(b);
  return e;
}

bool World::external_work() const {
  if (!scene_.actuators.empty()) return true;  // a drive stores and returns energy the check does not count
  for (const Vec6& l : buf_.load)
    if (!l.isZero()) return true;
  for (const auto& loads : buf_.vertex_load)
    for (const Vec3& f : loads)
      if (!f.isZero()) return true;
  for (int i = 0; i < model_.rigid.size(); ++i) {
    const auto k = std::size_t(i);
    if (model_.rigid.kinematic[k] && (!state_.v[k].isZero() || !state_.w[k].isZero())) return true;
  }
  return false;
}

void World::health_scales() {
  if (health_scaled_) return;
  const double g = scene_.gravity.norm();
  gravity_scale_ = 0.0;
  for (int i = 0; i < model_.rigid.size(); ++i)
    if (!model_.rigid.fixed[std::size_t(i)]) gravity_scale_ += model_.rigid.mass[std::size_t(i)] * g * model_.bound_radius[std::size_t(i)];
  soft_radius_.clear();
  for (const SoftBody& b : soft_) {
    soft_radius_.push_back(rest_radius(b));
    double m = 0.0;
    for (double mi : b.mass) m += mi;
    gravity_scale_ += m * g * soft_radius_.back();
  }
  health_scaled_ = true;
}

// Before a step: the energy check's reference, where it has none (a new world, after set_state)
void World::reference_energy() {
  if (energy_ref_.set || settings_.health.action == HealthAction::Off) return;
  double lively = kinetic_energy(model_.rigid, state_);
  for (const SoftBody& b : soft_) lively += soft_kinetic_energy(b) + soft_elastic_energy(b);
  energy_ref_ = {true, total_energy(), lively};
}

namespace {

// The step's findings, each message led by the step, and the first body a finding names.
struct Findings {
  std::vector<HealthFinding>& out;
  std::string step;
  int first_body = -1;
  void add(const char* check, const std::string& subject, double value, double limit, std::string what) {
    out.push_back({check, subject, value, limit, step + what});
  }
  void body(int b) {
    if (first_body < 0) first_body = b;
  }
};

// elements: the smallest volume ratio of each soft body, and the largest rotation of a
// linear-model one (of F's polar factor R = U V^T: cos angle = (tr R - 1) / 2)
void check_elements(const std::vector<SoftBody>& soft, const HealthLimits& lim, Findings& f) {
  for (const SoftBody& b : soft) {
    double worst = std::numeric_limits<double>::infinity(), angle = 0.0;
    const bool linear = b.model == MaterialModel::Linear;
    for (std::size_t t = 0; t < b.mesh.tets.size(); ++t) {
      const auto& tet = b.mesh.tets[t];
      const Vec3 x0 = b.x[std::size_t(tet[0])];
      const double v = (b.x[std::size_t(tet[1])] - x0).cross(b.x[std::size_t(tet[2])] - x0).dot(b.x[std::size_t(tet[3])] - x0) / 6.0;
      worst = std::min(worst, v / b.rest_volume[t]);
      if (!linear) continue;
      Mat3 Ds;
      for (int c = 0; c < 3; ++c) Ds.col(c) = b.x[std::size_t(tet[std::size_t(c + 1)])] - x0;
      const Eigen::JacobiSVD<Mat3> svd(Ds * b.Dm_inv[t], Eigen::ComputeFullU | Eigen::ComputeFullV);
      const Mat3 R = svd.matrixU() * svd.matrixV().transpose();
      if (R.determinant() <= 0.0) continue;  // an inverted element: found above
      angle = std::max(angle, std::acos(std::clamp(0.5 * (R.trace() - 1.0), -1.0, 1.0)));
    }
    if (linear && angle > lim.linear_rotation)
      f.add("rotation", b.name, angle, lim.linear_rotation,
            "soft body '" + b.name + "' (linear model) has an element turned by " + number(angle) + " rad (the limit is " +
                number(lim.linear_rotation) + " rad): linear strain reads a finite rotation as strain, so the result is "
                "not valid; use the corotational or neo-hookean model");
    if (worst <= 0.0)
      f.add("inverted", b.name, worst, 0.0, "soft body '" + b.name + "' has an inverted tetrahedron (V/V0 = " + number(worst) + ")");
    else if (worst < lim.collapse_ratio)
      f.add("collapsed", b.name, worst, lim.collapse_ratio,
            "soft body '" + b.name + "' has a tetrahedron collapsed to V/V0 = " + number(worst) + " (the limit is " +
                number(lim.collapse_ratio) + ")");
  }
}

// joints torn apart
void check_joints(const SceneDef& scene, const WorldModel& m, const RigidState& state, const HealthLimits& lim,
                  Findings& f) {
  if (m.joints.empty()) return;
  const Configuration c = rigid_configuration(state);
  for (std::size_t j = 0; j < m.joints.size(); ++j) {
    const JointConstraint& jc = m.joints[j];
    const JointError e = joint_error(c, jc);
    double radius = 0.0;
    for (int body : {jc.a, jc.b})
      if (body >= 0) radius = std::max(radius, m.bound_radius[std::size_t(body)]);
    const double linear_limit = lim.joint_tear * radius;
    const std::string& name = scene.joints[j].name;
    if (jc.compliance == 0.0 && e.linear > linear_limit) {
      f.add("joint", name, e.linear, linear_limit,
            "joint '" + name + "' is torn: " + number(e.linear) + " m apart (the limit is " + number(linear_limit) + " m, " +
                number(lim.joint_tear) + " of its bodies' bounding radius)");
      f.body(std::max(jc.a, jc.b));
    } else if (jc.angular_compliance == 0.0 && e.angular > lim.joint_tear_angle) {
      f.add("joint", name, e.angular, lim.joint_tear_angle,
            "joint '" + name + "' is torn: " + number(e.angular) + " rad out of line (the limit is " +
                number(lim.joint_tear_angle) + " rad)");
      f.body(std::max(jc.a, jc.b));
    }
  }
}

// bodies inside fixed solids: the centre of mass (soft: the centroid) against each fixed plane,
// sphere, box and convex body. Fixed solids beyond kMaxSolidPairs pairs are checked for the
// planes only: the check stays a small part of the step.
void check_solids(const SceneDef& scene, const WorldModel& m, const RigidState& state, const std::vector<SoftBody>& soft,
                  const std::vector<double>& soft_radius, const HealthLimits& lim, Findings& f) {
  const RigidModel& rigid = m.rigid;
  std::vector<int> solids;
  std::size_t others = 0;
  for (int i = 0; i < rigid.size(); ++i) {
    const auto k = std::size_t(i);
    if (!rigid.fixed[k] || rigid.kinematic[k] || rigid.shape[k] < 0) continue;
    const ShapeType t = scene.shapes.shapes[std::size_t(rigid.shape[k])].type;
    if (t == ShapeType::Plane || t == ShapeType::Sphere || t == ShapeType::Box || t == ShapeType::Convex) {
      solids.push_back(i);
      others += t != ShapeType::Plane;
    }
  }
  if (solids.empty()) return;
  constexpr std::size_t kMaxSolidPairs = 1'000'000;
  const bool many = others * (std::size_t(rigid.size()) + soft.size()) > kMaxSolidPairs;
  // a rigid body that cannot collide with a solid (no shape, the collision filter, a pair of
  // collision.exclude) may lie inside it
  const auto may_touch = [&](int body, int solid) {
    if (body < 0) return true;
    const auto b = std::size_t(body), s = std::size_t(solid);
    if (rigid.shape[b] < 0) return false;
    if ((m.contype[b] & m.conaffinity[s]) == 0 && (m.contype[s] & m.conaffinity[b]) == 0) return false;
    const auto& excluded = scene.excluded_pairs;  // sorted by build_world_model
    return !std::binary_search(excluded.begin(), excluded.end(), std::pair(std::min(body, solid), std::max(body, solid)));
  };
  const auto inside = [&](const Vec3& point, double radius, const std::string& what, int body) {
    for (int s : solids) {
      if (!may_touch(body, s)) continue;
      const Shape& shape = scene.shapes.shapes[std::size_t(rigid.shape[std::size_t(s)])];
      if (many && shape.type != ShapeType::Plane) continue;
      const double d = depth_inside(shape, shape_pose(rigid, state, s), point);
      const double limit = lim.depth * radius;
      if (!(d > limit)) continue;
      const bool plane = shape.type == ShapeType::Plane;
      f.add(plane ? "below_plane" : "inside_shape", what, d, limit,
            what + (plane ? " is behind the fixed plane '" : " is inside the fixed body '") + rigid.name[std::size_t(s)] +
                "': its centre lies " + number(d) + " m deep (the limit is " + number(limit) + " m)");
      f.body(body);
      return;  // one finding per body
    }
  };
  for (int i = 0; i < rigid.size(); ++i)
    if (!rigid.fixed[std::size_t(i)])
      inside(state.x[std::size_t(i)], m.bound_radius[std::size_t(i)], "body '" + rigid.name[std::size_t(i)] + "'", i);
  for (std::size_t k = 0; k < soft.size(); ++k) inside(soft_centroid(soft[k]), soft_radius[k], "soft body '" + soft[k].name + "'", -1);
}

}  // namespace

StepResult World::check_health() {
  const HealthLimits& lim = settings_.health;
  std::vector<HealthFinding>& out = stats_.health;
  out.clear();
  if (lim.action == HealthAction::Off) return {};
  Findings f{out, "step " + std::to_string(step_) + ": "};
  health_scales();

  // energy gained over the passive steps since the reference (coulomb/health.h)
  const double energy = stats_.kinetic_energy + stats_.potential_energy + stats_.elastic_energy;
  const double lively = stats_.kinetic_energy + stats_.elastic_energy;
  if (external_work()) {
    energy_ref_ = {true, energy, lively};
  } else if (energy_ref_.set) {
    energy_ref_.peak = std::max(energy_ref_.peak, lively);
    const double gain = energy - energy_ref_.energy;
    const double limit = lim.energy_gain * (energy_ref_.peak + gravity_scale_) + 1e-9;
    if (gain > limit) {
      f.add("energy", "", gain, limit,
            "the energy rose by " + number(gain) + " J without external work, from " + number(energy_ref_.energy) +
                " J to " + number(energy) + " J (the limit is " + number(limit) + " J, " + number(lim.energy_gain) +
                " of the energy scale)");
      energy_ref_ = {true, energy, lively};  // the next finding is a new gain
    }
  }
  check_elements(soft_, lim, f);
  check_joints(scene_, model_, state_, lim, f);
  check_solids(scene_, model_, state_, soft_, soft_radius_, lim, f);

  if (out.empty()) return {};
  stats_.solver.converged = false;
  if (lim.action != HealthAction::Stop) return {};
  std::string message = out.front().message;
  if (out.size() > 1) message += " (and " + std::to_string(out.size() - 1) + " more finding" + (out.size() > 2 ? "s" : "") + ")";
  return {StepResult::Status::InvalidState, f.first_body, message};
}

StepResult World::check_step() {
  if (StepResult r = check_state(); !r.ok()) return r;
  return check_health();
}

}  // namespace coulomb
