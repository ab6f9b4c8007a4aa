// The `shapes` section of a scene (SCENE_FORMAT.md "Shapes"): primitives, convex hulls, triangle
// meshes read from files, and compounds of other shapes.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>

#include "scene_reader.h"
#include "scene_soft.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace coulomb::detail {

namespace {

namespace fs = std::filesystem;
namespace limit = detail::limit;
using L = SceneLimits;

// ShapeType in order
constexpr std::array<std::string_view, 8> kShapeTypes{"sphere", "box",    "capsule",  "cylinder",
                                                      "plane",  "convex", "compound", "mesh"};
static_assert(kShapeTypeCount == 8 && int(ShapeType::Mesh) == 7);

fs::path resolve_path(const fs::path& base_dir, const std::string& file) {
  fs::path p(file);
  return p.is_relative() ? base_dir / p : p;
}

ConvexHull hull_of(const std::vector<Vec3>& points, const std::string& pointer) {
  try {
    return make_convex_hull(points);
  } catch (const std::invalid_argument& e) {
    throw InputError(pointer, std::string("cannot build a convex hull from these points: ") + e.what());
  }
}

// length units of mesh files: a file's numbers times the factor are metres
constexpr std::array<std::string_view, 6> kUnits{"m", "dm", "cm", "mm", "in", "ft"};
constexpr std::array<double, 6> kUnitMetres{1.0, 0.1, 0.01, 0.001, 0.0254, 0.3048};

void parse_convex(ObjectReader& r, Shape& s, const fs::path& base_dir) {
  const Json* vertices = r.find("vertices");
  const bool file = r.has("file");
  if (vertices && file) throw InputError(r.pointer_of("file"), "give either 'vertices' or 'file', not both");
  std::vector<Vec3> points;
  if (vertices) {
    for (const char* key : {"scale", "unit"})
      if (r.has(key))
        throw InputError(r.pointer_of(key), std::string("'") + key + "' applies to a mesh file ('file'), not to 'vertices'");
    r.finish();
    as_array(*vertices, r.pointer_of("vertices"));
    for (std::size_t i = 0; i < vertices->size(); ++i)
      points.push_back(as_vec3((*vertices)[i], child_pointer(r.pointer_of("vertices"), i), limit::coordinate()));
  } else if (file) {
    const MeshFileKeys keys = parse_mesh_file_keys(r, "file", base_dir);
    r.finish();
    points = read_scaled_mesh(keys).vertices;
  } else {
    r.finish();
    throw InputError(r.pointer(), "a convex shape needs 'vertices' (an array of points) or 'file' (a mesh file)");
  }
  s.hull = hull_of(points, r.pointer());
}

// `mesh`: a triangle mesh, or with `convex` the hull of its vertices (a `convex` shape)
void parse_mesh(ObjectReader& r, Shape& s, const fs::path& base_dir) {
  const MeshFileKeys keys = parse_mesh_file_keys(r, "file", base_dir);
  const bool convex = r.boolean("convex", false);
  if (convex && r.has("kdop"))
    throw InputError(r.pointer_of("kdop"), "a convex mesh is a hull and has no kDOP tree (drop 'kdop' or 'convex')");
  const int k = r.integer("kdop", 18);
  if (k != 18 && k != 26) throw InputError(r.pointer_of("kdop"), "expected 18 or 26 (the k of the kDOP tree)");
  r.finish();
  TriangleMesh m = read_scaled_mesh(keys);
  if (convex) {
    s.type = ShapeType::Convex;
    s.hull = hull_of(m.vertices, keys.pointer);
    return;
  }
  try {
    s.mesh = make_tri_mesh(std::move(m.vertices), std::move(m.triangles), k);
  } catch (const std::invalid_argument& e) {
    throw InputError(keys.pointer, "'" + keys.name + "': " + e.what());
  }
}

void parse_compound(ObjectReader& r, Shape& s, const std::vector<std::string>& shape_names) {
  const std::string list = r.pointer_of("children");
  const Json& children = as_array(r.require("children"), list);
  r.finish();
  if (children.empty()) throw InputError(list, "a compound needs at least one child");
  for (std::size_t k = 0; k < children.size(); ++k) {
    ObjectReader c(children[k], child_pointer(list, k));
    CompoundChild child;
    child.shape = lookup(c.required_string("shape"), shape_names, c.pointer_of("shape"), "shape", "shapes");
    child.pose.p = c.vec3("position", Vec3::Zero(), limit::coordinate());
    child.pose.q = c.quat("orientation", Quat::Identity());
    c.finish();
    s.children.push_back(child);
  }
}

Shape parse_shape(const std::string& name, const Json& j, const std::string& pointer,
                  const std::vector<std::string>& shape_names, const fs::path& base_dir) {
  ObjectReader r(j, pointer);
  Shape s;
  s.name = name;
  s.type = ShapeType(r.required_choice("type", kShapeTypes));
  switch (s.type) {
    case ShapeType::Sphere:
      s.radius = r.required_number("radius", limit::size());
      break;
    case ShapeType::Box:
      s.half_extents = r.required_vec3("half_extents", limit::size());
      s.hull = box_hull(s.half_extents);
      break;
    case ShapeType::Capsule:
    case ShapeType::Cylinder:
      s.radius = r.required_number("radius", limit::size());
      s.half_height = r.required_number("half_height", limit::size());
      break;
    case ShapeType::Plane:
      s.normal = r.required_direction("normal");
      s.offset = r.number("offset", 0.0, limit::coordinate());
      break;
    case ShapeType::Convex:
      parse_convex(r, s, base_dir);
      break;
    case ShapeType::Compound:
      parse_compound(r, s, shape_names);
      break;
    case ShapeType::Mesh:
      parse_mesh(r, s, base_dir);
      break;
  }
  r.finish();
  return s;
}

std::string child_shape_pointer(const SceneDef& scene, int shape, std::size_t child) {
  std::string p = child_pointer(child_pointer("/shapes", scene.shape_names[std::size_t(shape)]), "children");
  return child_pointer(child_pointer(p, child), "shape");
}

// compounds must not contain planes, and their references must form no cycle
void check_compounds(const SceneDef& scene) {
  const std::vector<Shape>& shapes = scene.shapes.shapes;
  enum Mark { kUnseen, kOnPath, kDone };
  std::vector<Mark> mark(shapes.size(), kUnseen);
  std::vector<int> path;
  std::function<void(int)> visit = [&](int s) {
    mark[std::size_t(s)] = kOnPath;
    path.push_back(s);
    const std::vector<CompoundChild>& children = shapes[std::size_t(s)].children;
    for (std::size_t k = 0; k < children.size(); ++k) {
      int c = children[k].shape;
      if (shapes[std::size_t(c)].type == ShapeType::Plane)
        throw InputError(child_shape_pointer(scene, s, k), "a plane cannot be part of a compound");
      if (mark[std::size_t(c)] == kOnPath) {
        std::string cycle;
        for (auto it = std::find(path.begin(), path.end(), c); it != path.end(); ++it)
          cycle += scene.shape_names[std::size_t(*it)] + " -> ";
        throw InputError(child_shape_pointer(scene, s, k),
                         "compound shapes form a cycle: " + cycle + scene.shape_names[std::size_t(c)]);
      }
      if (mark[std::size_t(c)] == kUnseen) visit(c);
    }
    path.pop_back();
    mark[std::size_t(s)] = kDone;
  };
  for (std::size_t s = 0; s < shapes.size(); ++s)
    if (mark[s] == kUnseen) visit(int(s));
}

}  // namespace

