// Reading triangle meshes from files through Assimp: STL (ASCII and binary), OBJ, PLY, glTF 2
// (.gltf, .glb), COLLADA (.dae) and the other formats Assimp reads; writing OBJ.
//
// Used by the scene loader for `mesh` shapes, `convex` shapes (the hull of the vertices) and
// TetGen surfaces of soft bodies. Every failure is an InputError naming the scene key that gave
// the file, so the user sees e.g. "/shapes/rock/file: file not found: 'meshes/rock.stl'".
#pragma once
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace coulomb {

struct TriangleMesh {
  std::vector<Vec3> vertices;                 // (unit: the file's, COLLADA's <unit> applied)
  std::vector<std::array<int, 3>> triangles;  // vertex indices, polygons triangulated, winding
                                              // as in the file; empty for a point cloud
};

// The largest mesh file read (unit: bytes): a bound on memory and time, and the end of
// /dev/zero-like input. Files a mesh refers to (glTF buffers, OBJ materials) obey it too.
inline constexpr std::uintmax_t kMaxMeshFileBytes = std::uintmax_t(256) << 20;

// The mesh formats documented and tested (file extensions); Assimp reads more, chosen by content
// and extension.
const std::vector<std::string>& mesh_formats();

// Reads the triangles of a mesh file: every mesh of the file's node tree with its node's
// transform applied (COLLADA's <unit> too: that is a transform; its <up_axis> is not, so the
// file's coordinates are kept as robot models expect), polygons triangulated, identical vertices
// joined within and across the file's meshes so that a closed surface stored as separate
// triangles (STL) is closed; an OBJ file's vertices keep the order of its `v` lines. Points and
// lines are kept as vertices, not as faces. Throws
// InputError at `pointer`, naming the file, when it is missing, is not a regular file, exceeds
// kMaxMeshFileBytes, cannot be read or parsed (Assimp's message), has no vertex, has a
// non-finite coordinate (for OBJ, with the line) or a face that refers to a missing vertex.
TriangleMesh read_mesh(const std::filesystem::path& file, const std::string& pointer);

// Writes vertices and triangles as an OBJ file (9 significant digits: Assimp reads single
// precision). Throws std::runtime_error when the file cannot be written.
void write_obj(const std::filesystem::path& file, const std::vector<Vec3>& vertices,
               const std::vector<std::array<int, 3>>& triangles, const std::string& comment = "");

}  // namespace coulomb
