// What a run changes (DESIGN.md: Model and State are separate). A World is its model (scene,
// shapes, rigid masses, soft rest meshes, materials, material pair table, attachments,
// settings), which no step changes, plus one State, which every step rewrites:
//
//   coulomb::State snapshot = world.state();   // a copy
//   ... world.step() ...
//   world.set_state(snapshot);                 // the same steps again give bit-identical results
//
// A State is plain data (copyable, comparable element by element) and holds everything that
// influences the next step: nothing else is carried from one step to the next. Anything a later
// feature keeps across steps (as the joints' warm-start impulses do) belongs here, with a line
// in World::state()/set_state() (engine/src/world_state.cpp) that copies and checks it.
#pragma once
#include <coulomb/control.h>
#include <coulomb/rigid_bodies.h>
#include <coulomb/sleep.h>

#include <vector>

namespace coulomb {

// A soft body's vertex positions and velocities (world frame), indexed like its mesh vertices.
// The World keeps them inside its SoftBody (fem/soft_body.h), beside the rest mesh and the
// masses; a State holds copies, so that the solvers and tests keep reading one SoftBody.
struct SoftState {
  std::vector<Vec3> x;  // (nv) (unit: m)
  std::vector<Vec3> v;  // (nv) (unit: m/s)
};

// One contact's impulse from the last step, to warm-start the next one (velocity-level solvers):
// a new contact between the same bodies whose point (in body a's frame) lies close to
// local_point starts from this impulse.
struct CachedContactImpulse {
  int a = -1, b = -1;  // body ids, as the contact's body_a and body_b
  Vec3 local_point;    // contact point in body a's frame (unit: m)
  Vec3 impulse;        // lambda_n n + lambda_t t + lambda_s s, world frame (unit: N s)
  Vec3 torsion;        // lambda_tau n (unit: N m s)
};

struct State {
  RigidState rigid;                                 // (nb) x, q, v, w of every rigid body
  std::vector<SoftState> soft;                      // one per soft body, in the world's order
  std::vector<CachedContactImpulse> contact_cache;  // sorted by (a, b); empty before the first step
  // the joints' row impulses of the last step (velocity-level solvers), in the order of the
  // joint rows; used only if it has as many entries as this step has rows (else a cold start)
  std::vector<double> joint_cache;                  // (unit: N s, N m s)
  // the position-level rows' impulses of the last step (newton-pcr's warm start), by row:
  // PositionProblem::row_impulses (joints, FEM elements, attachments); used only if it has as
  // many entries as this step's problem (else a cold start); its contacts' go to contact_cache
  std::vector<double> row_cache;                    // (unit: N s, N m s)
  // sleeping islands (scene `sleep`, solvers/sleep.h): each body's rest timer and the island it
  // sleeps with; empty: everybody awake (sleep off)
  SleepState sleep;
  // (nj) each hinge's unwrapped angle at the end of the last step, the reference the next step
  // unwraps against (JointConstraint::angle_ref); 0 for the other joints
  std::vector<double> joint_angle;                  // (unit: rad)
  // the program's loads and actuator commands (coulomb/control.h)
  Control control;
  int step = 0;                                     // completed steps
  double time = 0.0;                                // simulated time (unit: s)
};

}  // namespace coulomb
