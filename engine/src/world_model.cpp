// Building the World's model from a validated scene (world_model.h): bodies and their mass
// properties at their start poses, bounding radii, the material pair table, soft bodies, the
// collision filter, and, once the overlaps at load are settled, the joints and attachments.
#include <coulomb/element_constraint.h>
#include <coulomb/error.h>
#include <coulomb/mass_properties.h>
#include <coulomb/world.h>

#include "scene_reader.h"
#include "world_mass.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace coulomb {

void renumber_bodies(SceneDef& scene, const std::vector<int>& order, WorldModel& m);  // body_order.cpp

std::vector<ContactCoefficients> material_pair_table(const SceneDef& scene) {
  const std::size_t nm = scene.materials.size();
  const CombineRule f = scene.friction_combine, e = scene.restitution_combine;
  std::vector<ContactCoefficients> table(nm * nm);
  for (std::size_t a = 0; a < nm; ++a)
    for (std::size_t b = 0; b < nm; ++b) {
      const MaterialDef &x = scene.materials[a], &y = scene.materials[b];
      ContactCoefficients& c = table[a * nm + b];
      c.mu = Vec3(combine(f, x.friction_s, y.friction_s), combine(f, x.friction_t, y.friction_t),
                  combine(f, x.torsional_friction, y.torsional_friction));
      c.restitution = combine(e, x.restitution, y.restitution);
    }
  for (const ContactMaterialDef& cm : scene.contact_materials) {
    const ContactCoefficients c{Vec3(cm.friction_s, cm.friction_t, cm.torsional_friction), cm.restitution};
    table[std::size_t(cm.a) * nm + std::size_t(cm.b)] = c;
    table[std::size_t(cm.b) * nm + std::size_t(cm.a)] = c;
  }
  return table;
}

namespace {

// The rigid bodies: mass properties, the body frame at the centre of mass, the start state.
void build_rigid_bodies(const SceneDef& scene, WorldModel& m, RigidState& state) {
  const std::size_t nb = scene.bodies.size();
  state.resize(int(nb));
  for (std::size_t i = 0; i < nb; ++i) {
    const BodyDef& d = scene.bodies[i];
    const std::string where = d.pointer.empty() ? "/bodies/" + std::to_string(i) : d.pointer;
    const Pose shape_world{d.position, d.orientation.normalized()};
    Pose body_in_shape;
    Vec3 moments = Vec3::Zero();
    double mass = 0.0;
    if (!d.fixed && !d.kinematic) detail::body_mass(scene, d, where, mass, moments, body_in_shape);
    m.rigid.add(d.name, d.shape, d.material, d.fixed || d.kinematic, mass, moments, body_in_shape.inverse());
    m.rigid.kinematic[i] = d.kinematic ? 1 : 0;
    const Pose body_world = shape_world * body_in_shape;
    state.x[i] = body_world.p;
    state.q[i] = body_world.q;
    if (!d.fixed) {
      state.w[i] = d.angular_velocity;
      state.v[i] = d.velocity + d.angular_velocity.cross(body_world.p - shape_world.p);
    }
    detail::check_finite_start(scene, d, where, body_world, state.v[i], state.w[i], mass, moments);
    if (d.kinematic && scene.sleep.enabled)
      throw InputError(where, "body '" + d.name + "' is kinematic: sleeping islands (\"sleep\") do not watch kinematic "
                                "bodies, so one could move into a sleeping pile without waking it; turn sleep off");
  }
  // the smallest impulse that matters: the lightest body's weight over one step
  for (std::size_t i = 0; i < nb; ++i)
    if (!m.rigid.fixed[i]) {
      const double w = m.rigid.mass[i] * scene.gravity.norm() * scene.dt;
      if (w > 0.0 && (m.impulse_scale == 0.0 || w < m.impulse_scale)) m.impulse_scale = w;
    }
}

// Radius of a sphere about each body's centre of mass that holds its shape, and about its shape
// frame's origin.
void bounding_radii(const SceneDef& scene, WorldModel& m) {
  const RigidModel& rigid = m.rigid;
  const std::size_t nb = std::size_t(rigid.size());
  m.bound_radius.resize(nb);
  m.shape_radius.assign(nb, 0.0);
  for (std::size_t i = 0; i < nb; ++i) {
    if (rigid.shape[i] < 0) {
      // no shape: its size, for the checks that scale with it (a joint's tear, the health
      // check), is its radius of gyration about its weakest axis or its shape frame's distance
      // from the centre of mass (an imported link's frame sits at its joint), the larger
      const double gyration = rigid.fixed[i] ? 0.0 : std::sqrt(rigid.inertia[i].maxCoeff() / rigid.mass[i]);
      m.bound_radius[i] = std::max(gyration, rigid.shape_in_body[i].p.norm());
      continue;
    }
    const Aabb own = scene.shapes.aabb(rigid.shape[i], Pose(), 0.0);  // infinite for a plane
    m.shape_radius[i] = own.lo.cwiseAbs().cwiseMax(own.hi.cwiseAbs()).norm();
    if (rigid.fixed[i]) continue;
    const Aabb box = scene.shapes.aabb(rigid.shape[i], rigid.shape_in_body[i], 0.0);
    m.bound_radius[i] = box.lo.cwiseAbs().cwiseMax(box.hi.cwiseAbs()).norm();
  }
}

// Soft bodies: Young's modulus and Poisson ratio mean the same small-strain stiffness for every
// model (stable Neo-Hookean linearises to (mu, lambda - mu), so it gets lambda + mu). Each takes
// its mesh out of the scene.
void build_soft_bodies(SceneDef& scene, std::vector<SoftBody>& soft) {
  for (std::size_t i = 0; i < scene.soft_bodies.size(); ++i) {
    SoftBodyDef& d = scene.soft_bodies[i];
    const MaterialDef& mat = scene.materials[std::size_t(d.material)];
    const std::string ptr = "/soft_bodies/" + std::to_string(i);
    const MaterialModel model = parse_material_model(mat.model).value_or(MaterialModel::Corotational);
    Lame lame = lame_from_young(mat.young, mat.poisson);
    if (model == MaterialModel::NeoHookean) lame = stable_neo_hookean_lame(lame);
    if (!constraint_form_supported(model, lame))
      throw InputError(ptr + "/material", "material '" + mat.name + "': young and poisson give no valid " + mat.model +
                                              " material");
    try {
      soft.push_back(make_soft_body(d.name, d.material, model, lame, mat.damping, std::move(d.mesh), mat.density,
                                    d.velocity, d.pinned));
    } catch (const std::invalid_argument& e) {
      throw InputError(ptr + "/mesh", e.what());
    }
    double mass = 0.0;
    for (double x : soft.back().mass) mass += x;
    if (!(mass >= detail::kMinMass && mass <= detail::kMaxMass))
      throw InputError(ptr, "soft body '" + d.name + "' has a mass of " + detail::show(mass) + " kg, outside the range [" +
                                detail::show(detail::kMinMass) + ", " + detail::show(detail::kMaxMass) +
                                "] kg that a double-precision contact solve can simulate");
    d.mesh = TetMesh{};  // the World's copy is the soft body's
  }
}

// Pairs that do not collide: bodies joined by a joint unless it says so (drop_jointed_contacts)
// and the pairs of collision.exclude; and the collision filter (contype, conaffinity), handed to
// detection only when some body needs it.
void collision_filter(SceneDef& scene, WorldModel& m) {
  for (const JointDef& d : scene.joints)
    if (d.b >= 0 && !d.collide) m.jointed_pairs.emplace_back(std::min(d.a, d.b), std::max(d.a, d.b));
  std::sort(scene.excluded_pairs.begin(), scene.excluded_pairs.end());
  m.jointed_pairs.insert(m.jointed_pairs.end(), scene.excluded_pairs.begin(), scene.excluded_pairs.end());
  std::sort(m.jointed_pairs.begin(), m.jointed_pairs.end());
  m.jointed_pairs.erase(std::unique(m.jointed_pairs.begin(), m.jointed_pairs.end()), m.jointed_pairs.end());
  for (const BodyDef& d : scene.bodies) {
    m.contype.push_back(d.contype);
    m.conaffinity.push_back(d.conaffinity);
    m.filtered = m.filtered || d.shape < 0 || d.contype != 1 || d.conaffinity != 1;
  }
}

}  // namespace

