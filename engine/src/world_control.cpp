// Driving the World from a program (coulomb/control.h): loads, kinematic bodies and actuators
// going in, joint states, actuator efforts and contact records coming out.
//
// Actuators are constraint rows of the joints they drive (DESIGN.md "Inputs from outside the
// scene"), so that every solver handles them as it handles the joints:
//   - an effort actuator is an applied generalised force tau on its joint's coordinate, the
//     wrenches J_a^T tau and J_b^T tau on the two bodies, added to the step's loads;
//   - a velocity motor and a position servo are the joint's drive row (constraints.h)
//     coordinate - target = 0 with a compliance, bounded by max_effort. The implicit
//     spring-damper f = -k (C + h C') - c C' at the step's end (C = coordinate - command, C' its
//     rate after the step) is, with the row's impulse lambda = f h,
//         C' + k C / (k h + c) + lambda / (h (k h + c)) = 0,
//     which is the drive row (velocity level: C' + C_row / h + compliance lambda / h^2 = 0) with
//         target = command + c / (k h + c) (coordinate - command),   compliance = h / (k h + c),
//     both at the configuration where the rows are evaluated. k = infinity is a rigid servo;
//     a velocity motor is the rigid row with target = coordinate + h v, and with a damping c the
//     same target with compliance h / c (f = -c (C' - v)). Large gains stay stable at any step
//     (Catto, "Soft constraints", GDC 2011; MuJoCo's position actuator).
//   - a gear g (MuJoCo's joint transmission, actuator length g q) turns the actuator's units
//     into the joint's: a position command x targets q = x / g, a velocity command v q' = v / g,
//     stiffness k and damping c act as k g^2 and c g^2, an actuator force F as g F on the joint
//     (so max_effort bounds the joint's force by |g| max_effort), and the effort reported is F.
//   - max_velocity: a velocity command is clamped to it; an effort actuator's force and a servo's
//     row bound lose the side that pushes the joint further while |l'| >= max_velocity in that
//     direction, with l' = g q' at the step's start.
// A joint's damping c and armature a are one more row of the same form (constraints.h): the
// implicit force f = -c q'_new - a (q'_new - q'_old) / h is, with lambda = f h,
//     q'_new - a q'_old / (a + c h) + lambda / (a + c h) = 0,
// the row with target = coordinate + h a q'_old / (a + c h) and compliance h^2 / (a + c h) (the
// servo's formula above with k = 0 is this with a = 0). Its dry friction is the rigid row
// q'_new = 0 (target = coordinate) with the force bound +-friction.
#include "step_context.h"

#include <coulomb/error.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace coulomb {

namespace {

void check_finite(const Vec3& v, const char* call, const char* arg) {
  if (!v.allFinite())
    throw std::invalid_argument(std::string("World::") + call + ": " + arg + " has a NaN or infinite component");
}

// a piecewise-linear schedule at time t, held before the first point and after the last
double schedule_value(const std::vector<std::pair<double, double>>& s, double t) {
  if (t <= s.front().first) return s.front().second;
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (t < s[i + 1].first) return s[i].second + (t - s[i].first) / (s[i + 1].first - s[i].first) * (s[i + 1].second - s[i].second);
  return s.back().second;
}

Vec6 velocity_of(const RigidState& s, int body) {
  Vec6 u = Vec6::Zero();
  if (body >= 0) u << s.v[std::size_t(body)], s.w[std::size_t(body)];
  return u;
}

Quat orientation_of(const RigidState& s, int body) { return body >= 0 ? s.q[std::size_t(body)] : Quat::Identity(); }

// a command clamped into ctrl_range, and a velocity command to +-max_velocity (actuator units)
double clamp_command(const ActuatorDef& a, double value) {
  value = std::clamp(value, a.ctrl_lo, a.ctrl_hi);
  if (a.type == ActuatorType::Velocity) value = std::clamp(value, -a.max_velocity, a.max_velocity);
  return value;
}

// the coordinate's rate q' from the bodies' velocities
double coordinate_rate(const RigidState& s, const JointCoordinate& q, const JointConstraint& j) {
  return q.J_a.dot(velocity_of(s, j.a)) + q.J_b.dot(velocity_of(s, j.b));
}

// +1 (-1) when the actuator may not push its joint's coordinate up (down): its length's rate
// g q' has reached max_velocity that way; 0 otherwise
int speed_limited(const ActuatorDef& a, double rate) {
  if (!(a.max_velocity < kInfinity)) return 0;
  const double l = a.gear * rate;  // the actuator's length rate
  if (l >= a.max_velocity) return a.gear > 0.0 ? 1 : -1;
  if (l <= -a.max_velocity) return a.gear > 0.0 ? -1 : 1;
  return 0;
}

}  // namespace

