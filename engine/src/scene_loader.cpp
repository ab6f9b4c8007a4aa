// Scene loading and validation: JSON (../shared/SCENE_FORMAT.md) -> SceneDef.
//
// Why: a scene is the user's main input, so it must be strict to check. Each section has one
// parse function that (1) reads every key through an ObjectReader (scene_reader.h), which checks
// type and range and throws InputError at the value's JSON pointer, (2) calls finish() to reject
// unknown keys, then (3) checks rules that span several keys. Names (materials, shapes, bodies)
// are resolved to indices here, so the World never sees a string lookup. The first mistake
// stops loading; nothing is simulated from a half-checked scene.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/solver.h>

#include "scene_generators.h"
#include "scene_reader.h"
#include "scene_soft.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <numbers>
#include <random>
#include <unordered_map>

namespace coulomb {

using detail::grid_poses;
using detail::parse_shapes;
using detail::random_poses;
using detail::RandomParams;
namespace {

namespace fs = std::filesystem;
using detail::as_array;
using detail::as_int;
using detail::as_int3;
using detail::as_string;
using detail::as_uint64;
using detail::as_vec3;
using detail::child_pointer;
using detail::lookup;
using detail::non_empty;
using detail::show;
using detail::Json;
using detail::ObjectReader;
using detail::Range;
namespace limit = detail::limit;
using L = SceneLimits;

constexpr const char* kFormat = "coulomb-scene/1";
// SCENE_FORMAT.md names "prox-gs" as the default; it becomes the default once it is registered.
constexpr const char* kDefaultSolver = "prox-gs";  // SCENE_FORMAT.md
// Memory guard (issue 11: a 400-byte grid scene needed 4.75 GB): a simulated rigid body costs
// about 3.2 KB (measured: one step of a grid of 1e6 spheres peaked at 3.17 GB resident), and a
// scene may use up to kMemoryBudget.
constexpr double kBytesPerBody = 3.2e3;
constexpr double kMemoryBudget = 4.0 * (1u << 30);  // (unit: bytes)
constexpr int kMaxBodies = int(kMemoryBudget / kBytesPerBody);

constexpr std::array<std::string_view, 3> kIntegratorNames{"moreau", "implicit-euler", "semi-implicit"};
constexpr std::array<std::string_view, 3> kStabilizationNames{"none", "post", "baumgarte"};
constexpr std::array<std::string_view, 4> kMaterialModels{"linear", "corotational", "stvk", "neo-hookean"};
constexpr std::array<std::string_view, 2> kGeneratorTypes{"grid", "random"};
enum GeneratorType { kGrid = 0, kRandom = 1 };

// ---------------------------------------------------------------------------------------------
// materials

// `friction` (isotropic) or both `friction_s` and `friction_t` (anisotropic), as given
struct FrictionKeys {
  std::optional<double> iso, s, t;
};

FrictionKeys read_friction(ObjectReader& r) {
  return {r.optional_number("friction", limit::coefficient()), r.optional_number("friction_s", limit::coefficient()),
          r.optional_number("friction_t", limit::coefficient())};
}

// overwrites (fs, ft) with what the keys say; leaves them alone when no key is given
void resolve_friction(const FrictionKeys& k, const ObjectReader& r, double& fs, double& ft) {
  if (k.iso && (k.s || k.t))
    throw InputError(r.pointer_of(k.s ? "friction_s" : "friction_t"),
                     "cannot be combined with 'friction'; give either 'friction' (isotropic) or both "
                     "'friction_s' and 'friction_t' (anisotropic)");
  if (k.s.has_value() != k.t.has_value())
    throw InputError(r.pointer_of(k.s ? "friction_t" : "friction_s"),
                     "missing: anisotropic friction needs both 'friction_s' and 'friction_t'");
  if (k.iso) fs = ft = *k.iso;
  if (k.s) {
    fs = *k.s;
    ft = *k.t;
  }
}

MaterialDef parse_material(const std::string& name, const Json& j, const std::string& pointer) {
  ObjectReader r(j, pointer);
  MaterialDef m;
  m.name = name;
  m.density = r.number("density", m.density, Range::positive().capped(L::kDensity, "kg/m^3"));
  FrictionKeys friction = read_friction(r);
  m.torsional_friction = r.number("torsional_friction", m.torsional_friction, limit::distance());
  m.restitution = r.number("restitution", m.restitution, Range::closed(0.0, 1.0));
  m.young = r.number("young", m.young, Range::positive().capped(L::kStiffness, "Pa"));
  m.poisson = r.number("poisson", m.poisson, Range::open(-1.0, 0.5));
  m.model = std::string(kMaterialModels[std::size_t(r.choice("model", kMaterialModels, 1))]);
  m.damping = r.number("damping", m.damping, Range::non_negative().capped(L::kTime, "s"));
  r.finish();
  resolve_friction(friction, r, m.friction_s, m.friction_t);
  return m;
}

// index 0 is always "default" (its values replaced when the scene defines "default"); the
// others follow in key order
void parse_materials(ObjectReader& top, SceneDef& scene) {
  scene.materials.assign(1, MaterialDef{});
  scene.materials[0].name = "default";
  const Json* j = top.find("materials");
  if (!j) return;
  ObjectReader map(*j, "/materials");  // a map of names: every key is valid
  for (const auto& item : j->items()) {
    MaterialDef m = parse_material(item.key(), item.value(), map.pointer_of(item.key()));
    if (item.key() == "default") scene.materials[0] = m;
    else scene.materials.push_back(m);
  }
}

std::vector<std::string> material_names(const SceneDef& scene) {
  std::vector<std::string> names;
  for (const MaterialDef& m : scene.materials) names.push_back(m.name);
  return names;
}

// unspecified pair values fall back to the scene's combine rules (collision.friction_combine,
// collision.restitution_combine) over the two materials
void parse_contact_materials(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("contact_materials");
  if (!j) return;
  as_array(*j, "/contact_materials");
  const std::vector<std::string> names = material_names(scene);
  std::map<std::pair<int, int>, std::string> seen;  // pair -> pointer of its entry
  for (std::size_t k = 0; k < j->size(); ++k) {
    ObjectReader r((*j)[k], child_pointer("/contact_materials", k));
    int a = lookup(r.required_string("a"), names, r.pointer_of("a"), "material", "materials");
    int b = lookup(r.required_string("b"), names, r.pointer_of("b"), "material", "materials");
    const MaterialDef& ma = scene.materials[std::size_t(a)];
    const MaterialDef& mb = scene.materials[std::size_t(b)];
    ContactMaterialDef c;
    c.a = std::min(a, b);
    c.b = std::max(a, b);
    const CombineRule f = scene.friction_combine;
    c.friction_s = combine(f, ma.friction_s, mb.friction_s);
    c.friction_t = combine(f, ma.friction_t, mb.friction_t);
    FrictionKeys friction = read_friction(r);
    c.torsional_friction =
        r.number("torsional_friction", combine(f, ma.torsional_friction, mb.torsional_friction), limit::distance());
    c.restitution = r.number("restitution", combine(scene.restitution_combine, ma.restitution, mb.restitution),
                             Range::closed(0.0, 1.0));
    r.finish();
    resolve_friction(friction, r, c.friction_s, c.friction_t);
    auto [it, fresh] = seen.emplace(std::make_pair(c.a, c.b), r.pointer());
    if (!fresh)
      throw InputError(r.pointer(), "the pair ('" + ma.name + "', '" + mb.name + "') is already given at " + it->second);
    scene.contact_materials.push_back(c);
  }
}

// ---------------------------------------------------------------------------------------------
// bodies and generators

// body names in use -> the pointer of the entry that introduced them
using detail::NameTable;

void check_dynamic_shape(const SceneDef& scene, const BodyDef& b, const std::string& pointer) {
  if (!b.fixed && b.shape >= 0 && scene.shapes[b.shape].type == ShapeType::Plane)
    throw InputError(pointer, "plane shape '" + scene.shape_names[std::size_t(b.shape)] +
                                  "' can only be used by a fixed body (\"fixed\": true)");
}

// `inertia`: 3 principal moments about the shape's axes, or the tensor's 6 entries [Ixx, Iyy, Izz,
// Ixy, Ixz, Iyz] (URDF's ixx..iyz, MuJoCo's fullinertia), which the World diagonalises
void parse_inertia(const Json& j, const std::string& ptr, BodyDef& b) {
  if (j.is_array() && j.size() == 6) {
    Vec3 diagonal, products;
    for (int i = 0; i < 3; ++i) diagonal[i] = as_number(j[std::size_t(i)], child_pointer(ptr, std::size_t(i)), Range::positive());
    for (int i = 0; i < 3; ++i)
      products[i] = as_number(j[std::size_t(i + 3)], child_pointer(ptr, std::size_t(i + 3)), Range::any());
    b.inertia = diagonal;
    b.inertia_products = products;
    return;
  }
  if (!j.is_array() || j.size() != 3)
    throw InputError(ptr, "expected 3 principal moments [Ixx, Iyy, Izz] or a tensor's 6 entries [Ixx, Iyy, Izz, Ixy, Ixz, Iyz]");
  b.inertia = as_vec3(j, ptr, Range::positive());
}

// contype, conaffinity: an unsigned 32-bit mask, default 1
std::uint32_t parse_collision_bits(ObjectReader& r, std::string_view key) {
  const Json* j = r.find(key);
  if (!j) return 1;
  // a signed or an unsigned JSON integer (a document built by a program may hold either)
  const bool fits = (j->is_number_unsigned() && j->get<std::uint64_t>() <= 0xffffffffull) ||
                    (j->is_number_integer() && j->get<std::int64_t>() >= 0 && j->get<std::int64_t>() <= 0xffffffffll);
  if (!fits) throw InputError(r.pointer_of(key), "expected an integer from 0 to 4294967295 (32 bits), got " + j->dump());
  return std::uint32_t(j->get<std::uint64_t>());
}

// `visual`: what the viewer draws in place of the collision shape (scenes/README.md)
std::vector<VisualDef> parse_visuals(const Json& j, const std::string& ptr, const SceneDef& scene,
                                     const fs::path& base_dir) {
  as_array(j, ptr);
  std::vector<VisualDef> visuals;
  for (std::size_t k = 0; k < j.size(); ++k) {
    ObjectReader r(j[k], child_pointer(ptr, k));
    VisualDef v;
    if (r.has("shape") == r.has("mesh"))
      throw InputError(r.pointer(), "a visual gives either \"shape\" (a name of shapes) or \"mesh\" (a mesh file)");
    if (r.has("shape")) {
      v.shape = lookup(r.required_string("shape"), scene.shape_names, r.pointer_of("shape"), "shape", "shapes");
      if (scene.shapes[v.shape].type == ShapeType::Plane)
        throw InputError(r.pointer_of("shape"), "a plane cannot be a visual shape (it is infinite)");
    } else {
      const detail::MeshFileKeys keys = detail::parse_mesh_file_keys(r, "mesh", base_dir);
      auto mesh = std::make_shared<TriangleMesh>(detail::read_scaled_mesh(keys));
      if (mesh->triangles.empty()) throw InputError(keys.pointer, "'" + keys.name + "' has no triangles to draw");
      for (std::size_t i = 0; i < mesh->vertices.size(); ++i)
        if (!mesh->vertices[i].allFinite())
          throw InputError(keys.pointer, "'" + keys.name + "': vertex " + std::to_string(i) + " is not finite");
      v.mesh = std::move(mesh);
    }
    v.position = r.vec3("position", v.position, limit::coordinate());
    v.orientation = r.quat("orientation", v.orientation);
    if (const Json* c = r.find("color")) {
      const std::string cp = r.pointer_of("color");
      if (!c->is_array() || (c->size() != 3 && c->size() != 4))
        throw InputError(cp, "expected [red, green, blue] or [red, green, blue, alpha], each in [0, 1]");
      std::array<double, 4> rgba{0.0, 0.0, 0.0, 1.0};
      for (std::size_t i = 0; i < c->size(); ++i) rgba[i] = as_number((*c)[i], child_pointer(cp, i), Range::closed(0.0, 1.0));
      v.color = rgba;
    }
    r.finish();
    visuals.push_back(v);
  }
  return visuals;
}

void parse_bodies(ObjectReader& top, SceneDef& scene, NameTable& names, const fs::path& base_dir) {
  const Json* j = top.find("bodies");
  if (!j) return;
  as_array(*j, "/bodies");
  const std::vector<std::string> materials = material_names(scene);
  for (std::size_t k = 0; k < j->size(); ++k) {
    ObjectReader r((*j)[k], child_pointer("/bodies", k));
    BodyDef b;
    b.name = non_empty(r.required_string("name"), r.pointer_of("name"));
    if (r.has("shape"))  // optional: a body without one has no collision geometry (an imported link's inertial)
      b.shape = lookup(r.required_string("shape"), scene.shape_names, r.pointer_of("shape"), "shape", "shapes");
    b.material = lookup(r.string("material", "default"), materials, r.pointer_of("material"), "material", "materials");
    b.position = r.vec3("position", b.position, limit::coordinate());
    b.orientation = r.quat("orientation", b.orientation);
    b.velocity = r.vec3("velocity", b.velocity, limit::velocity());
    b.angular_velocity = r.vec3("angular_velocity", b.angular_velocity, limit::angular_velocity());
    b.fixed = r.boolean("fixed", b.fixed);
    b.kinematic = r.boolean("kinematic", false);
    if (b.fixed && b.kinematic)
      throw InputError(r.pointer_of("kinematic"), "a body is fixed or kinematic, not both (a kinematic body moves)");
    b.mass = r.optional_number("mass", Range::positive());
    if (const Json* inertia = r.find("inertia")) parse_inertia(*inertia, r.pointer_of("inertia"), b);
    if (const Json* com = r.find("center_of_mass")) {
      b.center_of_mass = as_vec3(*com, r.pointer_of("center_of_mass"), limit::coordinate());
      if (!b.mass || !b.inertia)
        throw InputError(r.pointer_of("center_of_mass"), "a centre of mass needs \"mass\" and \"inertia\" too (the "
                                                         "shape's inertia is not about that point)");
    }
    if (b.shape < 0 && !b.fixed && !b.kinematic && (!b.mass || !b.inertia))
      throw InputError(r.pointer(), "body '" + b.name + "' has no \"shape\": a moving body without one needs \"mass\" and \"inertia\"");
    b.contype = parse_collision_bits(r, "contype");
    b.conaffinity = parse_collision_bits(r, "conaffinity");
    if (const Json* visual = r.find("visual")) b.visuals = parse_visuals(*visual, r.pointer_of("visual"), scene, base_dir);
    r.finish();
    check_dynamic_shape(scene, b, r.pointer_of("shape"));
    b.pointer = r.pointer();
    auto [it, fresh] = names.emplace(b.name, r.pointer());
    if (!fresh) throw InputError(r.pointer_of("name"), "duplicate body name '" + b.name + "' (also used by " + it->second + ")");
    scene.bodies.push_back(std::move(b));
  }
}

void parse_generator(const Json& j, const std::string& pointer, SceneDef& scene, NameTable& names) {
  ObjectReader r(j, pointer);
  GeneratorType type = GeneratorType(r.required_choice("type", kGeneratorTypes));
  std::string prefix = non_empty(r.required_string("prefix"), r.pointer_of("prefix"));
  BodyDef proto;
  proto.shape = lookup(r.required_string("shape"), scene.shape_names, r.pointer_of("shape"), "shape", "shapes");
  proto.material = lookup(r.string("material", "default"), material_names(scene), r.pointer_of("material"),
                          "material", "materials");
  check_dynamic_shape(scene, proto, r.pointer_of("shape"));

  const std::int64_t room = kMaxBodies - std::int64_t(scene.bodies.size());
  const auto too_many = [&](std::int64_t count) {
    const double gb = double(count + std::int64_t(scene.bodies.size())) * kBytesPerBody / 1e9;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g GB", gb);
    return std::to_string(count) + " bodies (" + std::to_string(scene.bodies.size()) + " before them) need about " + buf +
           " to simulate (3.2 KB each); the limit is " + std::to_string(kMaxBodies) + " bodies (4 GiB) in a scene";
  };
  std::vector<Pose> poses;
  if (type == kGrid) {
    std::array<int, 3> n = as_int3(r.require("count"), r.pointer_of("count"), 1);
    Vec3 origin = r.vec3("origin", Vec3::Zero(), limit::coordinate());
    Vec3 spacing = r.required_vec3("spacing", limit::distance());
    Vec3 odd_row_offset = r.vec3("odd_row_offset", Vec3::Zero(), limit::coordinate());
    r.finish();
    // a zero spacing is fine along an axis with one body; with more it would stack them in place
    for (int a = 0; a < 3; ++a)
      if (spacing[a] == 0.0 && n[std::size_t(a)] > 1)
        throw InputError(r.pointer_of("spacing"), "spacing is 0 along an axis with " + std::to_string(n[std::size_t(a)]) +
                                                      " bodies: they would overlap");
    if (std::int64_t(n[0]) * n[1] * n[2] > room) throw InputError(r.pointer_of("count"), too_many(std::int64_t(n[0]) * n[1] * n[2]));
    // the farthest body within the length limit
    const Vec3 span = spacing.cwiseProduct(Vec3(n[0] - 1, n[1] - 1, n[2] - 1));
    const double far = (origin.cwiseAbs() + span + odd_row_offset.cwiseAbs()).maxCoeff();
    if (!(far <= L::kLength))
      throw InputError(r.pointer_of("spacing"), "the grid reaches " + show(far) + " m from the origin, beyond the scene limit of " +
                                                    show(L::kLength) + " m for lengths");
    poses = grid_poses(n, origin, spacing, odd_row_offset);
  } else {
    RandomParams q;
    q.count = as_int(r.require("count"), r.pointer_of("count"), 1);
    q.lo = r.required_vec3("box_min", limit::coordinate());
    q.hi = r.required_vec3("box_max", limit::coordinate());
    if (const Json* seed = r.find("seed")) q.seed = as_uint64(*seed, r.pointer_of("seed"));
    q.random_orientation = r.boolean("random_orientation", false);
    q.min_separation = r.number("min_separation", 0.0, limit::distance());
    r.finish();
    if (q.count > room) throw InputError(r.pointer_of("count"), too_many(q.count));
    if (!(q.lo.array() < q.hi.array()).all())
      throw InputError(r.pointer_of("box_max"), "expected box_max > box_min in every component");
    poses = random_poses(q, r.pointer_of("min_separation"));
  }

  // PREFIX_I in x-fastest, then y, then z order (the order of `poses`)
  for (std::size_t i = 0; i < poses.size(); ++i) {
    BodyDef b = proto;
    b.name = prefix + "_" + std::to_string(i);
    b.position = poses[i].p;
    b.orientation = poses[i].q;
    b.pointer = pointer;
    auto [it, fresh] = names.emplace(b.name, r.pointer());
    if (!fresh)
      throw InputError(r.pointer_of("prefix"), "generated body name '" + b.name + "' is already used by " + it->second);
    scene.bodies.push_back(std::move(b));
  }
}

void parse_generators(ObjectReader& top, SceneDef& scene, NameTable& names) {
  const Json* j = top.find("generators");
  if (!j) return;
  as_array(*j, "/generators");
  for (std::size_t k = 0; k < j->size(); ++k) parse_generator((*j)[k], child_pointer("/generators", k), scene, names);
}

// ---------------------------------------------------------------------------------------------
// simulation settings

void parse_time(ObjectReader& top, SceneDef& scene) {
  ObjectReader r(top.require("time"), "/time");
  scene.dt = r.required_number("dt", limit::duration());
  std::optional<double> duration = r.optional_number("duration", limit::duration());
  std::optional<int> steps = r.optional_integer("steps", 1);
  r.finish();
  if (duration && steps) throw InputError(r.pointer(), "give either 'duration' or 'steps', not both");
  if (!duration && !steps) throw InputError(r.pointer(), "missing 'duration' (unit: s) or 'steps'");
  if (steps) {
    scene.steps = *steps;
    return;
  }
  double n = std::round(*duration / scene.dt);
  if (n < 1.0) throw InputError(r.pointer_of("duration"), "shorter than half a time step (dt = " + show(scene.dt) + " s)");
  if (n > double(INT_MAX)) throw InputError(r.pointer_of("duration"), "too many steps for this dt");
  scene.steps = int(n);
}

// the type picks the registered solver, which then validates its own keys
void parse_solver(ObjectReader& top, SceneDef& scene) {
  Json solver = Json::object();
  if (const Json* j = top.find("solver")) {
    ObjectReader(*j, "/solver");  // only checks that it is an object
    solver = *j;
  }
  if (!solver.contains("type")) solver["type"] = kDefaultSolver;
  const std::string type = as_string(solver["type"], "/solver/type");
  const SolverInfo* info = find_solver(type);
  if (!info) throw InputError("/solver/type", "unknown solver \"" + type + "\" (available: " + solver_names() + ")");
  check_simulates_scenes(*info);
  scene.solver = type;
  scene.solver_options = parse_solver_options(*info, solver, "/solver");
}

void parse_stabilization(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("stabilization");
  if (!j) return;
  ObjectReader r(*j, "/stabilization");
  scene.stabilization = StabilizationType(r.required_choice("type", kStabilizationNames));
  if (scene.stabilization == StabilizationType::Baumgarte)
    scene.baumgarte_beta = r.number("beta", scene.baumgarte_beta, Range::left_open(0.0, 1.0));
  else if (j->contains("beta"))
    throw InputError(r.pointer_of("beta"), "'beta' is only used by \"baumgarte\" stabilization");
  r.finish();
}

constexpr std::array<std::string_view, 5> kCombineRules{"average", "min", "max", "multiply", "geometric"};
static_assert(int(CombineRule::Geometric) == 4);
constexpr std::array<std::string_view, 3> kInitialOverlap{"error", "warn", "resolve"};
static_assert(int(InitialOverlap::Resolve) == 2);

void parse_collision(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("collision");
  if (!j) return;
  ObjectReader r(*j, "/collision");
  scene.envelope = r.number("envelope", scene.envelope, limit::distance());
  scene.margin = r.number("margin", scene.margin, limit::distance());
  // rigid CCD: fast rigid bodies' motion is clamped at their first time of impact
  // (collision/README.md "Rigid CCD", engine/src/world_ccd.cpp)
  scene.ccd = r.boolean("ccd", scene.ccd);
  // soft self-contact and edge-edge contacts (collision/README.md "Soft contacts"); off by default
  scene.self_contacts = r.boolean("self_contacts", scene.self_contacts);
  scene.edge_edge = r.boolean("edge_edge", scene.edge_edge);
  scene.thickness = r.number("thickness", scene.thickness, limit::distance());
  // the material pair rules (read before the materials and contact_materials, which use them)
  scene.friction_combine = CombineRule(r.choice("friction_combine", kCombineRules, int(scene.friction_combine)));
  scene.restitution_combine = CombineRule(r.choice("restitution_combine", kCombineRules, int(scene.restitution_combine)));
  // bodies overlapping at load (World::initial_overlaps)
  scene.initial_overlap = InitialOverlap(r.choice("initial_overlap", kInitialOverlap, int(scene.initial_overlap)));
  scene.overlap_tolerance = r.number("overlap_tolerance", scene.overlap_tolerance, limit::distance());
  r.find("exclude");  // body pairs: read after the bodies (parse_exclude)
  r.finish();
}

// collision.exclude: [[name_a, name_b], ...] rigid body pairs that never collide (MuJoCo's
// contact/exclude)
void parse_exclude(const Json& doc, SceneDef& scene) {
  if (!doc.contains("collision") || !doc["collision"].is_object() || !doc["collision"].contains("exclude")) return;
  const std::string ptr = "/collision/exclude";
  const Json& j = as_array(doc["collision"]["exclude"], ptr);
  for (std::size_t k = 0; k < j.size(); ++k) {
    const std::string pp = child_pointer(ptr, k);
    if (!j[k].is_array() || j[k].size() != 2) throw InputError(pp, "expected [name_a, name_b], two rigid body names");
    int ids[2];
    for (std::size_t i = 0; i < 2; ++i) {
      const std::string& name = as_string(j[k][i], child_pointer(pp, i));
      ids[i] = -1;
      for (std::size_t b = 0; b < scene.bodies.size(); ++b)
        if (scene.bodies[b].name == name) ids[i] = int(b);
      if (ids[i] < 0) throw InputError(child_pointer(pp, i), "no rigid body is named '" + name + "'");
    }
    if (ids[0] == ids[1]) throw InputError(pp, "a pair needs two different bodies");
    scene.excluded_pairs.emplace_back(std::min(ids[0], ids[1]), std::max(ids[0], ids[1]));
  }
}

// `"sleep": true` (Box2D's and Jolt's defaults) or {"time", "linear", "angular"} (solvers/sleep.h)
void parse_sleep(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("sleep");
  if (!j) return;
  if (j->is_boolean()) {
    scene.sleep.enabled = j->get<bool>();
    return;
  }
  if (!j->is_object()) throw InputError("/sleep", "expected true, false or an object {\"time\", \"linear\", \"angular\"}");
  ObjectReader r(*j, "/sleep");
  scene.sleep.enabled = true;
  scene.sleep.time = r.number("time", scene.sleep.time, limit::duration());
  scene.sleep.linear = r.number("linear", scene.sleep.linear, Range::positive().capped(L::kSpeed, "m/s"));
  scene.sleep.angular = r.number("angular", scene.sleep.angular, Range::positive().capped(L::kSpeed, "rad/s"));
  r.finish();
}

void parse_output(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("output");
  if (!j) return;
  ObjectReader r(*j, "/output");
  scene.output_every = r.integer("every", scene.output_every, 1);
  scene.output_contacts = r.boolean("contacts", scene.output_contacts);
  r.finish();
}

}  // namespace

const char* combine_rule_name(CombineRule r) { return kCombineRules[std::size_t(r)].data(); }

double combine(CombineRule r, double a, double b) {
  switch (r) {
    case CombineRule::Average: return 0.5 * (a + b);
    case CombineRule::Min: return std::min(a, b);
    case CombineRule::Max: return std::max(a, b);
    case CombineRule::Multiply: return a * b;
    case CombineRule::Geometric: return std::sqrt(a * b);
  }
  return std::sqrt(a * b);
}

const char* integrator_name(IntegratorType t) {
  switch (t) {
    case IntegratorType::Moreau: return "moreau";
    case IntegratorType::ImplicitEuler: return "implicit-euler";
    case IntegratorType::SemiImplicit: return "semi-implicit";
  }
  return "unknown";
}

SceneDef parse_scene(const nlohmann::json& doc, const std::filesystem::path& base_dir) {
  ObjectReader top(doc, "");
  SceneDef scene;
  scene.base_dir = base_dir;

  const std::string format = as_string(top.require("format"), "/format");
  if (format != kFormat)
    throw InputError("/format", "unsupported format \"" + format + "\", expected \"" + kFormat + "\"");
  scene.name = top.string("name", "");
  scene.description = top.string("description", "");
  scene.gravity = top.vec3("gravity", scene.gravity, Range::within(L::kAcceleration, "m/s^2"));

  // how to step
  parse_time(top, scene);
  scene.integrator = IntegratorType(top.choice("integrator", kIntegratorNames, 0));
  parse_solver(top, scene);
  parse_stabilization(top, scene);
  parse_collision(top, scene);
  parse_sleep(top, scene);
  parse_output(top, scene);

  // what to simulate: each section refers only to the ones before it
  parse_materials(top, scene);
  parse_contact_materials(top, scene);
  parse_shapes(top, scene, base_dir);
  NameTable names;
  parse_bodies(top, scene, names, base_dir);
  parse_generators(top, scene, names);
  detail::parse_soft_bodies(top, scene, names);
  parse_exclude(doc, scene);
  detail::parse_joints(top, scene);
  detail::parse_actuators(top, scene);
  detail::check_solver_supports(scene);

  top.finish();
  return scene;
}

void apply_override(nlohmann::json& doc, const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  if (eq == std::string::npos)
    throw InputError("--set", "expected POINTER=VALUE (e.g. /solver/max_iterations=50), got \"" + assignment + "\"");
  const std::string pointer = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  if (pointer.empty() || pointer[0] != '/')
    throw InputError(pointer, "not a JSON pointer: it must start with '/' (e.g. /time/steps)");

  // split into reference tokens and unescape them (RFC 6901: ~1 is '/', ~0 is '~')
  std::vector<std::string> tokens;
  for (std::size_t start = 1;;) {
    const std::size_t slash = pointer.find('/', start);
    const std::string raw = pointer.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    std::string token;
    for (std::size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != '~') {
        token += raw[i];
        continue;
      }
      if (i + 1 == raw.size() || (raw[i + 1] != '0' && raw[i + 1] != '1'))
        throw InputError(pointer, "not a JSON pointer: '~' must be followed by 0 or 1");
      token += raw[++i] == '0' ? '~' : '/';
    }
    tokens.push_back(token);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }

