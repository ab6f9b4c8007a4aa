// Soft bodies and attach joints of a scene: meshing at load time, so that every mesh problem is
// reported with the JSON pointer of the value that caused it.
#include "scene_soft.h"

#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/solver.h>
#include <coulomb/tet_meshing.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>
#include <string_view>

namespace coulomb::detail {

namespace {

namespace fs = std::filesystem;

struct Selection {
  Vec3 lo, hi;
};

Selection parse_selection(const Json& j, const std::string& pointer) {
  ObjectReader r(j, pointer);
  Selection s{r.required_vec3("box_min"), r.required_vec3("box_max")};
  r.finish();
  if (!(s.lo.array() <= s.hi.array()).all())
    throw InputError(pointer, "box_min must not exceed box_max in any coordinate");
  return s;
}

std::vector<int> select(const Selection& s, const std::vector<Vec3>& x, const std::string& pointer) {
  std::vector<int> out;
  for (std::size_t i = 0; i < x.size(); ++i)
    if ((x[i].array() >= s.lo.array()).all() && (x[i].array() <= s.hi.array()).all()) out.push_back(int(i));
  if (out.empty()) throw InputError(pointer, "the selection box contains no vertex of the soft body");
  return out;
}

TetMesh parse_tet_mesh(const Json& j, const std::string& pointer, const fs::path& base_dir) {
  ObjectReader r(j, pointer);
  static constexpr std::array<std::string_view, 4> kTypes{"tetgen", "file", "box", "sphere"};
  const int type = r.required_choice("type", kTypes);
  try {
    switch (type) {
      case 0: {  // tetgen: a closed surface from a mesh file, tetrahedralised now
        const MeshFileKeys surface_keys = parse_mesh_file_keys(r, "surface", base_dir);
        const double max_volume =
            r.required_number("max_volume", Range::positive().capped(std::pow(SceneLimits::kLength, 3), "m^3"));
        const double quality = r.number("quality", 1.5, Range::closed(1.0, 100.0));
        r.finish();
        const TriangleMesh surface = read_scaled_mesh(surface_keys);
        try {
          return tetrahedralize(surface.vertices, surface.triangles, max_volume, quality);
        } catch (const MeshTooLarge& e) {
          throw InputError(r.pointer_of("max_volume"), e.what());
        } catch (const std::invalid_argument& e) {
          throw InputError(surface_keys.pointer, "'" + surface_keys.name + "': " + e.what());
        }
      }
      case 1: {  // file: a TetGen .node/.ele pair
        const std::string file = r.required_string("file");
        r.finish();
        const fs::path path = fs::path(file).is_relative() ? base_dir / file : fs::path(file);
        try {
          return read_tetgen(path);
        } catch (const InputError& e) {
          throw InputError(r.pointer_of("file"), e.what());
        }
      }
      case 2: {
        const Vec3 h = r.required_vec3("half_extents", limit::size());
        const std::array<int, 3> n = as_int3(r.require("resolution"), r.pointer_of("resolution"), 1);
        r.finish();
        try {
          return box_tet_mesh(h, n);
        } catch (const MeshTooLarge& e) {
          throw InputError(r.pointer_of("resolution"), e.what());
        }
      }
      default: {
        const double radius = r.required_number("radius", limit::size());
        const int n = r.integer("resolution", 6, 2, 200);
        r.finish();
        try {
          return sphere_tet_mesh(radius, n);
        } catch (const MeshTooLarge& e) {
          throw InputError(r.pointer_of("resolution"), e.what());
        }
      }
    }
  } catch (const std::invalid_argument& e) {
    throw InputError(pointer, e.what());
  }
}

}  // namespace

void parse_soft_bodies(ObjectReader& top, SceneDef& scene, NameTable& names) {
  const Json* j = top.find("soft_bodies");
  if (!j) return;
  as_array(*j, "/soft_bodies");
  std::vector<std::string> materials;
  for (const MaterialDef& m : scene.materials) materials.push_back(m.name);
  for (std::size_t k = 0; k < j->size(); ++k) {
    ObjectReader r((*j)[k], child_pointer("/soft_bodies", k));
    SoftBodyDef b;
    b.name = r.required_string("name");
    if (b.name.empty()) throw InputError(r.pointer_of("name"), "expected a non-empty name");
    const std::string material = r.string("material", "default");
    const auto it = std::find(materials.begin(), materials.end(), material);
    if (it == materials.end())
      throw InputError(r.pointer_of("material"), "unknown material '" + material + "'" + name_hint(material, materials, "materials"));
    b.material = int(it - materials.begin());
    const Vec3 position = r.vec3("position", Vec3::Zero(), limit::coordinate());
    const Quat orientation = r.quat("orientation", Quat::Identity());
    b.velocity = r.vec3("velocity", Vec3::Zero(), limit::velocity());
    b.mesh = parse_tet_mesh(r.require("mesh"), r.pointer_of("mesh"), scene.base_dir);
    // a mesh file's coordinates within the length limit of the body's origin
    double far = 0.0;
    for (const Vec3& x : b.mesh.rest) far = std::max(far, x.cwiseAbs().maxCoeff());
    if (!(far <= SceneLimits::kLength)) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "the mesh reaches %g m from its origin, beyond the scene limit of %g m for lengths", far,
                    SceneLimits::kLength);
      throw InputError(r.pointer_of("mesh"), buf);
    }
    for (Vec3& x : b.mesh.rest) x = orientation * x + position;
    if (const std::string err = check_tet_mesh(b.mesh); !err.empty()) throw InputError(r.pointer_of("mesh"), err);
    b.pinned.assign(b.mesh.rest.size(), 0);
    if (const Json* p = r.find("pinned"))
      for (int v : select(parse_selection(*p, r.pointer_of("pinned")), b.mesh.rest, r.pointer_of("pinned")))
        b.pinned[std::size_t(v)] = 1;
    r.finish();
    auto [prev, fresh] = names.emplace(b.name, r.pointer());
    if (!fresh) throw InputError(r.pointer_of("name"), "duplicate body name '" + b.name + "' (also used by " + prev->second + ")");
    scene.soft_bodies.push_back(std::move(b));
  }
}

