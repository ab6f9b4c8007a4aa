// Building Bullet's world from a Coulomb scene, shape by shape (bullet_world.h, README.md).
#include "bullet_world.h"

#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <BulletCollision/CollisionShapes/btEmptyShape.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>
#include <BulletDynamics/ConstraintSolver/btFixedConstraint.h>
#include <coulomb/error.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace bench {

using coulomb::Pose;
using coulomb::Shape;
using coulomb::ShapeType;
using coulomb::Vec3;

namespace {

btVector3 bt(const Vec3& v) { return {v.x(), v.y(), v.z()}; }
btTransform bt(const Pose& p) {
  return btTransform(btQuaternion(p.q.x(), p.q.y(), p.q.z(), p.q.w()), bt(p.p));
}
bool is_identity(const Pose& p) { return p.p.norm() < 1e-12 && p.q.vec().norm() < 1e-12; }

// Bullet keeps a box's or cylinder's outer size and rounds its edges by the margin in GJK
// pairs; its default margin (0.04 m) is larger than a wall brick's thinnest half extent allows.
double margin_for(double smallest_half_extent) { return std::min(0.04, 0.2 * smallest_half_extent); }
// Hulls and meshes grow by their margin: keep it at a millimetre.
constexpr double kHullMargin = 1e-3;

// Bullet's material-combine callbacks (globals of btManifoldResult.h): every Bullet body points
// at its BulletWorld, which holds Coulomb's pair table.
const BulletWorld& owner(const btCollisionObject* a) { return *static_cast<const BulletWorld*>(a->getUserPointer()); }
btScalar combined_friction(const btCollisionObject* a, const btCollisionObject* b) {
  return owner(a).coefficients(a, b).mu[0];  // Bullet's friction is isotropic: mu_s
}
btScalar combined_restitution(const btCollisionObject* a, const btCollisionObject* b) {
  return owner(a).coefficients(a, b).restitution;
}

}  // namespace

std::vector<coulomb::ContactCoefficients> pair_coefficients(const coulomb::SceneDef& scene) {
  return coulomb::material_pair_table(scene);
}

