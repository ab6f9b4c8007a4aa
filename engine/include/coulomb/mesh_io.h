// Reading triangle meshes from Wavefront OBJ files (tinyobjloader).
//
// Used by the scene loader for `convex` shapes (the hull of the vertices) and, later, for
// `mesh` shapes and TetGen surfaces. Every failure is an InputError naming the scene key that
// gave the file, so the user sees e.g. "/shapes/rock/file: file not found: 'meshes/rock.obj'".
#pragma once
#include <coulomb/math.h>

#include <array>
#include <filesystem>
#include <string>
#include <vector>

namespace coulomb {

struct TriangleMesh {
  std::vector<Vec3> vertices;                 // (unit: m)
  std::vector<std::array<int, 3>> triangles;  // vertex indices, polygons fanned into triangles,
                                              // winding as in the file; empty for a point cloud
};

// Reads the vertices and faces of an OBJ file (all objects and groups merged; normals,
// texture coordinates and materials ignored). Throws InputError at `pointer` when the file is
// missing, is not a regular file, cannot be read or parsed, has no vertex, has a non-finite
// coordinate or a face that refers to a vertex that does not exist.
TriangleMesh read_obj(const std::filesystem::path& file, const std::string& pointer);

// Writes vertices and triangles as an OBJ file (9 significant digits; tinyobjloader reads
// single precision). Throws std::runtime_error when the file cannot be written.
void write_obj(const std::filesystem::path& file, const std::vector<Vec3>& vertices,
               const std::vector<std::array<int, 3>>& triangles, const std::string& comment = "");

}  // namespace coulomb