MeshFileKeys parse_mesh_file_keys(ObjectReader& r, std::string_view key, const fs::path& base_dir) {
  MeshFileKeys keys;
  keys.pointer = r.pointer_of(key);
  keys.name = non_empty(as_string(r.require(key), keys.pointer), keys.pointer);
  keys.path = resolve_path(base_dir, keys.name);
  if (const Json* j = r.find("scale")) {
    const Range factor = Range::positive().capped(L::kCoefficient, "a scale factor");
    keys.scale = j->is_number() ? Vec3::Constant(r.number("scale", 1.0, factor)) : r.vec3("scale", keys.scale, factor);
    keys.scaled = true;
  }
  if (r.has("unit")) {
    keys.scale *= kUnitMetres[std::size_t(r.choice("unit", kUnits, 0))];
    keys.scaled = true;
  }
  return keys;
}

TriangleMesh read_scaled_mesh(const MeshFileKeys& keys) {
  TriangleMesh m = read_mesh(keys.path, keys.pointer);
  if (keys.scaled)
    for (Vec3& v : m.vertices) v = v.cwiseProduct(keys.scale);
  return m;
}

// shapes are numbered in key order before any is read, so compounds may refer to any of them
void parse_shapes(ObjectReader& top, SceneDef& scene, const fs::path& base_dir) {
  const Json* j = top.find("shapes");
  if (!j) return;
  ObjectReader map(*j, "/shapes");  // a map of names: every key is valid
  for (const auto& item : j->items()) scene.shape_names.push_back(item.key());
  for (const auto& item : j->items())
    scene.shapes.add(parse_shape(item.key(), item.value(), map.pointer_of(item.key()), scene.shape_names, base_dir));
  check_compounds(scene);
  // every shape within the length limit of its own origin (a mesh file's coordinates times its
  // scale, compound children's offsets and sizes added up)
  for (std::size_t k = 0; k < scene.shapes.shapes.size(); ++k) {
    if (scene.shapes.shapes[k].type == ShapeType::Plane) continue;
    const Aabb box = scene.shapes.aabb(int(k), Pose(), 0.0);
    const double far = box.lo.cwiseAbs().cwiseMax(box.hi.cwiseAbs()).maxCoeff();
    if (!(far <= L::kLength))
      throw InputError(map.pointer_of(scene.shape_names[k]),
                       "the shape reaches " + show(far) + " m from its origin, beyond the scene limit of " +
                           show(L::kLength) + " m for lengths");
  }
}

}  // namespace coulomb::detail
