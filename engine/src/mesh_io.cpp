// OBJ reading with tinyobjloader; see mesh_io.h.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>

#include <tiny_obj_loader.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <stdexcept>
#include <system_error>

namespace coulomb {

namespace {

// tinyobjloader reads a coordinate it cannot parse as 0 ("v nan 0 0", "v hello 5 world"): every
// vertex line is checked here first, so that the message names the file, the line and the word.
void check_vertex_lines(const std::filesystem::path& file, const std::string& shown, const std::string& pointer) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != 'v' || at + 1 >= line.size() || (line[at + 1] != ' ' && line[at + 1] != '\t'))
      continue;
    const std::string where = shown + " line " + std::to_string(number);
    int count = 0;
    for (at = at + 1;; ++count) {
      at = line.find_first_not_of(" \t\r", at);
      if (at == std::string::npos || line[at] == '#') break;
      const std::size_t end = std::min(line.find_first_of(" \t\r#", at), line.size());
      const std::string word = line.substr(at, end - at);
      char* stop = nullptr;
      const double x = std::strtod(word.c_str(), &stop);
      if (stop != word.c_str() + word.size() || !std::isfinite(x))
        throw InputError(pointer, where + ": vertex coordinate '" + word + "' is not a finite number");
      at = end;
    }
    if (count < 3) throw InputError(pointer, where + ": a vertex needs 3 coordinates (x y z), got " + std::to_string(count));
  }
  if (in.bad()) throw InputError(pointer, "cannot read " + shown);
}

}  // namespace

TriangleMesh read_obj(const std::filesystem::path& file, const std::string& pointer) {
  const std::string shown = "'" + file.string() + "'";
  // check the file first: tinyobjloader's own messages do not say what is wrong
  std::error_code ec;
  auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) throw InputError(pointer, "file not found: " + shown);
  if (std::filesystem::is_directory(status)) throw InputError(pointer, shown + " is a folder, not an OBJ file");
  // /dev/zero, a pipe or a huge file would be read without end
  if (!std::filesystem::is_regular_file(status)) throw InputError(pointer, shown + " is not a regular file");
  constexpr std::uintmax_t kMaxObjBytes = std::uintmax_t(256) << 20;
  if (const std::uintmax_t bytes = std::filesystem::file_size(file, ec); !ec && bytes > kMaxObjBytes)
    throw InputError(pointer, shown + " has " + std::to_string(bytes >> 20) + " MiB, more than the limit of " +
                                  std::to_string(kMaxObjBytes >> 20) + " MiB for an OBJ file");
  if (!std::ifstream(file).good()) throw InputError(pointer, "cannot read " + shown);
  check_vertex_lines(file, shown, pointer);

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
    const Vec3 v{double(xyz[i]), double(xyz[i + 1]), double(xyz[i + 2])};  // braces: clang reads v(double(a), ...) as a declaration
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
