// A Coulomb scene rebuilt in Bullet's own dynamics world (btDiscreteDynamicsWorld with the
// sequential-impulse solver), for the coulomb-vs-bullet benchmark only (README.md).
//
// Why the body frames match: Coulomb's body frame is the centre of mass with principal axes
// (RigidModel::shape_in_body places the shape in it). The Bullet body i is built in that same
// frame: same pose, mass and principal moments, and its shape is moved into the frame (hull and
// mesh vertices, compound children, or a one-child btCompoundShape for a primitive). So a state
// read back from Bullet is a coulomb::RigidState of the same model, and Bullet's user index of
// body i is i.
//
// Rigid joints (SceneDef::joints, anchors and axes in world coordinates at load) become Bullet
// constraints between the same bodies (the world side a fixed body of this world's own), the
// bodies in the order that makes Bullet's hinge angle and slide Coulomb's coordinates (a relative
// to b). Bullet's joints are rigid: `compliance` has no counterpart there. Only effort actuators
// are modelled (apply_effort); a scene with a velocity motor or a position servo (or a joint
// `drive`) is refused.
#pragma once
#include "sweep_cost.h"

#include <coulomb/contact_assembly.h>
#include <coulomb/rigid_bodies.h>
#include <coulomb/scene.h>

#include <btBulletDynamicsCommon.h>

#include <deque>
#include <memory>
#include <vector>

namespace bench {

// a Bullet vector as a Coulomb one
inline coulomb::Vec3 cv(const btVector3& v) { return {v.x(), v.y(), v.z()}; }

struct BulletSettings {
  int iterations = 10;                  // btContactSolverInfo::m_numIterations
  bool two_friction_directions = true;  // SOLVER_USE_2_FRICTION_DIRECTIONS (Bullet's default is one)
  // false: Bullet's solver without the sweep timers of sweep_cost.h, whose CPU-clock reads are
  // system calls, two a sweep, comparable to a small scene's whole step
  bool timed_solver = true;
  // the collision configuration's manifold and algorithm pools, in entries (0: Bullet's 4096 of
  // each, about 7 MB a world, which Bullet touches whole when it builds them); Bullet allocates
  // from the heap beyond them
  int pool_size = 0;
};

// Coulomb's per-material-pair coefficients (nm x nm): coulomb::material_pair_table, the World's
// own (the scene's combine rules unless `contact_materials` has an entry).
std::vector<coulomb::ContactCoefficients> pair_coefficients(const coulomb::SceneDef& scene);

class BulletWorld {
 public:
  // `scene` lists its bodies in the model's id order (World::scene(); a scene file's own order
  // below World's spatial numbering, engine/README.md "Body ids"), since joints name bodies by
  // index. Throws coulomb::InputError for a joint Bullet cannot model (a hinge limit outside
  // [-pi, pi]: Bullet's hinge angle is not multi-turn) or an actuator other than an effort one.
  BulletWorld(const coulomb::SceneDef& scene, const coulomb::RigidModel& model, const coulomb::RigidState& initial,
              const BulletSettings& settings);
  ~BulletWorld();
  BulletWorld(const BulletWorld&) = delete;
  BulletWorld& operator=(const BulletWorld&) = delete;

  // One fixed step of the scene's dt (stepSimulation(dt, 1, dt)).
  void step();
  // Centre-of-mass pose and velocities of every body, in Coulomb's body frames.
  void read_state(coulomb::RigidState& out) const;
  btDiscreteDynamicsWorld& world() { return *world_; }
  double dt() const { return scene_.dt; }
  const btContactSolverInfo& solver_info() { return world_->getSolverInfo(); }
  // the solver's timing totals so far (sweep_cost.h); std::logic_error without timed_solver
  const TimedSequentialImpulseSolver& solver() const;
  // Friction and restitution of a material pair, by Bullet body (user index = Coulomb body id).
  const coulomb::ContactCoefficients& coefficients(const btCollisionObject* a, const btCollisionObject* b) const;

  // Effort actuator `actuator` (index into scene.actuators) for the next step only, as World
  // applies it (engine/src/world_control.cpp): the command clamped to max_effort, a torque about
  // a's axis in the world on a and its opposite on b (hinge), or a force along it at b's anchor
  // point, on a and its opposite on b (prismatic). Bullet clears applied loads after each step.
  // std::out_of_range for an unknown actuator.
  void apply_effort(int actuator, double command);
  int actuator_count() const { return int(scene_.actuators.size()); }
  int joint_count() const { return int(joints_.size()); }
  // Joint `j`'s coordinate now: Bullet's hinge angle (rad, within [-pi, pi]: Coulomb's but for
  // its turns) or the slide as Coulomb defines it (m); 0 for the other types.
  double joint_position(int j);
  // Joint `j`'s violation now (unit: m): the distance between the anchor points carried by its
  // two bodies, across the axis for a prismatic joint (its slide is its coordinate).
  double joint_gap(int j) const;

 private:
  btCollisionShape* shape(int id, const coulomb::Pose& frame, bool is_static);
  btCollisionShape* empty_shape();  // for a body without a shape
  btCollisionShape* primitive(const coulomb::Shape& s);
  btCollisionShape* mesh(const coulomb::TriMesh& m, const coulomb::Pose& frame, bool is_static);
  template <class T, class... Args>
  T* keep(Args&&... args);
  void add_joint(const coulomb::JointDef& d);
  btRigidBody& side(int body) { return body >= 0 ? *bodies_[std::size_t(body)] : *ground_; }
  btTransform pose(int body) const;  // the body's centre-of-mass frame (identity for the world)

  // a joint as both engines see it: its bodies (-1 the world) and its anchor and axis carried by
  // them, each in its body's centre-of-mass frame (world frame for the world side)
  struct Joint {
    coulomb::JointType type = coulomb::JointType::Ball;
    int a = -1, b = -1;
    btVector3 anchor_a, anchor_b, axis_a;
  };

  const coulomb::SceneDef& scene_;
  const coulomb::RigidModel& model_;
  std::vector<coulomb::ContactCoefficients> pair_coeffs_;  // (nm x nm)

  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<btSequentialImpulseConstraintSolver> solver_;
  TimedSequentialImpulseSolver* timed_ = nullptr;  // solver_, when it is the timed one
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;          // (nb) by Coulomb body id
  // the world side of joints: mass 0, never added to the world. Not Bullet's shared
  // btTypedConstraint::getFixedBody(), which every constraint's constructor writes to, so that
  // worlds built and stepped on different threads share nothing.
  std::unique_ptr<btRigidBody> ground_;
  std::vector<std::unique_ptr<btTypedConstraint>> constraints_;  // (nj) by scene joint
  std::vector<Joint> joints_;                                  // (nj)
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;     // every shape, children included
  std::vector<std::unique_ptr<btStridingMeshInterface>> mesh_arrays_;
  std::deque<std::vector<double>> mesh_vertices_;             // storage the mesh arrays point into
  std::deque<std::vector<int>> mesh_indices_;
};

}  // namespace bench
