// Driving a World from a program (engine/control.h), against closed forms, in every solver that
// simulates joints: contact and joint reactions against m g, applied loads against F = m a and
// tau = I alpha, a velocity motor that lifts or stalls, a position servo's settling time against
// the damped oscillator, and a hinge driven over many turns.
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <numbers>

using namespace coulomb;

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace control_test {
using Json = nlohmann::json;

namespace {

constexpr double g = 9.81;
const std::vector<std::string> kSolvers = {"pgs", "prox-gs", "prox-jacobi", "xpbd-jacobi", "newton-pcr", "cr-mlcp"};

Json scene(const std::string& solver, double dt, int steps, Json shapes, Json bodies, Json joints = Json::array(),
           Json actuators = Json::array(), double gravity = g) {
  Json j = {{"format", "coulomb-scene/1"},
            {"gravity", {0, 0, -gravity}},
            {"time", {{"dt", dt}, {"steps", steps}}},
            {"integrator", "semi-implicit"},
            {"solver", {{"type", solver}, {"max_iterations", 200}, {"abs_tol", 1e-12}, {"rel_tol", 1e-12}}},
            {"materials", {{"default", {{"density", 1000}, {"friction", 0.5}}}}},
            {"shapes", shapes},
            {"bodies", bodies},
            {"joints", joints},
            {"actuators", actuators}};
  return j;
}

World make(const Json& j) { return World(parse_scene(j, ".")); }

void run(World& w, int steps) {
  for (int i = 0; i < steps; ++i) {
    const StepResult r = w.step();
    ASSERT_TRUE(r.ok()) << r.message;
  }
}

}  // namespace

class ControlSolver : public ::testing::TestWithParam<std::string> {};
INSTANTIATE_TEST_SUITE_P(Solvers, ControlSolver, ::testing::ValuesIn(kSolvers));

// Validation 1: the step's contact normal impulses over dt carry the box's weight.
TEST_P(ControlSolver, RestingBoxContactImpulsesSumToItsWeight) {
  const double m = 2.0;
  Json shapes = {{"box", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}},
                 {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  Json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}},
                 {{"name", "box"}, {"shape", "box"}, {"mass", m}, {"position", {0, 0, 0.1}}}};
  World w = make(scene(GetParam(), 0.005, 200, shapes, bodies));
  run(w, 200);
  double sum = 0.0;
  for (const ContactRecord& c : w.contact_records()) {
    const double sign = c.body_b == w.find_body("box") ? 1.0 : -1.0;  // the impulse on the box, upwards
    sum += sign * c.normal_impulse * c.normal.z();
  }
  EXPECT_FALSE(w.contact_records().empty());
  EXPECT_NEAR(sum / w.dt(), m * g, 0.005 * m * g) << GetParam();
}

// Validation 2: a ball joint carries a hanging mass at rest with a reaction of m g.
TEST_P(ControlSolver, HangingMassBallJointReactionIsItsWeight) {
  const double m = 3.0;
  Json shapes = {{"bob", {{"type", "sphere"}, {"radius", 0.05}}}};
  Json bodies = {{{"name", "bob"}, {"shape", "bob"}, {"mass", m}, {"position", {0, 0, 1}}}};
  Json joints = {{{"name", "string"}, {"type", "ball"}, {"a", "bob"}, {"b", nullptr}, {"anchor", {0, 0, 2}}}};
  World w = make(scene(GetParam(), 0.005, 100, shapes, bodies, joints));
  run(w, 100);
  const JointState& j = w.joint_state(0);
  EXPECT_NEAR(j.force.z(), m * g, 1e-3 * m * g) << GetParam();
  EXPECT_NEAR(j.force.x(), 0.0, 1e-3 * m * g);
  EXPECT_NEAR(j.force.y(), 0.0, 1e-3 * m * g);
}