BulletWorld::BulletWorld(const coulomb::SceneDef& scene, const coulomb::RigidModel& model,
                         const coulomb::RigidState& initial, const BulletSettings& settings)
    : scene_(scene), model_(model), pair_coeffs_(pair_coefficients(scene)) {
  // contacts are kept up to the scene's envelope, the same for every pair (Bullet's default
  // scales a global 0.02 m by each shape's size)
  gContactBreakingThreshold = std::max(scene.envelope, 1e-4);
  gCalculateCombinedFrictionCallback = &combined_friction;
  gCalculateCombinedRestitutionCallback = &combined_restitution;

  btDefaultCollisionConstructionInfo pools;
  if (settings.pool_size > 0) {
    pools.m_defaultMaxPersistentManifoldPoolSize = settings.pool_size;
    pools.m_defaultMaxCollisionAlgorithmPoolSize = settings.pool_size;
  }
  config_ = std::make_unique<btDefaultCollisionConfiguration>(pools);
  // a full manifold (up to 4 points) from the first step on a plane; otherwise a box meets a
  // plane with one new point per step
  config_->setPlaneConvexMultipointIterations();
  dispatcher_ = std::make_unique<btCollisionDispatcher>(config_.get());
  dispatcher_->setDispatcherFlags(dispatcher_->getDispatcherFlags() &
                                  ~btCollisionDispatcher::CD_USE_RELATIVE_CONTACT_BREAKING_THRESHOLD);
  btGImpactCollisionAlgorithm::registerAlgorithm(dispatcher_.get());
  broadphase_ = std::make_unique<btDbvtBroadphase>();
  if (settings.timed_solver) {
    auto timed = std::make_unique<TimedSequentialImpulseSolver>();
    timed_ = timed.get();
    solver_ = std::move(timed);
  } else {
    solver_ = std::make_unique<btSequentialImpulseConstraintSolver>();
  }
  world_ = std::make_unique<btDiscreteDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(), config_.get());
  world_->setGravity(bt(scene.gravity));
  btContactSolverInfo& info = world_->getSolverInfo();
  info.m_numIterations = settings.iterations;
  if (settings.two_friction_directions) info.m_solverMode |= SOLVER_USE_2_FRICTION_DIRECTIONS;

  // what the Bullet world does not model is refused, not ignored
  if (!scene.excluded_pairs.empty())
    throw coulomb::InputError("/collision/exclude", "the Bullet world does not model excluded pairs");
  for (std::size_t k = 0; k < scene.bodies.size(); ++k)
    if (scene.bodies[k].contype != 1 || scene.bodies[k].conaffinity != 1)
      throw coulomb::InputError(scene.bodies[k].pointer.empty() ? "/bodies/" + std::to_string(k) : scene.bodies[k].pointer,
                                "the Bullet world does not model contype and conaffinity");
  for (std::size_t k = 0; k < scene.joints.size(); ++k) {
    const coulomb::JointDef& d = scene.joints[k];
    if (d.position != 0.0 || d.damping != 0.0 || d.friction != 0.0 || d.armature != 0.0)
      throw coulomb::InputError("/joints/" + std::to_string(k), "joint '" + d.name +
                                                                   "': the Bullet world does not model a joint's position, "
                                                                   "damping, friction or armature");
  }
  for (const coulomb::ActuatorDef& d : scene.actuators)
    if (d.gear != 1.0 || d.ctrl_lo > -coulomb::kInfinity || d.ctrl_hi < coulomb::kInfinity || d.max_velocity < coulomb::kInfinity)
      throw coulomb::InputError(d.pointer, "actuator '" + d.name +
                                               "': the Bullet world does not model gear, ctrl_range or max_velocity");

  for (int i = 0; i < model.size(); ++i) {
    const auto k = std::size_t(i);
    const bool fixed = model.fixed[k] != 0;
    // a body without a shape: an empty one that takes part in no contact
    btCollisionShape* s = model.shape[k] < 0 ? empty_shape() : shape(model.shape[k], model.shape_in_body[k], fixed);
    btRigidBody::btRigidBodyConstructionInfo ci(fixed ? 0.0 : model.mass[k], nullptr, s,
                                                fixed ? btVector3(0, 0, 0) : bt(model.inertia[k]));
    ci.m_startWorldTransform = bt(initial.body_pose(i));
    auto body = std::make_unique<btRigidBody>(ci);
    body->setUserIndex(i);
    body->setUserPointer(this);
    if (model.shape[k] < 0) body->setCollisionFlags(body->getCollisionFlags() | btCollisionObject::CF_NO_CONTACT_RESPONSE);
    if (!fixed) {
      body->setLinearVelocity(bt(initial.v[k]));
      body->setAngularVelocity(bt(initial.w[k]));
      body->setActivationState(DISABLE_DEACTIVATION);  // no sleeping: Coulomb has none
    }
    world_->addRigidBody(body.get());
    bodies_.push_back(std::move(body));
  }

  for (const coulomb::ActuatorDef& d : scene.actuators)
    if (d.type != coulomb::ActuatorType::Effort)
      throw coulomb::InputError(d.pointer, std::string("actuator '") + d.name + "' is a " +
                                               coulomb::actuator_type_name(d.type) +
                                               " actuator (or a joint drive): the Bullet world models effort actuators only");
  if (!scene.joints.empty() && int(scene.bodies.size()) != model.size())
    throw std::logic_error("BulletWorld: the scene's bodies are not the model's");
  ground_ = std::make_unique<btRigidBody>(0.0, nullptr, nullptr);
  for (std::size_t k = 0; k < scene.joints.size(); ++k) {
    const coulomb::JointDef& d = scene.joints[k];
    if (d.type == coulomb::JointType::Hinge && d.limited && (d.lo < -SIMD_PI || d.hi > SIMD_PI))
      throw coulomb::InputError("/joints/" + std::to_string(k),
                                "joint '" + d.name + "': hinge limits outside [-pi, pi] (Bullet's hinge angle is not multi-turn)");
    add_joint(d);
  }
}

BulletWorld::~BulletWorld() {
  for (auto& c : constraints_) world_->removeConstraint(c.get());
  for (auto& b : bodies_) world_->removeRigidBody(b.get());
}

const TimedSequentialImpulseSolver& BulletWorld::solver() const {
  if (!timed_) throw std::logic_error("BulletWorld::solver: built without timed_solver");
  return *timed_;
}

btTransform BulletWorld::pose(int body) const {
  return body >= 0 ? bodies_[std::size_t(body)]->getCenterOfMassTransform() : btTransform::getIdentity();
}