Configuration rigid_configuration(const RigidState& s) {
  Configuration c;
  c.x = s.x.data();
  c.q = s.q.data();
  c.num_rigid = int(s.x.size());
  return c;
}

void World::init_control() {
  const std::size_t nb = std::size_t(model_.rigid.size()), na = scene_.actuators.size(), ns = soft_.size();
  control_ = Control{};
  control_.wrench.assign(nb, Vec6::Zero());
  control_.step_wrench.assign(nb, Vec6::Zero());
  control_.vertex_force.assign(ns, {});
  control_.vertex_step_force.assign(ns, {});
  control_.commanded.assign(na, 0);
  for (const ActuatorDef& a : scene_.actuators) control_.command.push_back(clamp_command(a, a.command));
  buf_.load.assign(nb, Vec6::Zero());
  buf_.vertex_load.assign(ns, {});
  actuator_effort_.assign(na, 0.0);
  joint_drive_.assign(model_.joints.size(), -1);
  for (std::size_t a = 0; a < na; ++a) {
    const ActuatorDef& d = scene_.actuators[a];
    if (d.type == ActuatorType::Effort) continue;
    joint_drive_[std::size_t(d.joint)] = int(a);
    JointConstraint& j = model_.joints[std::size_t(d.joint)];
    j.driven = true;
    j.drive_hi = std::abs(d.gear) * d.max_effort;
    j.drive_lo = -j.drive_hi;
  }
  observe_joints(false);
}

// ---- loads ----

Vec6& World::body_load(int body, LoadDuration d, const char* call) {
  check_id("body", "body", body, model_.rigid.size(), call);
  const auto k = std::size_t(body);
  if (model_.rigid.fixed[k])
    throw std::invalid_argument(std::string("World::") + call + ": body '" + model_.rigid.name[k] + "' is " +
                                (model_.rigid.kinematic[k] ? "kinematic (set its velocity instead)" : "fixed") +
                                ": no load can move it");
  wake(body);  // a sleeping body is held: a load must wake its island to act
  return d == LoadDuration::Persistent ? control_.wrench[k] : control_.step_wrench[k];
}

void World::apply_force(int body, const Vec3& force, LoadDuration d) {
  check_finite(force, "apply_force", "force");
  body_load(body, d, "apply_force").head<3>() += force;
}

void World::apply_force(int body, const Vec3& force, const Vec3& point, LoadDuration d) {
  check_finite(force, "apply_force", "force");
  check_finite(point, "apply_force", "point");
  Vec6& w = body_load(body, d, "apply_force");
  w.head<3>() += force;
  w.tail<3>() += (point - state_.x[std::size_t(body)]).cross(force);
}

void World::apply_torque(int body, const Vec3& torque, LoadDuration d) {
  check_finite(torque, "apply_torque", "torque");
  body_load(body, d, "apply_torque").tail<3>() += torque;
}

void World::apply_impulse(int body, const Vec3& impulse, const Vec3& point) {
  check_finite(impulse, "apply_impulse", "impulse");
  check_finite(point, "apply_impulse", "point");
  Vec6& w = body_load(body, LoadDuration::NextStep, "apply_impulse");
  const Vec3 f = impulse / scene_.dt;
  w.head<3>() += f;
  w.tail<3>() += (point - state_.x[std::size_t(body)]).cross(f);
}

void World::set_wrench(int body, const Vec3& force, const Vec3& torque) {
  check_finite(force, "set_wrench", "force");
  check_finite(torque, "set_wrench", "torque");
  body_load(body, LoadDuration::Persistent, "set_wrench") << force, torque;
}