// Validation 3: a constant force on a free body on frictionless ground gives a = F / m; a torque
// on a free body (no gravity) gives I^-1 tau.
TEST_P(ControlSolver, ForceAndTorqueGiveNewtonsAccelerations) {
  const double m = 2.0, F = 3.0, dt = 0.005;
  Json shapes = {{"box", {{"type", "box"}, {"half_extents", {0.2, 0.1, 0.05}}}},
                 {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  Json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}, {"material", "ice"}},
                 {{"name", "box"}, {"shape", "box"}, {"mass", m}, {"position", {0, 0, 0.05}}, {"material", "ice"}}};
  Json j = scene(GetParam(), dt, 100, shapes, bodies);
  j["materials"]["ice"] = {{"density", 1000}, {"friction", 0.0}};
  World w = make(j);
  const int box = w.find_body("box");
  w.apply_force(box, Vec3(F, 0, 0));  // persistent
  run(w, 100);
  const double t = w.time();
  EXPECT_NEAR(w.body(box).velocity.x(), F / m * t, 1e-3 * F / m * t) << GetParam();

  // torque on a free body without gravity: omega = I^-1 tau t about a principal axis
  Json free = scene(GetParam(), dt, 100, {{"box", shapes["box"]}},
                    {{{"name", "box"}, {"shape", "box"}, {"mass", m}, {"position", {0, 0, 0}}}}, Json::array(), Json::array(), 0.0);
  World f = make(free);
  const double tau = 0.7, Izz = m * (0.4 * 0.4 + 0.2 * 0.2) / 12.0;
  f.apply_torque(0, Vec3(0, 0, tau));
  run(f, 100);
  EXPECT_NEAR(f.body(0).angular_velocity.z(), tau / Izz * f.time(), 1e-3 * tau / Izz * f.time()) << GetParam();
}

// A one-step impulse changes the velocity by P / m and is gone the step after.
TEST(Control, ImpulseActsForOneStep) {
  Json shapes = {{"ball", {{"type", "sphere"}, {"radius", 0.1}}}};
  World w = make(scene("pgs", 0.01, 10, shapes, {{{"name", "b"}, {"shape", "ball"}, {"mass", 2.0}}}, Json::array(),
                       Json::array(), 0.0));
  w.apply_impulse(0, Vec3(4, 0, 0), w.rigid_state().x[0]);
  run(w, 1);
  EXPECT_NEAR(w.body(0).velocity.x(), 2.0, 1e-12);
  run(w, 1);
  EXPECT_NEAR(w.body(0).velocity.x(), 2.0, 1e-12);
  EXPECT_TRUE(w.control().step_wrench[0].isZero());
}

// Validation 4: a vertical slider's velocity motor lifts a load below its maximum effort, at the
// commanded speed, and stalls at its maximum effort above it.
TEST_P(ControlSolver, VelocityMotorLiftsBelowItsEffortAndStallsAbove) {
  const double m = 2.0, dt = 0.005;
  for (const double max_effort : {1.5 * m * g, 0.5 * m * g}) {
    Json shapes = {{"box", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}}};
    Json bodies = {{{"name", "load"}, {"shape", "box"}, {"mass", m}, {"position", {0, 0, 1}}}};
    Json joints = {{{"name", "lift"}, {"type", "prismatic"}, {"a", "load"}, {"b", nullptr}, {"axis", {0, 0, 1}}}};
    Json actuators = {{{"name", "motor"}, {"type", "velocity"}, {"joint", "lift"}, {"max_effort", max_effort}, {"command", 0.2}}};
    World w = make(scene(GetParam(), dt, 200, shapes, bodies, joints, actuators));
    run(w, 200);
    const JointState& j = w.joint_state(0);
    const double effort = w.actuator_efforts()[0];
    if (max_effort > m * g) {
      EXPECT_NEAR(j.velocity, 0.2, 1e-3) << GetParam();
      EXPECT_NEAR(effort, m * g, 1e-2 * m * g) << GetParam();
    } else {
      EXPECT_LT(j.velocity, 0.0) << GetParam();  // it cannot hold the load: it slides down
      EXPECT_NEAR(effort, max_effort, 1e-6 * max_effort) << GetParam();
      // and the load falls with (m g - F) / m
      EXPECT_NEAR(j.velocity, -(m * g - max_effort) / m * w.time(), 2e-2 * (m * g - max_effort) / m * w.time());
    }
  }
}