// Both frames are the joint's frame at load (the anchor; the axis as z for a hinge, as x for a
// slider) in each body's frame. The bodies' order makes Bullet's coordinates Coulomb's (a relative
// to b), so that the limits carry over as they are: Bullet's hinge angle (useReferenceFrameA =
// false) is its first body's turn relative to its second, so a comes first; its slider position
// is the second frame's origin relative to the first's, along the first's x, so b comes first.
void BulletWorld::add_joint(const coulomb::JointDef& d) {
  using coulomb::JointType;
  const btVector3 anchor = bt(d.anchor), n = bt(d.axis).normalized();
  btVector3 u, unused;
  btPlaneSpace1(n, u, unused);
  const btVector3 w = n.cross(u);
  btMatrix3x3 basis = btMatrix3x3::getIdentity();
  if (d.type == JointType::Hinge)  // columns u, w, n
    basis.setValue(u.x(), w.x(), n.x(), u.y(), w.y(), n.y(), u.z(), w.z(), n.z());
  else if (d.type == JointType::Prismatic)  // columns n, u, w
    basis.setValue(n.x(), u.x(), w.x(), n.y(), u.y(), w.y(), n.z(), u.z(), w.z());
  const btTransform frame(basis, anchor);
  const btTransform in_a = pose(d.a).inverse() * frame, in_b = pose(d.b).inverse() * frame;
  btRigidBody &ra = side(d.a), &rb = side(d.b);

  std::unique_ptr<btTypedConstraint> c;
  switch (d.type) {
    case JointType::Ball:
      c = std::make_unique<btPoint2PointConstraint>(ra, rb, in_a.getOrigin(), in_b.getOrigin());
      break;
    case JointType::Hinge: {
      auto h = std::make_unique<btHingeConstraint>(ra, rb, in_a, in_b, false);
      if (d.limited) h->setLimit(d.lo, d.hi);
      c = std::move(h);
      break;
    }
    case JointType::Prismatic: {
      auto s = std::make_unique<btSliderConstraint>(rb, ra, in_b, in_a, true);
      // lower > upper leaves the slide free; the turn about the axis is locked
      s->setLowerLinLimit(d.limited ? d.lo : 1.0);
      s->setUpperLinLimit(d.limited ? d.hi : -1.0);
      s->setLowerAngLimit(0.0);
      s->setUpperAngLimit(0.0);
      c = std::move(s);
      break;
    }
    case JointType::Fixed:
      c = std::make_unique<btFixedConstraint>(ra, rb, in_a, in_b);
      break;
  }
  // jointed bodies do not collide unless the joint says so (Coulomb's drop_jointed_contacts);
  // the world side is in no broadphase, so it needs no filter
  world_->addConstraint(c.get(), !d.collide && d.a >= 0 && d.b >= 0);
  constraints_.push_back(std::move(c));
  joints_.push_back(Joint{d.type, d.a, d.b, in_a.getOrigin(), in_b.getOrigin(), pose(d.a).getBasis().transpose() * n});
}

void BulletWorld::apply_effort(int actuator, double command) {
  if (actuator < 0 || actuator >= actuator_count())
    throw std::out_of_range("BulletWorld::apply_effort: actuator " + std::to_string(actuator) + " is out of range (valid: 0.." +
                            std::to_string(actuator_count() - 1) + ")");
  const coulomb::ActuatorDef& d = scene_.actuators[std::size_t(actuator)];
  const double tau = std::clamp(command, -d.max_effort, d.max_effort);
  const Joint& j = joints_[std::size_t(d.joint)];
  const btTransform ta = pose(j.a), tb = pose(j.b);
  const btVector3 n = ta.getBasis() * j.axis_a;
  btRigidBody* a = j.a >= 0 && !bodies_[std::size_t(j.a)]->isStaticObject() ? bodies_[std::size_t(j.a)].get() : nullptr;
  btRigidBody* b = j.b >= 0 && !bodies_[std::size_t(j.b)]->isStaticObject() ? bodies_[std::size_t(j.b)].get() : nullptr;
  if (j.type == coulomb::JointType::Hinge) {
    if (a) a->applyTorque(tau * n);
    if (b) b->applyTorque(-tau * n);
  } else if (j.type == coulomb::JointType::Prismatic) {
    const btVector3 p = tb * j.anchor_b;  // Coulomb's J^T tau: the force acts at b's anchor on both
    if (a) a->applyForce(tau * n, p - ta.getOrigin());
    if (b) b->applyForce(-tau * n, p - tb.getOrigin());
  }
}

double BulletWorld::joint_position(int j) {
  const Joint& k = joints_.at(std::size_t(j));
  if (k.type == coulomb::JointType::Hinge) return static_cast<btHingeConstraint&>(*constraints_[std::size_t(j)]).getHingeAngle();
  if (k.type != coulomb::JointType::Prismatic) return 0.0;
  const btTransform ta = pose(k.a);
  return (ta * k.anchor_a - pose(k.b) * k.anchor_b).dot(ta.getBasis() * k.axis_a);
}

double BulletWorld::joint_gap(int j) const {
  const Joint& k = joints_.at(std::size_t(j));
  const btTransform ta = pose(k.a);
  btVector3 d = ta * k.anchor_a - pose(k.b) * k.anchor_b;
  if (k.type == coulomb::JointType::Prismatic) {
    const btVector3 n = ta.getBasis() * k.axis_a;
    d -= d.dot(n) * n;
  }
  return d.length();
}

const coulomb::ContactCoefficients& BulletWorld::coefficients(const btCollisionObject* a,
                                                              const btCollisionObject* b) const {
  const std::size_t nm = scene_.materials.size();
  const auto ma = std::size_t(model_.material[std::size_t(a->getUserIndex())]);
  const auto mb = std::size_t(model_.material[std::size_t(b->getUserIndex())]);
  return pair_coeffs_[ma * nm + mb];
}