void World::apply_vertex_force(int soft, int vertex, const Vec3& force, LoadDuration d) {
  check_finite(force, "apply_vertex_force", "force");
  check_id("soft_body", "soft body", soft, soft_body_count(), "apply_vertex_force");
  const SoftBody& b = soft_[std::size_t(soft)];
  if (vertex < 0 || vertex >= b.vertex_count())
    throw std::out_of_range("World::apply_vertex_force: vertex " + std::to_string(vertex) + " of soft body '" + b.name +
                            "' is out of range (valid: 0.." + std::to_string(b.vertex_count() - 1) + ")");
  if (!(b.inv_mass[std::size_t(vertex)] > 0.0))
    throw std::invalid_argument("World::apply_vertex_force: vertex " + std::to_string(vertex) + " of soft body '" + b.name +
                                "' is pinned: no load can move it");
  std::vector<Vec3>& f = (d == LoadDuration::Persistent ? control_.vertex_force : control_.vertex_step_force)[std::size_t(soft)];
  if (f.empty()) f.assign(std::size_t(b.vertex_count()), Vec3::Zero());
  f[std::size_t(vertex)] += force;
}

void World::apply_vertex_impulse(int soft, int vertex, const Vec3& impulse) {
  check_finite(impulse, "apply_vertex_impulse", "impulse");
  apply_vertex_force(soft, vertex, impulse / scene_.dt, LoadDuration::NextStep);
}

void World::clear_loads() {
  std::fill(control_.wrench.begin(), control_.wrench.end(), Vec6::Zero());
  std::fill(control_.step_wrench.begin(), control_.step_wrench.end(), Vec6::Zero());
  for (auto& f : control_.vertex_force) f.clear();
  for (auto& f : control_.vertex_step_force) f.clear();
}

// ---- kinematic bodies ----

bool World::kinematic(int body) const {
  check_id("body", "body", body, model_.rigid.size(), "kinematic");
  return model_.rigid.kinematic[std::size_t(body)] != 0;
}

namespace {
void require_kinematic(const RigidModel& m, int body, const char* call) {
  if (!m.kinematic[std::size_t(body)])
    throw std::invalid_argument(std::string("World::") + call + ": body '" + m.name[std::size_t(body)] +
                                "' is not kinematic (give it \"kinematic\": true in the scene)");
}
}  // namespace

void World::set_kinematic_velocity(int body, const Vec3& velocity, const Vec3& angular_velocity) {
  check_id("body", "body", body, model_.rigid.size(), "set_kinematic_velocity");
  require_kinematic(model_.rigid, body, "set_kinematic_velocity");
  check_finite(velocity, "set_kinematic_velocity", "velocity");
  check_finite(angular_velocity, "set_kinematic_velocity", "angular_velocity");
  const auto k = std::size_t(body);
  const Vec3 origin = shape_pose(model_.rigid, state_, body).p;
  state_.v[k] = velocity + angular_velocity.cross(state_.x[k] - origin);  // the centre of mass's
  state_.w[k] = angular_velocity;
}

namespace {
// the body frame's pose (centre of mass) of a kinematic body whose shape frame is at (p, q)
Pose kinematic_body_pose(const RigidModel& m, int body, const Vec3& p, const Quat& q, const char* call) {
  require_kinematic(m, body, call);
  check_finite(p, call, "position");
  if (!q.coeffs().allFinite() || !(q.norm() > 0.0))
    throw std::invalid_argument(std::string("World::") + call + ": orientation must be a finite, non-zero quaternion");
  const Pose& sib = m.shape_in_body[std::size_t(body)];
  const Quat qb = (q.normalized() * sib.q.conjugate()).normalized();
  return {p - qb * sib.p, qb};
}
}  // namespace

void World::set_kinematic_pose(int body, const Vec3& position, const Quat& orientation) {
  check_id("body", "body", body, model_.rigid.size(), "set_kinematic_pose");
  const Pose pose = kinematic_body_pose(model_.rigid, body, position, orientation, "set_kinematic_pose");
  state_.x[std::size_t(body)] = pose.p;
  state_.q[std::size_t(body)] = pose.q;
}

void World::move_kinematic(int body, const Vec3& position, const Quat& orientation) {
  check_id("body", "body", body, model_.rigid.size(), "move_kinematic");
  const Pose end = kinematic_body_pose(model_.rigid, body, position, orientation, "move_kinematic");
  const auto k = std::size_t(body);
  const Quat q_end = end.q;
  const Vec3 x_end = end.p;
  Quat turn = q_end * state_.q[k].conjugate();
  if (turn.w() < 0.0) turn.coeffs() = -turn.coeffs();
  const Eigen::AngleAxisd aa(turn);
  state_.v[k] = (x_end - state_.x[k]) / scene_.dt;
  state_.w[k] = aa.axis() * (aa.angle() / scene_.dt);
}

