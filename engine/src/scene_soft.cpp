// Soft bodies and attach joints of a scene: meshing at load time, so that every mesh problem is
// reported with the JSON pointer of the value that caused it.
#include "scene_soft.h"

#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/solver.h>
#include <coulomb/tet_meshing.h>

#include <algorithm>
#include <array>
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
      case 0: {  // tetgen: a closed surface OBJ, tetrahedralised now
        const std::string file = r.required_string("surface");
        const double max_volume = r.required_number("max_volume", Range::positive());
        const double quality = r.number("quality", 1.5, Range::closed(1.0, 100.0));
        r.finish();
        const fs::path path = fs::path(file).is_relative() ? base_dir / file : fs::path(file);
        TriangleMesh surface = read_obj(path, r.pointer_of("surface"));
        try {
          return tetrahedralize(surface.vertices, surface.triangles, max_volume, quality);
        } catch (const std::invalid_argument& e) {
          throw InputError(r.pointer_of("surface"), "'" + file + "': " + e.what());
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
        const Vec3 h = r.required_vec3("half_extents", Range::positive());
        const std::array<int, 3> n = as_int3(r.require("resolution"), r.pointer_of("resolution"), 1);
        r.finish();
        return box_tet_mesh(h, n);
      }
      default: {
        const double radius = r.required_number("radius", Range::positive());
        const int n = r.integer("resolution", 6, 2, 200);
        r.finish();
        return sphere_tet_mesh(radius, n);
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
    const Vec3 position = r.vec3("position", Vec3::Zero());
    const Quat orientation = r.quat("orientation", Quat::Identity());
    b.velocity = r.vec3("velocity", Vec3::Zero());
    b.mesh = parse_tet_mesh(r.require("mesh"), r.pointer_of("mesh"), scene.base_dir);
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

void parse_joints(ObjectReader& top, SceneDef& scene) {
  const Json* j = top.find("joints");
  if (!j) return;
  as_array(*j, "/joints");
  for (std::size_t k = 0; k < j->size(); ++k) {
    ObjectReader r((*j)[k], child_pointer("/joints", k));
    const std::string type = r.required_string("type");
    if (type != "attach") {
      if (type == "ball" || type == "hinge" || type == "prismatic" || type == "fixed")
        throw InputError(r.pointer_of("type"), "'" + type + "' joints are not supported yet (only \"attach\")");
      throw InputError(r.pointer_of("type"), "expected one of \"ball\", \"hinge\", \"prismatic\", \"fixed\", \"attach\"");
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
      for (std::size_t b = 0; b < scene.bodies.size(); ++b)
        if (scene.bodies[b].name == name) a.body = int(b);
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
}

}  // namespace coulomb::detail