// A position servo bounded below the load's torque saturates: it reports its maximum effort
// and the arm sags; above it, it holds the arm near its target.
TEST_P(ControlSolver, BoundedPositionServoSaturatesBelowTheLoad) {
  const double m = 1.0, L = 0.5, dt = 0.005, load = m * g * L / 2;  // gravity's torque on a horizontal rod
  Json shapes = {{"rod", {{"type", "box"}, {"half_extents", {L / 2, 0.02, 0.02}}}}};
  Json bodies = {{{"name", "rod"}, {"shape", "rod"}, {"mass", m}, {"position", {L / 2, 0, 1}}}};
  Json joints = {{{"name", "pivot"}, {"type", "hinge"}, {"a", "rod"}, {"b", nullptr}, {"anchor", {0, 0, 1}}, {"axis", {0, 1, 0}}}};
  for (const double max_effort : {0.5 * load, 2.0 * load}) {
    Json servo = {{{"name", "servo"}, {"type", "position"}, {"joint", "pivot"}, {"stiffness", 1e4}, {"damping", 100},
                   {"max_effort", max_effort}}};
    World w = make(scene(GetParam(), dt, 20, shapes, bodies, joints, servo));
    run(w, 20);
    const double effort = std::abs(w.actuator_efforts()[0]);
    if (max_effort < load) {
      EXPECT_NEAR(effort, max_effort, 1e-6 * max_effort) << GetParam();
      EXPECT_GT(std::abs(w.joint_state(0).position), 0.05) << GetParam();  // it sags
    } else {
      EXPECT_LT(effort, max_effort) << GetParam();
      EXPECT_LT(std::abs(w.joint_state(0).position), 2e-3) << GetParam();  // load / k = 2.5e-4 rad
    }
  }
}

// Validation 5: a position servo (stiffness k, damping c) takes a 1-link arm without gravity
// from 0 to 1 rad along I theta'' = -k (theta - 1) - c theta': its 2 % settling time matches the
// closed form's within 5 %.
TEST_P(ControlSolver, PositionServoSettlesInTheDampedOscillatorsTime) {
  const double m = 1.0, L = 0.5, dt = 0.001;
  const double I = m * (L * L + 0.02 * 0.02) / 12.0 + m * (L / 2) * (L / 2);  // a box about its end
  const double k = 4.0, c = 0.4;                                              // zeta ~ 0.35
  Json shapes = {{"link", {{"type", "box"}, {"half_extents", {L / 2, 0.01, 0.01}}}}};
  Json bodies = {{{"name", "link"}, {"shape", "link"}, {"mass", m}, {"position", {L / 2, 0, 0}}}};
  Json joints = {{{"name", "shoulder"}, {"type", "hinge"}, {"a", "link"}, {"b", nullptr}, {"anchor", {0, 0, 0}}, {"axis", {0, 0, 1}}}};
  Json actuators = {{{"name", "servo"}, {"type", "position"}, {"joint", "shoulder"}, {"stiffness", k}, {"damping", c}, {"command", 1.0}}};
  const int steps = 8000;
  World w = make(scene(GetParam(), dt, steps, shapes, bodies, joints, actuators, 0.0));
  // the closed form's last exit from the 2 % band, against the simulation's
  const double wn = std::sqrt(k / I), zeta = c / (2.0 * std::sqrt(k * I)), wd = wn * std::sqrt(1 - zeta * zeta);
  double t_exact = 0.0, t_sim = 0.0;
  for (int i = 1; i <= steps; ++i) {
    ASSERT_TRUE(w.step().ok());
    const double t = i * dt;
    const double exact = 1.0 - std::exp(-zeta * wn * t) * (std::cos(wd * t) + zeta / std::sqrt(1 - zeta * zeta) * std::sin(wd * t));
    if (std::abs(exact - 1.0) > 0.02) t_exact = t;
    if (std::abs(w.joint_state(0).position - 1.0) > 0.02) t_sim = t;
  }
  EXPECT_NEAR(t_sim, t_exact, 0.05 * t_exact) << GetParam();
  EXPECT_NEAR(w.joint_state(0).position, 1.0, 1e-3);
}