namespace {

int find_rigid(const SceneDef& scene, const std::string& name) {
  for (std::size_t b = 0; b < scene.bodies.size(); ++b)
    if (scene.bodies[b].name == name) return int(b);
  return -1;
}

// a rigid joint's keys: "a" a body, "b" a body or null (the world), anchor, axis, limits,
// compliance (SCENE_FORMAT.md "Joints")
JointDef parse_rigid_joint(ObjectReader& r, JointType type, std::size_t k, const SceneDef& scene) {
  JointDef d;
  d.type = type;
  d.name = r.string("name", "joint_" + std::to_string(k));
  const std::string a = r.required_string("a");
  d.a = find_rigid(scene, a);
  if (d.a < 0) throw InputError(r.pointer_of("a"), "no rigid body is named '" + a + "'");
  const Json& b = r.require("b");
  if (!b.is_null()) {
    const std::string& name = as_string(b, r.pointer_of("b"));
    d.b = find_rigid(scene, name);
    if (d.b < 0) throw InputError(r.pointer_of("b"), "no rigid body is named '" + name + "' (use null for the world)");
    if (d.b == d.a) throw InputError(r.pointer_of("b"), "a joint needs two different bodies (use null for the world)");
  }
  const bool a_fixed = scene.bodies[std::size_t(d.a)].fixed;
  const bool b_fixed = d.b < 0 || scene.bodies[std::size_t(d.b)].fixed;
  if (a_fixed && b_fixed)
    throw InputError(r.pointer_of("a"), "both sides of the joint are fixed (or the world): it would constrain nothing");
  // the anchor defaults to body a's position for joints whose rows do not depend on it much
  // (fixed, prismatic); ball and hinge need it
  const bool needs_anchor = type == JointType::Ball || type == JointType::Hinge;
  d.anchor = needs_anchor ? r.required_vec3("anchor", limit::coordinate())
                          : r.vec3("anchor", scene.bodies[std::size_t(d.a)].position, limit::coordinate());
  if (type == JointType::Hinge || type == JointType::Prismatic) {
    // a direction: normalised on load whatever its magnitude, as orientations are
    d.axis = r.required_direction("axis", 1e-12);
  } else if (r.has("axis")) {
    throw InputError(r.pointer_of("axis"), std::string("a ") + joint_type_name(type) + " joint has no axis");
  }
  // the coordinate's load-time value and its damping, dry friction and armature (hinge, prismatic)
  const bool coordinate = type == JointType::Hinge || type == JointType::Prismatic;
  for (const char* key : {"position", "damping", "friction", "armature"})
    if (!coordinate && r.has(key))
      throw InputError(r.pointer_of(key), std::string("a ") + joint_type_name(type) + " joint has no " + key +
                                              " (only hinge and prismatic)");
  if (coordinate) {
    using L = SceneLimits;
    d.position = r.number("position", 0.0, Range::within(L::kLength, "rad or m"));
    d.damping = r.number("damping", 0.0, Range::non_negative().capped(L::kStiffness, "N m s/rad or N s/m"));
    d.friction = r.number("friction", 0.0, Range::non_negative().capped(L::kForce, "N m or N"));
    d.armature = r.number("armature", 0.0, Range::non_negative().capped(L::kMass, "kg m^2 or kg"));
  }
  if (const Json* lim = r.find("limits")) {
    const std::string ptr = r.pointer_of("limits");
    if (type != JointType::Hinge && type != JointType::Prismatic)
      throw InputError(ptr, std::string("a ") + joint_type_name(type) + " joint has no limits (only hinge and prismatic)");
    if (!lim->is_array() || lim->size() != 2 || !(*lim)[0].is_number() || !(*lim)[1].is_number())
      throw InputError(ptr, "expected [lo, hi], two numbers");
    const Range coordinate = Range::within(SceneLimits::kLength, "rad or m");
    d.lo = as_number((*lim)[0], child_pointer(ptr, 0), coordinate);
    d.hi = as_number((*lim)[1], child_pointer(ptr, 1), coordinate);
    if (d.lo > d.hi) throw InputError(ptr, "expected limits with lo <= hi");
    if (!(d.lo <= d.position && d.hi >= d.position))
      throw InputError(ptr, "the joint starts at its \"position\" (" + show(d.position) +
                                ", 0 unless given), which must lie within [lo, hi]");
    d.limited = true;
  }
  const Range compliance = Range::non_negative().capped(SceneLimits::kCompliance, "m/N or rad/(N m)");
  d.compliance = r.number("compliance", 0.0, compliance);
  d.angular_compliance = r.number("angular_compliance", d.compliance, compliance);
  if (const Json* drive = r.find("drive")) {
    const std::string ptr = r.pointer_of("drive");
    if (type != JointType::Hinge && type != JointType::Prismatic)
      throw InputError(ptr, std::string("a ") + joint_type_name(type) + " joint has no drive (only hinge and prismatic)");
    if (!drive->is_object()) throw InputError(ptr, "expected {\"target\": [[t, value], ...], \"compliance\": c}");
    for (const auto& [key, v] : drive->items())
      if (key != "target" && key != "compliance")
        throw InputError(ptr + "/" + key, "unknown key (known keys: target, compliance)");
    if (!drive->contains("target")) throw InputError(ptr + "/target", "expected a non-empty array of [time, value] points");
    d.drive = parse_time_schedule((*drive)["target"], ptr + "/target", Range::within(SceneLimits::kLength, "rad or m"));
    if (drive->contains("compliance")) d.drive_compliance = as_number((*drive)["compliance"], ptr + "/compliance", compliance);
  }
  d.collide = r.boolean("collide", false);
  return d;
}

}  // namespace