  // VALUE is JSON when it parses as JSON, else a plain string (so --set /solver/type=pgs works)
  // (with the scene's checks: depth, range, duplicate keys; a syntax error means a string)
  Json value;
  try {
    value = detail::parse_json_text(text, "--set " + pointer);
  } catch (const InputError& e) {
    // not JSON (a syntax error): a plain string; a number out of range, a repeated key or
    // too deep nesting is an error at its place in the value
    if (e.message().rfind("invalid JSON", 0) == 0) value = text;
    else throw InputError(pointer + e.pointer(), e.message());
  }

  // walk down, creating missing object members
  Json* node = &doc;
  std::string walked;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::string& tok = tokens[t];
    const bool last = t + 1 == tokens.size();
    if (node->is_object()) {
      if (last) {
        (*node)[tok] = std::move(value);
        return;
      }
      auto it = node->find(tok);
      if (it == node->end()) it = node->emplace(tok, Json::object()).first;
      node = &*it;
    } else if (node->is_array()) {
      if (last && tok == "-") {
        node->push_back(std::move(value));
        return;
      }
      bool digits = !tok.empty() && std::all_of(tok.begin(), tok.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!digits || (tok.size() > 1 && tok[0] == '0') || tok.size() > 9)
        throw InputError(pointer, "'" + tok + "' is not an index into the array at " + (walked.empty() ? "/" : walked));
      std::size_t index = std::stoul(tok);
      if (index >= node->size())
        throw InputError(pointer, "index " + tok + " is out of range: the array at " + walked + " has " +
                                      std::to_string(node->size()) + " elements");
      if (last) {
        (*node)[index] = std::move(value);
        return;
      }
      node = &(*node)[index];
    } else {
      throw InputError(pointer, "cannot go through " + (walked.empty() ? std::string("the document") : walked) +
                                    ": it is " + std::string(node->type_name()) + ", not an object or array");
    }
    walked = child_pointer(walked, tok);
  }
}

nlohmann::json parse_scene_text(const std::string& text, const std::string& source) {
  return detail::parse_json_text(text, source);
}

nlohmann::json read_scene_file(const std::filesystem::path& file) {
  const std::string shown = "'" + file.string() + "'";
  std::error_code ec;
  auto status = fs::status(file, ec);
  if (ec || !fs::exists(status)) throw InputError("", "scene file not found: " + shown);
  if (fs::is_directory(status)) throw InputError("", shown + " is a folder, not a scene file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError("", "cannot read scene file " + shown + ": " + std::strerror(errno));
  // read at most one byte past the limit, so that /dev/zero or a huge file stops early
  std::string text;
  std::vector<char> chunk(1 << 20);
  while (in && text.size() <= kMaxSceneBytes) {
    in.read(chunk.data(), std::streamsize(chunk.size()));
    text.append(chunk.data(), std::size_t(in.gcount()));
  }
  if (text.size() > kMaxSceneBytes)
    throw InputError("", shown + " is larger than the limit of " + std::to_string(kMaxSceneBytes >> 20) +
                             " MiB for a scene file");
  if (in.bad()) throw InputError("", "cannot read scene file " + shown);
  return detail::parse_json_text(text, shown);
}

}  // namespace coulomb