// Validation 6: a wheel on a continuous hinge driven at 10 rad/s for 10 s turns 100 rad and gains
// no energy; a servo whose target sweeps 0 -> 4 rad (past pi) stays on it.
TEST_P(ControlSolver, ContinuousHingeTurnsManyTimesAndTracksAcrossPi) {
  const double dt = 0.005;
  Json shapes = {{"wheel", {{"type", "cylinder"}, {"radius", 0.3}, {"half_height", 0.05}}}};
  Json bodies = {{{"name", "wheel"}, {"shape", "wheel"}, {"mass", 2.0}, {"position", {0, 0, 1}}}};
  Json joints = {{{"name", "axle"}, {"type", "hinge"}, {"a", "wheel"}, {"b", nullptr}, {"anchor", {0, 0, 1}}, {"axis", {0, 0, 1}}}};
  Json motor = {{{"name", "motor"}, {"type", "velocity"}, {"joint", "axle"}, {"command", 10.0}}};
  World w = make(scene(GetParam(), dt, 2000, shapes, bodies, joints, motor));
  run(w, 2000);
  EXPECT_NEAR(w.joint_state(0).position, 100.0, 0.1) << GetParam();
  const double I = 2.0 * 0.3 * 0.3 / 2.0;
  EXPECT_LE(w.last_stats().kinetic_energy, 0.5 * I * 100.0 * (1.0 + 1e-3)) << GetParam();

  // a rod on a horizontal hinge under gravity, its servo's target 0 -> 4 rad over 2 s
  Json rod_shapes = {{"rod", {{"type", "box"}, {"half_extents", {0.25, 0.02, 0.02}}}}};
  Json rod = {{{"name", "rod"}, {"shape", "rod"}, {"mass", 1.0}, {"position", {0.25, 0, 1}}}};
  Json pivot = {{{"name", "pivot"}, {"type", "hinge"}, {"a", "rod"}, {"b", nullptr}, {"anchor", {0, 0, 1}}, {"axis", {0, 1, 0}}}};
  Json servo = {{{"name", "servo"}, {"type", "position"}, {"joint", "pivot"}, {"schedule", {{0, 0}, {2, 4}}}}};
  World s = make(scene(GetParam(), dt, 600, rod_shapes, rod, pivot, servo));
  double worst = 0.0;
  for (int i = 1; i <= 600; ++i) {
    const StepResult r = s.step();
    ASSERT_TRUE(r.ok()) << r.message;
    const double target = std::min(4.0, 2.0 * i * dt);
    worst = std::max(worst, std::abs(s.joint_state(0).position - target));
  }
  EXPECT_LT(worst, 0.01) << GetParam();
  EXPECT_LT(s.last_stats().joint_error_linear, 1e-3) << GetParam();
}

// An effort actuator's torque is clamped to its limit and reported; loads on fixed bodies and
// non-finite values are refused at the call.
TEST(Control, EffortIsClampedAndBadArgumentsAreRefused) {
  Json shapes = {{"wheel", {{"type", "cylinder"}, {"radius", 0.3}, {"half_height", 0.05}}},
                 {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  Json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}},
                 {{"name", "wheel"}, {"shape", "wheel"}, {"mass", 2.0}, {"position", {0, 0, 1}}}};
  Json joints = {{{"name", "axle"}, {"type", "hinge"}, {"a", "wheel"}, {"b", nullptr}, {"anchor", {0, 0, 1}}, {"axis", {0, 0, 1}}}};
  Json motor = {{{"name", "torque"}, {"type", "effort"}, {"joint", "axle"}, {"max_effort", 0.5}}};
  World w = make(scene("pgs", 0.01, 100, shapes, bodies, joints, motor, 0.0));
  w.set_command(0, 3.0);
  run(w, 100);
  EXPECT_DOUBLE_EQ(w.actuator_efforts()[0], 0.5);
  const double I = 2.0 * 0.3 * 0.3 / 2.0;
  EXPECT_NEAR(w.joint_state(0).velocity, 0.5 / I * w.time(), 1e-6);
  EXPECT_THROW(w.apply_force(0, Vec3(1, 0, 0)), std::invalid_argument);  // the ground is fixed
  EXPECT_THROW(w.apply_force(1, Vec3(NAN, 0, 0)), std::invalid_argument);
  EXPECT_THROW(w.apply_force(7, Vec3(1, 0, 0)), std::out_of_range);
  EXPECT_THROW(w.set_command(1, 1.0), std::out_of_range);
  EXPECT_THROW(w.set_command(0, INFINITY), std::invalid_argument);
  EXPECT_THROW(w.joint_state(-1), std::out_of_range);
  EXPECT_EQ(w.find_actuator("nope"), -1);
}

