// The sections of a scene read outside scene_loader.cpp: shapes (scene_shapes.cpp), soft bodies
// and joints (scene_soft.cpp), actuators (scene_actuators.cpp).
#pragma once
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>

#include "scene_reader.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>

namespace coulomb::detail {

// A mesh file named by `key` of the object `r` reads, with the `scale` (a number or a vec3, per
// axis) and `unit` ("m", "dm", "cm", "mm", "in", "ft": a factor on the scale) beside it.
struct MeshFileKeys {
  std::string name;             // as the scene gives it
  std::filesystem::path path;   // resolved against the scene's folder
  std::string pointer;          // of `key`, for the file's errors
  Vec3 scale = Vec3::Ones();    // scale times the unit's length in metres
  bool scaled = false;          // `scale` or `unit` was given
};
MeshFileKeys parse_mesh_file_keys(ObjectReader& r, std::string_view key, const std::filesystem::path& base_dir);
// read_mesh of the file with its scale applied
TriangleMesh read_scaled_mesh(const MeshFileKeys& keys);

// body name -> JSON pointer of its definition (names are unique across all kinds of bodies)
using NameTable = std::unordered_map<std::string, std::string>;

// Reads `shapes`, numbered in key order before any is read so that compounds may refer to any
// of them; files resolve against `base_dir`.
void parse_shapes(ObjectReader& top, SceneDef& scene, const std::filesystem::path& base_dir);
// Reads `soft_bodies`: meshes each body (TetGen, .node/.ele, box or sphere), places it, checks
// it and resolves its `pinned` selection. Needs materials and the name table of rigid bodies.
void parse_soft_bodies(ObjectReader& top, SceneDef& scene, NameTable& names);
// Reads `joints`: `attach` joints only (the other types need the joint solver, not built yet).
void parse_joints(ObjectReader& top, SceneDef& scene);
// A scene with soft bodies or joints needs a solver that declares it can handle them.
void check_solver_supports(const SceneDef& scene);
// Reads `actuators` (scene_actuators.cpp) and adds a position servo for every joint `drive`.
// Needs the joints.
void parse_actuators(ObjectReader& top, SceneDef& scene);
// A piecewise-linear schedule [[t, value], ...]: times increasing within the time limit, values
// in `values`.
std::vector<std::pair<double, double>> parse_time_schedule(const Json& j, const std::string& pointer, Range values);

}  // namespace coulomb::detail