// ---- actuators ----

int World::find_actuator(const std::string& name) const {
  for (std::size_t a = 0; a < scene_.actuators.size(); ++a)
    if (scene_.actuators[a].name == name) return int(a);
  return -1;
}

const ActuatorDef& World::actuator(int id) const {
  check_id("actuator", "actuator", id, actuator_count());
  return scene_.actuators[std::size_t(id)];
}

void World::set_command(int id, double value) {
  check_id("actuator", "actuator", id, actuator_count(), "set_command");
  if (!std::isfinite(value))
    throw std::invalid_argument("World::set_command: the command of actuator '" + scene_.actuators[std::size_t(id)].name +
                                "' must be finite");
  control_.command[std::size_t(id)] = clamp_command(scene_.actuators[std::size_t(id)], value);
  control_.commanded[std::size_t(id)] = 1;
  const JointConstraint& j = model_.joints[std::size_t(scene_.actuators[std::size_t(id)].joint)];
  for (const int body : {j.a, j.b})  // a command must wake the joint's island to act
    if (body >= 0 && !model_.rigid.fixed[std::size_t(body)]) wake(body);
}

double World::command(int id) const {
  check_id("actuator", "actuator", id, actuator_count(), "command");
  return control_.command[std::size_t(id)];
}

int World::find_joint(const std::string& name) const {
  for (std::size_t j = 0; j < scene_.joints.size(); ++j)
    if (scene_.joints[j].name == name) return int(j);
  return -1;
}

const JointState& World::joint_state(int id) const {
  check_id("joint", "joint", id, joint_count(), "joint_state");
  return joint_states_[std::size_t(id)];
}

// ---- the stages' side ----

void World::apply_commands() {
  const double t = double(step_ + 1) * scene_.dt;  // a schedule gives the target at the step's end
  for (std::size_t a = 0; a < scene_.actuators.size(); ++a) {
    const ActuatorDef& d = scene_.actuators[a];
    if (!control_.commanded[a] && !d.schedule.empty()) control_.command[a] = clamp_command(d, schedule_value(d.schedule, t));
  }
  for (std::size_t i = 0; i < buf_.load.size(); ++i) buf_.load[i] = control_.wrench[i] + control_.step_wrench[i];
  for (std::size_t s = 0; s < soft_.size(); ++s) {
    const std::vector<Vec3>&f = control_.vertex_force[s], &g = control_.vertex_step_force[s];
    std::vector<Vec3>& out = buf_.vertex_load[s];
    out.clear();
    if (f.empty() && g.empty()) continue;
    out.assign(std::size_t(soft_[s].vertex_count()), Vec3::Zero());
    for (std::size_t v = 0; v < out.size(); ++v) out[v] = (f.empty() ? Vec3::Zero() : f[v]) + (g.empty() ? Vec3::Zero() : g[v]);
  }
  // effort actuators: J^T tau on both bodies, at the step's starting configuration
  const Configuration c = rigid_configuration(state_);
  for (std::size_t a = 0; a < scene_.actuators.size(); ++a) {
    const ActuatorDef& d = scene_.actuators[a];
    if (d.type != ActuatorType::Effort) continue;
    double force = std::clamp(control_.command[a], -d.max_effort, d.max_effort);  // actuator units
    const JointConstraint& j = model_.joints[std::size_t(d.joint)];
    const JointCoordinate q = joint_coordinate(c, j);
    const double tau = d.gear * force;  // on the joint
    const int limited = speed_limited(d, coordinate_rate(state_, q, j));
    if (limited * tau > 0.0) force = 0.0;
    actuator_effort_[a] = force;
    if (force == 0.0) continue;
    if (j.a >= 0) buf_.load[std::size_t(j.a)] += q.J_a * (d.gear * force);
    if (j.b >= 0) buf_.load[std::size_t(j.b)] += q.J_b * (d.gear * force);
  }
}