// A kinematic platform moving up lifts a box resting on it, and nothing pushes it back.
TEST_P(ControlSolver, KinematicPlatformLiftsWhatRestsOnIt) {
  Json shapes = {{"plate", {{"type", "box"}, {"half_extents", {1, 1, 0.05}}}},
                 {"box", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}}};
  Json bodies = {{{"name", "plate"}, {"shape", "plate"}, {"kinematic", true}, {"position", {0, 0, 0}}},
                 {{"name", "box"}, {"shape", "box"}, {"mass", 1.0}, {"position", {0, 0, 0.15}}}};
  World w = make(scene(GetParam(), 0.005, 400, shapes, bodies));
  const int plate = w.find_body("plate"), box = w.find_body("box");
  EXPECT_TRUE(w.kinematic(plate));
  w.set_kinematic_velocity(plate, Vec3(0, 0, 0.5), Vec3::Zero());
  run(w, 200);  // 1 s up at 0.5 m/s
  EXPECT_NEAR(w.body(plate).position.z(), 0.5, 1e-9) << GetParam();
  EXPECT_NEAR(w.body(box).position.z(), 0.65, 5e-3) << GetParam();
  EXPECT_NEAR(w.body(box).velocity.z(), 0.5, 2e-2) << GetParam();
  // move_kinematic: the shape frame reaches the pose at the end of the next step
  w.move_kinematic(plate, Vec3(0.01, 0, 0.5), Quat::Identity());
  run(w, 1);
  EXPECT_NEAR(w.body(plate).position.x(), 0.01, 1e-12);
  EXPECT_THROW(w.set_kinematic_velocity(box, Vec3::Zero(), Vec3::Zero()), std::invalid_argument);
  EXPECT_THROW(w.apply_force(plate, Vec3(1, 0, 0)), std::invalid_argument);
}

// A conveyor: a kinematic belt with a velocity, put back in place every step, drags a box
// resting on it up to the belt's speed by friction (mu g: 0.5 g over 0.2 m/s takes 0.04 s).
TEST_P(ControlSolver, KinematicConveyorDragsABoxToItsSpeed) {
  Json shapes = {{"belt", {{"type", "box"}, {"half_extents", {2, 0.5, 0.05}}}},
                 {"box", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}}};
  Json bodies = {{{"name", "belt"}, {"shape", "belt"}, {"kinematic", true}},
                 {{"name", "box"}, {"shape", "box"}, {"mass", 1.0}, {"position", {0, 0, 0.15}}}};
  World w = make(scene(GetParam(), 0.005, 100, shapes, bodies));
  const int belt = w.find_body("belt"), box = w.find_body("box");
  w.set_kinematic_velocity(belt, Vec3(0.2, 0, 0), Vec3::Zero());
  for (int i = 0; i < 100; ++i) {
    w.set_kinematic_pose(belt, Vec3::Zero(), Quat::Identity());
    ASSERT_TRUE(w.step().ok());
  }
  EXPECT_NEAR(w.body(box).velocity.x(), 0.2, 0.01) << GetParam();
  EXPECT_NEAR(w.body(box).position.z(), 0.15, 2e-3) << GetParam();
}