void BulletWorld::step() { world_->stepSimulation(scene_.dt, 1, scene_.dt); }

void BulletWorld::read_state(coulomb::RigidState& out) const {
  out.resize(int(bodies_.size()));
  for (std::size_t k = 0; k < bodies_.size(); ++k) {
    const btRigidBody& b = *bodies_[k];
    const btQuaternion q = b.getOrientation();
    out.x[k] = cv(b.getCenterOfMassPosition());
    out.q[k] = coulomb::Quat(q.w(), q.x(), q.y(), q.z());
    out.v[k] = cv(b.getLinearVelocity());
    out.w[k] = cv(b.getAngularVelocity());
  }
}

template <class T, class... Args>
T* BulletWorld::keep(Args&&... args) {
  auto p = std::make_unique<T>(std::forward<Args>(args)...);
  T* raw = p.get();
  shapes_.push_back(std::move(p));
  return raw;
}

btCollisionShape* BulletWorld::empty_shape() {
  auto p = std::make_unique<btEmptyShape>();
  btCollisionShape* raw = p.get();
  shapes_.push_back(std::move(p));
  return raw;
}

// The Bullet shape of library shape `id` placed at `frame` (the shape frame in the body frame).
btCollisionShape* BulletWorld::shape(int id, const Pose& frame, bool is_static) {
  const Shape& s = scene_.shapes[id];
  switch (s.type) {
    case ShapeType::Convex: {
      auto* hull = keep<btConvexHullShape>();
      for (const Vec3& v : s.hull.vertices) hull->addPoint(bt(frame.apply(v)), false);
      hull->recalcLocalAabb();
      hull->setMargin(kHullMargin);
      return hull;
    }
    case ShapeType::Mesh:
      return mesh(*s.mesh, frame, is_static);
    case ShapeType::Compound: {
      auto* compound = keep<btCompoundShape>();
      for (const coulomb::CompoundChild& c : s.children) compound->addChildShape(bt(frame * c.pose), shape(c.shape, {}, is_static));
      return compound;
    }
    case ShapeType::Plane: {
      const Vec3 n = frame.rotate(s.normal);
      return keep<btStaticPlaneShape>(bt(n), s.offset + n.dot(frame.p));
    }
    default: {
      btCollisionShape* p = primitive(s);
      if (is_identity(frame)) return p;
      auto* wrapper = keep<btCompoundShape>();
      wrapper->addChildShape(bt(frame), p);
      return wrapper;
    }
  }
}

btCollisionShape* BulletWorld::primitive(const Shape& s) {
  switch (s.type) {
    case ShapeType::Sphere:
      return keep<btSphereShape>(s.radius);
    case ShapeType::Box: {
      auto* box = keep<btBoxShape>(bt(s.half_extents));
      box->setMargin(margin_for(s.half_extents.minCoeff()));
      return box;
    }
    case ShapeType::Capsule:
      return keep<btCapsuleShapeZ>(s.radius, 2.0 * s.half_height);
    case ShapeType::Cylinder: {
      auto* cyl = keep<btCylinderShapeZ>(btVector3(s.radius, s.radius, s.half_height));
      cyl->setMargin(margin_for(std::min(s.radius, s.half_height)));
      return cyl;
    }
    default:
      throw std::logic_error(std::string("no Bullet primitive for shape type ") + coulomb::shape_type_name(s.type));
  }
}

// Static meshes: a BVH triangle mesh; moving ones: GImpact (Bullet's only dynamic concave shape).
btCollisionShape* BulletWorld::mesh(const coulomb::TriMesh& m, const Pose& frame, bool is_static) {
  std::vector<double>& v = mesh_vertices_.emplace_back();
  std::vector<int>& idx = mesh_indices_.emplace_back();
  for (const Vec3& p : m.vertices) {
    const Vec3 q = frame.apply(p);
    v.insert(v.end(), {q.x(), q.y(), q.z()});
  }
  for (const auto& t : m.triangles) idx.insert(idx.end(), {t[0], t[1], t[2]});
  auto arr = std::make_unique<btTriangleIndexVertexArray>(int(m.triangles.size()), idx.data(), int(3 * sizeof(int)),
                                                          int(m.vertices.size()), v.data(), int(3 * sizeof(double)));
  btStridingMeshInterface* iface = arr.get();
  mesh_arrays_.push_back(std::move(arr));
  if (is_static) return keep<btBvhTriangleMeshShape>(iface, true);
  auto* g = keep<btGImpactMeshShape>(iface);
  g->setMargin(kHullMargin);
  g->updateBound();
  return g;
}

}  // namespace bench