void parse_joints(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("joints");
  if (!j) return;
  as_array(*j, "/joints");
  static constexpr std::string_view kTypes[] = {"ball", "hinge", "prismatic", "fixed", "attach"};
  for (std::size_t k = 0; k < j->size(); ++k) {
    ObjectReader r((*j)[k], child_pointer("/joints", k));
    const int type = r.required_choice("type", kTypes);
    if (type < 4) {
      scene.joints.push_back(parse_rigid_joint(r, JointType(type), k, scene));
      r.finish();
      continue;
    }
    AttachDef a;
    a.name = r.string("name", "joint_" + std::to_string(k));
    const std::string soft = r.required_string("soft");
    for (std::size_t s = 0; s < scene.soft_bodies.size(); ++s)
      if (scene.soft_bodies[s].name == soft) a.soft = int(s);
    if (a.soft < 0) throw InputError(r.pointer_of("soft"), "no soft body is named '" + soft + "'");
    const Json& body = r.require("body");
    if (!body.is_null()) {
      const std::string& name = as_string(body, r.pointer_of("body"));
      a.body = find_rigid(scene, name);
      if (a.body < 0) throw InputError(r.pointer_of("body"), "no rigid body is named '" + name + "' (use null for the world)");
    }
    a.vertices = select(parse_selection(r.require("vertices"), r.pointer_of("vertices")),
                        scene.soft_bodies[std::size_t(a.soft)].mesh.rest, r.pointer_of("vertices"));
    r.finish();
    scene.attachments.push_back(std::move(a));
  }
}

void check_solver_supports(const SceneDef& scene) {
  const SolverInfo* info = find_solver(scene.solver);
  if (!info) return;
  if ((!scene.soft_bodies.empty() || !scene.attachments.empty()) && !info->soft)
    throw InputError("/solver/type", "solver '" + scene.solver + "' cannot simulate soft bodies; use one that can (" +
                                         solver_names_with(&SolverInfo::soft) + ")");
  if (!scene.joints.empty() && !info->joints)
    throw InputError("/solver/type", "solver '" + scene.solver + "' cannot simulate rigid joints; use one that can (" +
                                         solver_names_with(&SolverInfo::joints) + ")");
}

}  // namespace coulomb::detail