void build_world_model(SceneDef& scene, bool spatial_numbering, WorldModel& m, RigidState& state,
                       std::vector<SoftBody>& soft) {
  renumber_bodies(scene, spatial_numbering ? spatial_body_order(scene) : scene_order_of(scene), m);
  build_rigid_bodies(scene, m, state);
  bounding_radii(scene, m);
  m.pair_coeffs = material_pair_table(scene);
  build_soft_bodies(scene, soft);
  collision_filter(scene, m);
}

// Rigid joints: anchor and axis from the world into each body's frame (centre of mass,
// principal axes), so that the joint holds at the current pose. Drives come from the actuators
// (World::init_control).
void bind_constraints(const SceneDef& scene, const RigidState& state, const std::vector<SoftBody>& soft,
                      WorldModel& m) {
  for (const JointDef& d : scene.joints) {
    JointConstraint j;
    j.type = d.type;
    j.a = d.a;
    j.b = d.b;
    const auto frame = [&](int body) { return body >= 0 ? state.body_pose(body) : Pose{}; };
    const Pose pa = frame(d.a), pb = frame(d.b);
    j.anchor_a = pa.apply_inverse(d.anchor);
    j.anchor_b = pb.apply_inverse(d.anchor);
    j.axis_a = pa.q.conjugate() * d.axis;
    j.u1_a = j.axis_a.unitOrthogonal();
    j.u2_a = j.axis_a.cross(j.u1_a);
    j.axis_b = pb.q.conjugate() * d.axis;
    j.u1_b = pb.q.conjugate() * (pa.q * j.u1_a);
    j.rel = pa.q.conjugate() * pb.q;
    j.reference = d.position;
    j.angle_ref = d.position;
    j.damping = d.damping;
    j.armature = d.armature;
    j.friction = d.friction;
    j.limited = d.limited;
    j.lo = d.lo;
    j.hi = d.hi;
    j.compliance = d.compliance;
    j.angular_compliance = d.angular_compliance >= 0.0 ? d.angular_compliance : d.compliance;
    m.joints.push_back(j);
  }
  for (const AttachDef& a : scene.attachments)
    for (int v : a.vertices) {
      VertexAttachment va{a.soft, v, a.body, soft[std::size_t(a.soft)].x[std::size_t(v)]};
      if (a.body >= 0) va.anchor = state.body_pose(a.body).apply_inverse(va.anchor);
      m.attachments.push_back(va);
    }
}

}  // namespace coulomb
