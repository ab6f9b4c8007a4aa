// A Coulomb scene rebuilt in Bullet's own dynamics world (btDiscreteDynamicsWorld with the
// sequential-impulse solver), for the coulomb-vs-bullet benchmark only (README.md).
//
// Why the body frames match: Coulomb's body frame is the centre of mass with principal axes
// (RigidModel::shape_in_body places the shape in it). The Bullet body i is built in that same
// frame: same pose, mass and principal moments, and its shape is moved into the frame (hull and
// mesh vertices, compound children, or a one-child btCompoundShape for a primitive). So a state
// read back from Bullet is a coulomb::RigidState of the same model, and Bullet's user index of
// body i is i.
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
};

// Coulomb's per-material-pair coefficients (nm x nm): the geometric mean of the two materials
// unless `contact_materials` has an entry (SCENE_FORMAT.md; the same rule as World).
std::vector<coulomb::ContactCoefficients> pair_coefficients(const coulomb::SceneDef& scene);

class BulletWorld {
 public:
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
  // the solver's timing totals so far (sweep_cost.h)
  const TimedSequentialImpulseSolver& solver() const { return *solver_; }
  // Friction and restitution of a material pair, by Bullet body (user index = Coulomb body id).
  const coulomb::ContactCoefficients& coefficients(const btCollisionObject* a, const btCollisionObject* b) const;

 private:
  btCollisionShape* shape(int id, const coulomb::Pose& frame, bool is_static);
  btCollisionShape* primitive(const coulomb::Shape& s);
  btCollisionShape* mesh(const coulomb::TriMesh& m, const coulomb::Pose& frame, bool is_static);
  template <class T, class... Args>
  T* keep(Args&&... args);

  const coulomb::SceneDef& scene_;
  const coulomb::RigidModel& model_;
  std::vector<coulomb::ContactCoefficients> pair_coeffs_;  // (nm x nm)

  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btBroadphaseInterface> broadphase_;
  std::unique_ptr<TimedSequentialImpulseSolver> solver_;
  std::unique_ptr<btDiscreteDynamicsWorld> world_;
  std::vector<std::unique_ptr<btRigidBody>> bodies_;          // (nb) by Coulomb body id
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;     // every shape, children included
  std::vector<std::unique_ptr<btStridingMeshInterface>> mesh_arrays_;
  std::deque<std::vector<double>> mesh_vertices_;             // storage the mesh arrays point into
  std::deque<std::vector<int>> mesh_indices_;
};

}  // namespace bench
