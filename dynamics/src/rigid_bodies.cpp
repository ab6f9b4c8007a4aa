#include <coulomb/rigid_bodies.h>

namespace coulomb {

int RigidModel::add(const std::string& body_name, int shape_id, int material_id, bool is_fixed, double m,
                    const Vec3& principal_moments, const Pose& shape_in_body_frame) {
  name.push_back(body_name);
  shape.push_back(shape_id);
  material.push_back(material_id);
  fixed.push_back(is_fixed ? 1 : 0);
  kinematic.push_back(0);
  mass.push_back(is_fixed ? 0.0 : m);
  inv_mass.push_back(is_fixed ? 0.0 : 1.0 / m);
  inertia.push_back(is_fixed ? Vec3::Zero() : principal_moments);
  inv_inertia.push_back(is_fixed ? Vec3::Zero() : Vec3(principal_moments.cwiseInverse()));
  shape_in_body.push_back(shape_in_body_frame);
  return size() - 1;
}

void RigidState::resize(int nb) {
  x.assign(std::size_t(nb), Vec3::Zero());
  q.assign(std::size_t(nb), Quat::Identity());
  v.assign(std::size_t(nb), Vec3::Zero());
  w.assign(std::size_t(nb), Vec3::Zero());
}

Mat3 world_inv_inertia(const RigidModel& m, const RigidState& s, int i) {
  const Mat3 R = s.q[std::size_t(i)].toRotationMatrix();
  return R * m.inv_inertia[std::size_t(i)].asDiagonal() * R.transpose();
}

Mat3 world_inertia(const RigidModel& m, const RigidState& s, int i) {
  const Mat3 R = s.q[std::size_t(i)].toRotationMatrix();
  return R * m.inertia[std::size_t(i)].asDiagonal() * R.transpose();
}

double kinetic_energy(const RigidModel& m, const RigidState& s) {
  double e = 0.0;
  for (int i = 0; i < m.size(); ++i) {
    const auto k = std::size_t(i);
    if (m.fixed[k]) continue;
    const Vec3 wb = s.q[k].conjugate() * s.w[k];  // body-frame angular velocity
    e += 0.5 * m.mass[k] * s.v[k].squaredNorm() + 0.5 * wb.dot(m.inertia[k].cwiseProduct(wb));
  }
  return e;
}

double potential_energy(const RigidModel& m, const RigidState& s, const Vec3& gravity) {
  double e = 0.0;
  for (int i = 0; i < m.size(); ++i)
    if (!m.fixed[std::size_t(i)]) e -= m.mass[std::size_t(i)] * gravity.dot(s.x[std::size_t(i)]);
  return e;
}

}  // namespace coulomb
