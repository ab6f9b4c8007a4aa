// OBJ reading with tinyobjloader; see mesh_io.h.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>

#include <tiny_obj_loader.h>

#include <fstream>
#include <iomanip>
#include <stdexcept>
#include <system_error>

namespace coulomb {

TriangleMesh read_obj(const std::filesystem::path& file, const std::string& pointer) {
  const std::string shown = "'" + file.string() + "'";
  // check the file first: tinyobjloader's own messages do not say what is wrong
  std::error_code ec;
  auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(pointer, "file not found: " + shown);
  if (std::filesystem::is_directory(status)) throw InputError(pointer, shown + " is a folder, not an OBJ file");
  if (!std::ifstream(file).good()) throw InputError(pointer, "cannot read " + shown);

  tinyobj::ObjReaderConfig config;
  config.triangulate = true;
  config.vertex_color = false;
  tinyobj::ObjReader reader;
  if (!reader.ParseFromFile(file.string(), config)) {
    std::string why = reader.Error();
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    throw InputError(pointer, "cannot parse OBJ file " + shown + (why.empty() ? "" : ": " + why));
  }

  // vertices: a flat (x, y, z) array
  TriangleMesh mesh;
  const auto& xyz = reader.GetAttrib().vertices;
  mesh.vertices.reserve(xyz.size() / 3);
  for (std::size_t i = 0; i + 2 < xyz.size(); i += 3) {
    Vec3 v(double(xyz[i]), double(xyz[i + 1]), double(xyz[i + 2]));
    if (!v.allFinite())
      throw InputError(pointer, shown + ": vertex " + std::to_string(i / 3 + 1) + " is not finite");
    mesh.vertices.push_back(v);
  }
  if (mesh.vertices.empty()) throw InputError(pointer, shown + " contains no vertices (no 'v' lines)");

  // faces: already fanned into triangles by tinyobjloader
  const int nv = int(mesh.vertices.size());
  for (const tinyobj::shape_t& shape : reader.GetShapes()) {
    const auto& idx = shape.mesh.indices;
    for (std::size_t f = 0; f + 2 < idx.size(); f += 3) {
      std::array<int, 3> tri{idx[f].vertex_index, idx[f + 1].vertex_index, idx[f + 2].vertex_index};
      for (int v : tri) {
        if (v < 0 || v >= nv)
          throw InputError(pointer, shown + ": a face refers to vertex " + std::to_string(v + 1) + " but the file has " +
                                        std::to_string(nv) + " vertices");
      }
      mesh.triangles.push_back(tri);
    }
  }
  return mesh;
}

void write_obj(const std::filesystem::path& file, const std::vector<Vec3>& vertices,
               const std::vector<std::array<int, 3>>& triangles, const std::string& comment) {
  std::ofstream out(file);
  if (!out) throw std::runtime_error("cannot write '" + file.string() + "'");
  if (!comment.empty()) out << "# " << comment << "\n";
  out << std::setprecision(9);
  for (const Vec3& v : vertices) out << "v " << v.x() << ' ' << v.y() << ' ' << v.z() << '\n';
  for (const auto& t : triangles) out << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << '\n';
  if (!out) throw std::runtime_error("cannot write '" + file.string() + "'");
}

}  // namespace coulomb
