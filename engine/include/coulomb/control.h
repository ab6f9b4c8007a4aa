// Driving a World from a program (DESIGN.md "Inputs from outside the scene"): what a program
// commands between steps, and what it reads back after each one.
//
// Inputs (Control) are inputs of the next step, like MuJoCo's ctrl and xfrc_applied: external
// loads on rigid bodies and soft vertices, and actuator commands. They are kept with the State
// (State::control), so that a snapshot, a checkpoint or a batch of worlds carries them.
// Kinematic bodies take their motion from their velocity in the State (World::set_kinematic_velocity,
// World::move_kinematic).
//
// Outputs are flat arrays the World refills after each step (World::joint_states,
// actuator_efforts, contact_records), read without copies.
//
// Units and frames: SI, world frame. Forces act at the centre of mass unless a point is given;
// a force at a world point becomes, when it is applied, that force and its torque about the
// centre of mass (it does not follow the body as it turns). Impulses are forces over the next
// step: an impulse P is the force P / dt for one step.
#pragma once
#include <coulomb/constraints.h>
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <vector>

namespace coulomb {

// How long a load applied between steps acts.
enum class LoadDuration : std::uint8_t {
  Persistent,  // every step until cleared (World::clear_loads), as MuJoCo's xfrc_applied
  NextStep     // the next step only, as Bullet's applyForce between two stepSimulation calls
};

struct Control {
  // (nb) force (N) then torque (N m) at the centre of mass, world frame
  std::vector<Vec6> wrench;       // persistent
  std::vector<Vec6> step_wrench;  // the next step only (cleared after each step)
  // (ns) per soft body: (nv) forces on its vertices (N); an empty vector: none
  std::vector<std::vector<Vec3>> vertex_force, vertex_step_force;
  // (na) actuator commands: effort (N m or N), target velocity (rad/s or m/s) or target position
  // (rad or m), by the actuator's type (scene.h ActuatorDef)
  std::vector<double> command;
  // (na) 1 once the program set the command: a schedule no longer feeds it
  std::vector<std::uint8_t> commanded;

  // no arrays at all: a State that carries no control (the World's defaults)
  bool empty() const {
    return wrench.empty() && step_wrench.empty() && vertex_force.empty() && vertex_step_force.empty() &&
           command.empty() && commanded.empty();
  }
};

// A hinge's or prismatic joint's state after the last step, and what the joint did in it.
struct JointState {
  // hinge: the unwrapped (multi-turn) angle of body a relative to b about the axis (rad) and its
  // rate (rad/s); prismatic: a's slide relative to b along the axis (m, m/s); 0 for the others
  double position = 0.0, velocity = 0.0;
  // every type: a's rotation relative to b since load time, in b's frame (the ball joint's state),
  // and a's angular velocity relative to b, world frame (unit: rad/s)
  Quat rotation = Quat::Identity();
  Vec3 angular_velocity = Vec3::Zero();
  // the joint's reaction on body a in the last step, its rows and limits without its drive: the
  // force (N) and the torque about the joint's anchor (N m), world frame; b got the opposite
  Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
};

// One contact of the last step. A rigid side names its body (soft_* = -1); a soft side names its
// soft body and the vertices of its feature (a vertex, an edge or a triangle; unused entries -1).
struct ContactRecord {
  int body_a = -1, body_b = -1;
  int soft_a = -1, soft_b = -1;
  std::array<int, 3> vertices_a{-1, -1, -1}, vertices_b{-1, -1, -1};
  Vec3 point = Vec3::Zero();   // midway between the surfaces at detection (unit: m)
  Vec3 normal = Vec3::UnitZ(); // unit, from a towards b
  double separation = 0.0;     // gap at detection, < 0 when they overlap (unit: m)
  double normal_impulse = 0.0; // on b along the normal (unit: N s)
  Vec3 friction_impulse = Vec3::Zero();  // on b, tangential, world frame (unit: N s)
};

}  // namespace coulomb
