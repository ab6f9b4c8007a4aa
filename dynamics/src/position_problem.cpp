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
