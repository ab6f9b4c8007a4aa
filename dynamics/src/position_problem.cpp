// Evaluation helpers of the PositionProblem (position_problem.h): the data that stage 3
// assembles and the position-level solvers (solvers/src/xpbd.cpp) consume.
#include <coulomb/position_problem.h>

namespace coulomb {

void PositionProblem::size_impulses() {
  contact_impulse.resize(contacts.size(), Vec3::Zero());
  element_impulse.resize(elements.size(), Eigen::Matrix<double, 6, 1>::Zero());
  attachment_impulse.resize(attachments.size(), Vec3::Zero());
  joint_impulse.resize(joints.size(), JointImpulse::Zero());
}

std::vector<double> PositionProblem::row_impulses() const {
  std::vector<double> r;
  r.reserve(joints.size() * kMaxBlockRows + 6 * elements.size() + 3 * attachments.size());
  for (std::size_t i = 0; i < joints.size(); ++i)
    for (int j = 0; j < kMaxBlockRows; ++j) r.push_back(i < joint_impulse.size() ? joint_impulse[i][j] : 0.0);
  for (std::size_t i = 0; i < elements.size(); ++i)
    for (int j = 0; j < 6; ++j) r.push_back(i < element_impulse.size() ? element_impulse[i][j] : 0.0);
  for (std::size_t i = 0; i < attachments.size(); ++i)
    for (int j = 0; j < 3; ++j) r.push_back(i < attachment_impulse.size() ? attachment_impulse[i][j] : 0.0);
  return r;
}

bool PositionProblem::set_row_impulses(const std::vector<double>& r) {
  if (r.size() != joints.size() * kMaxBlockRows + 6 * elements.size() + 3 * attachments.size()) return false;
  size_impulses();
  std::size_t k = 0;
  for (std::size_t i = 0; i < joints.size(); ++i)
    for (int j = 0; j < kMaxBlockRows; ++j) joint_impulse[i][j] = r[k++];
  for (std::size_t i = 0; i < elements.size(); ++i)
    for (int j = 0; j < 6; ++j) element_impulse[i][j] = r[k++];
  for (std::size_t i = 0; i < attachments.size(); ++i)
    for (int j = 0; j < 3; ++j) attachment_impulse[i][j] = r[k++];
  return true;
}

Configuration PositionProblem::configuration() const {
  Configuration c;
  c.x = x.data();
  c.q = q.data();
  c.w = w.data();
  c.h = dt;
  c.num_rigid = num_rigid();
  c.px = px.data();
  c.num_particles = num_particles();
  return c;
}

double contact_gap(const PositionProblem& p, const PbdContact& c) {
  const Configuration cfg = p.configuration();
  return c.normal.dot(side_position(cfg, c.b) - side_position(cfg, c.a)) - c.offset;
}

}  // namespace coulomb