// Loads, commands and hinge turns are part of the State: a restored State repeats the run.
TEST(Control, ControlIsPartOfTheState) {
  Json shapes = {{"wheel", {{"type", "cylinder"}, {"radius", 0.3}, {"half_height", 0.05}}}};
  Json bodies = {{{"name", "wheel"}, {"shape", "wheel"}, {"mass", 2.0}, {"position", {0, 0, 1}}}};
  Json joints = {{{"name", "axle"}, {"type", "hinge"}, {"a", "wheel"}, {"b", nullptr}, {"anchor", {0, 0, 1}}, {"axis", {0, 0, 1}}}};
  Json motor = {{{"name", "motor"}, {"type", "velocity"}, {"joint", "axle"}, {"command", 10.0}}};
  World w = make(scene("pgs", 0.01, 1000, shapes, bodies, joints, motor, 0.0));
  run(w, 100);  // 10 rad: past pi
  w.set_command(0, -3.0);
  const State s = w.state();
  run(w, 50);
  const double angle = w.joint_state(0).position;
  w.set_state(s);
  EXPECT_EQ(w.command(0), -3.0);
  run(w, 50);
  EXPECT_EQ(w.joint_state(0).position, angle);
  // the quaternion update (seed 000 eq. 67, then normalised) turns by 2 atan(w dt / 2) a step
  EXPECT_NEAR(angle, 100 * 2 * std::atan(10.0 * 0.01 / 2) + 50 * 2 * std::atan(-3.0 * 0.01 / 2), 1e-9);
}

}  // namespace control_test

namespace control_test {

// With sleeping islands on, a load wakes a sleeping body and keeps it awake while it acts.
TEST(Control, LoadsWakeSleepingBodiesAndKeepThemAwake) {
  Json shapes = {{"box", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}}},
                 {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  Json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}},
                 {{"name", "box"}, {"shape", "box"}, {"mass", 1.0}, {"position", {0, 0, 0.1}}}};
  Json j = scene("pgs", 0.01, 400, shapes, bodies);
  j["sleep"] = {{"time", 0.2}};
  World w = make(j);
  const int box = w.find_body("box");
  run(w, 100);
  ASSERT_TRUE(w.sleeping(box));
  w.apply_force(box, Vec3(10.0, 0, 0));  // twice the friction limit of 0.5 m g
  EXPECT_FALSE(w.sleeping(box));
  run(w, 100);
  EXPECT_FALSE(w.sleeping(box));
  EXPECT_GT(w.body(box).velocity.x(), 1.0);
}

}  // namespace control_test

namespace control_test {

// Joint limits stop a falling body in every solver: a rod on a vertical slider limited to
// [-0.1, 0.1] or [0, 0], and a rod on a hinge limited to [-0.5, 0.5] rad.
TEST_P(ControlSolver, JointLimitsHoldAFallingBody) {
  Json shapes = {{"rod", {{"type", "box"}, {"half_extents", {0.02, 0.02, 0.3}}}},
                 {"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}};
  Json bodies = {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}},
                 {{"name", "rod"}, {"shape", "rod"}, {"mass", 1.0}, {"position", {0, 0, 1.5}}}};
  for (const double lo : {-0.1, 0.0}) {
    Json joints = {{{"name", "slide"}, {"type", "prismatic"}, {"a", "rod"}, {"b", nullptr}, {"axis", {0, 0, 1}}, {"limits", {lo, -lo}}}};
    World w = make(scene(GetParam(), 0.01, 100, shapes, bodies, joints));
    run(w, 100);
    EXPECT_NEAR(w.joint_state(0).position, lo, 1e-3) << GetParam() << ", limits [" << lo << ", " << -lo << "]";
  }
  // a rod on a horizontal hinge limited to [-0.5, 0.5] rad falls to -0.5 (a's rotation about y)
  Json rod = {{{"name", "rod"}, {"shape", "rod"}, {"mass", 1.0}, {"position", {0.3, 0, 1}}, {"orientation", {0.7071067811865476, 0, 0.7071067811865476, 0}}}};
  Json hinge = {{{"name", "pivot"}, {"type", "hinge"}, {"a", "rod"}, {"b", nullptr}, {"anchor", {0, 0, 1}}, {"axis", {0, 1, 0}}, {"limits", {-0.5, 0.5}}}};
  World w = make(scene(GetParam(), 0.01, 200, {{"rod", shapes["rod"]}}, rod, hinge));
  run(w, 200);
  EXPECT_NEAR(std::abs(w.joint_state(0).position), 0.5, 2e-3) << GetParam();
}

}  // namespace control_test