void World::actuate_drives() {
  const Configuration c = rigid_configuration(state_);
  const double h = scene_.dt;
  for (std::size_t j = 0; j < model_.joints.size(); ++j) {
    JointConstraint& jc = model_.joints[j];
    const int a = joint_drive_[j];
    if (a < 0 && !jc.damped() && !(jc.friction > 0.0)) continue;
    const JointCoordinate q = joint_coordinate(c, jc);
    const double coordinate = q.value;
    if (jc.damped()) {  // f = -c q'_new - a (q'_new - q'_old) / h (file comment)
      const double s = jc.armature + jc.damping * h;
      jc.damping_target = coordinate + h * jc.armature * coordinate_rate(state_, q, jc) / s;
      jc.damping_compliance = h * h / s;
    }
    jc.friction_target = coordinate;  // q'_new = 0
    if (a < 0) continue;
    const ActuatorDef& d = scene_.actuators[std::size_t(a)];
    const double g = d.gear, command = control_.command[std::size_t(a)] / g;  // in the joint's units
    if (d.type == ActuatorType::Velocity) {
      jc.drive_target = coordinate + h * command;
      jc.drive_compliance = d.damping > 0.0 ? h / (d.damping * g * g) : 0.0;
    } else if (std::isinf(d.stiffness)) {
      jc.drive_target = command;
      jc.drive_compliance = 0.0;
    } else {
      const double k = d.stiffness * g * g, damping = d.damping * g * g;
      const double s = k * h + damping;
      jc.drive_target = command + damping / s * (coordinate - command);
      jc.drive_compliance = h / s;
    }
    if (d.type != ActuatorType::Velocity && d.max_velocity < kInfinity) {
      const int limited = speed_limited(d, coordinate_rate(state_, q, jc));
      jc.drive_hi = limited > 0 ? 0.0 : std::abs(g) * d.max_effort;
      jc.drive_lo = limited < 0 ? 0.0 : -std::abs(g) * d.max_effort;
    }
  }
}

void World::observe_joints(bool reactions) {
  const Configuration c = rigid_configuration(state_);
  const double h = scene_.dt;
  joint_states_.resize(model_.joints.size());
  BlockRows rows;
  for (std::size_t k = 0; k < model_.joints.size(); ++k) {
    JointConstraint& j = model_.joints[k];
    JointState& js = joint_states_[k];
    const Vec6 ua = velocity_of(state_, j.a), ub = velocity_of(state_, j.b);
    js = JointState{};
    if (j.type == JointType::Hinge || j.type == JointType::Prismatic) {
      const JointCoordinate q = joint_coordinate(c, j);
      js.position = q.value;
      js.velocity = q.J_a.dot(ua) + q.J_b.dot(ub);
      if (j.type == JointType::Hinge) j.angle_ref = q.value;  // the next step unwraps against it
    }
    js.rotation = (orientation_of(state_, j.b).conjugate() * orientation_of(state_, j.a) * j.rel).normalized();
    js.angular_velocity = ua.tail<3>() - ub.tail<3>();
    if (!reactions) continue;
    // the impulse of the joint's rows on body a, without its coordinate rows (drive, damping,
    // friction: the last ones)
    const int drive = joint_drive_[k];
    Vec6 impulse = Vec6::Zero();
    double drive_impulse = 0.0;
    if (solver_->kind == ProblemKind::Velocity) {
      const JointRows& J = buf_.problem.joints;
      if (J.count() != joint_count() || buf_.solution.joint_lambda.size() != std::size_t(J.rows())) continue;
      const int r0 = J.row_start[k], n = J.rows_of(int(k)) - j.coordinate_rows();
      for (int r = r0; r < r0 + n; ++r) impulse += J.J_a[std::size_t(r)] * buf_.solution.joint_lambda[std::size_t(r)];
      if (drive >= 0) drive_impulse = buf_.solution.joint_lambda[std::size_t(r0 + n)];
    } else {
      if (buf_.pproblem.joint_impulse.size() != model_.joints.size()) continue;
      const JointImpulse& P = buf_.pproblem.joint_impulse[k];
      joint_rows(c, j, rows);
      const int n = rows.rows - j.coordinate_rows();
      for (int d = 0; d < rows.dofs; ++d) {
        if (rows.dof[std::size_t(d)] != j.a) continue;
        for (int r = 0; r < n; ++r) impulse += rows.J.block<1, 6>(r, 6 * d).transpose() * P[r];
      }
      if (drive >= 0) drive_impulse = P[n];
    }
    js.force = impulse.head<3>() / h;
    const Vec3 torque_com = impulse.tail<3>() / h;
    const Vec3 anchor = state_.x[std::size_t(j.a)] + state_.q[std::size_t(j.a)] * j.anchor_a;
    js.torque = torque_com + (state_.x[std::size_t(j.a)] - anchor).cross(js.force);  // about the anchor
    if (drive >= 0) actuator_effort_[std::size_t(drive)] = drive_impulse / h / scene_.actuators[std::size_t(drive)].gear;
  }
}

void World::observe() {
  observe_joints(true);
  std::fill(control_.step_wrench.begin(), control_.step_wrench.end(), Vec6::Zero());
  for (auto& f : control_.vertex_step_force) f.clear();
  records_valid_ = false;
}

const std::vector<ContactRecord>& World::contact_records() const {
  if (records_valid_) return contact_records_;
  contact_records_.clear();
  const bool velocity = solver_->kind == ProblemKind::Velocity;
  for (std::size_t k = 0; k < buf_.contacts.size(); ++k) {
    const Contact& c = buf_.contacts[k];
    ContactRecord r;
    r.body_a = c.body_a;
    r.body_b = c.body_b;
    r.point = c.point;
    r.normal = c.normal;
    r.separation = -c.depth;
    Vec3 t, s;
    if (velocity && k < buf_.solution.lambda.size()) {
      contact_frame(buf_, k, t, s);
      const Vec4& l = buf_.solution.lambda[k];
      r.normal_impulse = l[0];
      r.friction_impulse = l[1] * t + l[2] * s;
    } else if (!velocity && k < buf_.pproblem.contact_impulse.size()) {
      tangent_basis(c.normal, t, s);
      const Vec3& l = buf_.pproblem.contact_impulse[k];
      r.normal_impulse = l[0];
      r.friction_impulse = l[1] * t + l[2] * s;
    }
    contact_records_.push_back(r);
  }
  for (std::size_t k = 0; k < buf_.soft_contacts.size(); ++k) {
    const SoftContact& c = buf_.soft_contacts[k];
    ContactRecord r;
    r.body_a = c.a.rigid;
    r.body_b = c.b.rigid;
    r.soft_a = c.a.soft;
    r.soft_b = c.b.soft;
    if (c.a.soft >= 0) r.vertices_a = c.a.vertex;
    if (c.b.soft >= 0) r.vertices_b = c.b.vertex;
    r.point = 0.5 * (c.a.point + c.b.point);
    r.normal = c.normal;
    r.separation = -c.depth;
    const std::size_t i = buf_.contacts.size() + k;
    if (i < buf_.pproblem.contact_impulse.size()) {
      Vec3 t, s;
      tangent_basis(c.normal, t, s);
      const Vec3& l = buf_.pproblem.contact_impulse[i];
      r.normal_impulse = l[0];
      r.friction_impulse = l[1] * t + l[2] * s;
    }
    contact_records_.push_back(r);
  }
  records_valid_ = true;
  return contact_records_;
}

// ---- State ----

void World::check_control(const Control& c) const {
  const std::size_t nb = std::size_t(model_.rigid.size()), na = scene_.actuators.size(), ns = soft_.size();
  if (c.empty()) return;  // the defaults (a State written before control existed)
  const auto size = [](const char* what, std::size_t got, std::size_t expected) {
    if (got != expected)
      throw InputError("State", std::string("control.") + what + " has " + std::to_string(got) + " entries, this world has " +
                                    std::to_string(expected) + " (a State from another world?)");
  };
  size("wrench", c.wrench.size(), nb);
  size("step_wrench", c.step_wrench.size(), nb);
  size("vertex_force", c.vertex_force.size(), ns);
  size("vertex_step_force", c.vertex_step_force.size(), ns);
  size("command", c.command.size(), na);
  size("commanded", c.commanded.size(), na);
  for (std::size_t s = 0; s < ns; ++s) {
    const std::size_t nv = std::size_t(soft_[s].vertex_count());
    if (!c.vertex_force[s].empty()) size("vertex_force[i]", c.vertex_force[s].size(), nv);
    if (!c.vertex_step_force[s].empty()) size("vertex_step_force[i]", c.vertex_step_force[s].size(), nv);
  }
  const auto finite = [](const auto& v) { return std::all_of(v.begin(), v.end(), [](const auto& x) { return x.allFinite(); }); };
  bool ok = finite(c.wrench) && finite(c.step_wrench);
  for (std::size_t s = 0; s < ns; ++s) ok = ok && finite(c.vertex_force[s]) && finite(c.vertex_step_force[s]);
  for (double x : c.command) ok = ok && std::isfinite(x);
  if (!ok) throw InputError("State", "control holds a NaN or infinite load or command");
}

}  // namespace coulomb
