// Mesh files through Assimp; see mesh_io.h.
//
// Assimp picks the importer by extension and content. The indices its post-processing follows
// are checked here first; the post-processing then removes every vertex attribute but the
// position (the STL importer gives each triangle's corners that triangle's normal, and vertices
// that differ in a normal are not identical), joins identical vertices and triangulates. The
// meshes of the node tree are merged here with their transforms, and equal positions joined
// across meshes (an OBJ's groups, a COLLADA file's geometries share corners). Assimp's OBJ parser
// reads a coordinate it cannot parse ("nan", "hello") as a number without complaint, so an OBJ
// file's vertex lines are checked before it runs, which also gives the line of a mistake.
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>

#include <assimp/DefaultIOSystem.h>
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace coulomb {

namespace {

namespace fs = std::filesystem;

// "" when `file` may be read, else what is wrong with it; /dev/zero, a pipe or a huge file would
// be read without end
std::string file_problem(const fs::path& file) {
  std::error_code ec;
  const fs::file_status status = fs::status(file, ec);
  if (ec || !fs::exists(status)) return "file not found";
  if (fs::is_directory(status)) return "is a folder, not a mesh file";
  if (!fs::is_regular_file(status)) return "is not a regular file";
  if (const std::uintmax_t bytes = fs::file_size(file, ec); !ec && bytes > kMaxMeshFileBytes)
    return "has " + std::to_string(bytes >> 20) + " MiB, more than the limit of " +
           std::to_string(kMaxMeshFileBytes >> 20) + " MiB for a mesh file";
  if (!std::ifstream(file).good()) return "cannot be read";
  return "";
}

// Assimp's file access with file_problem's rules for the files a mesh refers to (glTF buffers,
// OBJ materials): such a file that breaks them is absent to the importer, which then reports it.
class CheckedIOSystem : public Assimp::DefaultIOSystem {
 public:
  Assimp::IOStream* Open(const char* file, const char* mode) override {
    if (!file_problem(file).empty()) return nullptr;
    return DefaultIOSystem::Open(file, mode);
  }
};

bool has_extension(const fs::path& file, const char* ext) {
  std::string e = file.extension().string();
  std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return e == ext;
}

// An OBJ file's `v` lines: 3 or more finite numbers each (w and vertex colours may follow).
// Returns their positions in single precision, as the OBJ reader keeps them.
std::vector<std::array<float, 3>> check_obj_vertex_lines(const fs::path& file, const std::string& shown,
                                                         const std::string& pointer) {
  std::ifstream in(file, std::ios::binary);
  std::string line;
  std::vector<std::array<float, 3>> vertices;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos || line[at] != 'v' || at + 1 >= line.size() || (line[at + 1] != ' ' && line[at + 1] != '\t'))
      continue;
    const std::string where = shown + " line " + std::to_string(number);
    int count = 0;
    std::array<float, 3> position{};
    for (at = at + 1;; ++count) {
      at = line.find_first_not_of(" \t\r", at);
      if (at == std::string::npos || line[at] == '#') break;
      const std::size_t end = std::min(line.find_first_of(" \t\r#", at), line.size());
      const std::string word = line.substr(at, end - at);
      char* stop = nullptr;
      const double x = std::strtod(word.c_str(), &stop);
      if (stop != word.c_str() + word.size() || !std::isfinite(x))
        throw InputError(pointer, where + ": vertex coordinate '" + word + "' is not a finite number");
      if (count < 3) position[std::size_t(count)] = float(x);
      at = end;
    }
    if (count < 3) throw InputError(pointer, where + ": a vertex needs 3 coordinates (x y z), got " + std::to_string(count));
    vertices.push_back(position);
  }
  if (in.bad()) throw InputError(pointer, "cannot read " + shown);
  return vertices;
}

std::string show(const aiVector3D& p) {
  std::ostringstream out;
  out << std::setprecision(9) << '(' << p.x << ", " << p.y << ", " << p.z << ')';
  return out.str();
}

// The imported meshes before post-processing. The indices it follows without checking must be in
// range (Assimp's aiProcess_ValidateDataStructure checks them too, but rejects a mesh without
// faces, which an OBJ point cloud is, and the hull of its points is a fine `convex` shape). The
// coordinates must be finite: joining identical vertices merges a NaN corner into another one.
void check_imported(const aiScene& scene, const std::string& shown, const std::string& pointer) {
  for (unsigned k = 0; k < scene.mNumMeshes; ++k) {
    const aiMesh* mesh = scene.mMeshes ? scene.mMeshes[k] : nullptr;
    if (!mesh || (mesh->mNumVertices > 0 && !mesh->mVertices) || (mesh->mNumFaces > 0 && !mesh->mFaces))
      throw InputError(pointer, shown + ": Assimp gave an incomplete mesh");
    for (unsigned i = 0; i < mesh->mNumVertices; ++i) {
      const aiVector3D& p = mesh->mVertices[i];
      if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z))
        throw InputError(pointer, shown + ": vertex " + std::to_string(i + 1) + " of mesh " + std::to_string(k + 1) +
                                      " is not finite " + show(p));
    }
    for (unsigned f = 0; f < mesh->mNumFaces; ++f) {
      const aiFace& face = mesh->mFaces[f];
      if (face.mNumIndices > 0 && !face.mIndices) throw InputError(pointer, shown + ": Assimp gave an incomplete face");
      for (unsigned c = 0; c < face.mNumIndices; ++c)
        if (face.mIndices[c] >= mesh->mNumVertices)
          throw InputError(pointer, shown + ": a face refers to vertex " + std::to_string(face.mIndices[c] + 1) +
                                        " but its mesh has " + std::to_string(mesh->mNumVertices) + " vertices");
    }
  }
}

Eigen::Matrix4d to_eigen(const aiMatrix4x4& m) {
  Eigen::Matrix4d out;
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) out(r, c) = double(m[r][c]);
  return out;
}

// Merges the meshes of the node tree below `node` into `out`, each vertex through the product of
// the transforms from the root; equal positions become one vertex (`index`).
class Merger {
 public:
  Merger(const aiScene& scene, const std::string& shown, const std::string& pointer)
      : scene_(scene), shown_(shown), pointer_(pointer) {}

  void add(const aiNode& node, const Eigen::Matrix4d& parent, int depth) {
    // Assimp's importers build trees a few levels deep; a cyclic or absurd one is an error
    if (depth > 1000) throw InputError(pointer_, shown_ + ": its node tree is more than 1000 levels deep");
    const Eigen::Matrix4d m = parent * to_eigen(node.mTransformation);
    // a mirroring transform turns the winding over: swap two corners to keep the front side
    const bool mirrored = m.topLeftCorner<3, 3>().determinant() < 0.0;
    for (unsigned k = 0; k < node.mNumMeshes; ++k) {
      if (node.mMeshes[k] >= scene_.mNumMeshes)
        throw InputError(pointer_, shown_ + ": a node refers to a mesh that does not exist");
      add_mesh(*scene_.mMeshes[node.mMeshes[k]], m, mirrored);
    }
    for (unsigned c = 0; c < node.mNumChildren; ++c) add(*node.mChildren[c], m, depth + 1);
  }

  TriangleMesh take() { return std::move(out_); }

 private:
  void add_mesh(const aiMesh& mesh, const Eigen::Matrix4d& m, bool mirrored) {
    std::vector<int> local(mesh.mNumVertices);
    for (unsigned i = 0; i < mesh.mNumVertices; ++i) {
      const aiVector3D& p = mesh.mVertices[i];
      const Vec3 x = (m * Eigen::Vector4d(double(p.x), double(p.y), double(p.z), 1.0)).head<3>();
      if (!x.allFinite())
        throw InputError(pointer_, shown_ + ": vertex " + std::to_string(out_.vertices.size() + 1) +
                                       " is not finite " + show(p) + " after its node transforms");
      const auto [it, added] = index_.try_emplace({x.x(), x.y(), x.z()}, int(out_.vertices.size()));
      if (added) out_.vertices.push_back(x);
      local[i] = it->second;
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;  // points and lines: their vertices are kept above
      std::array<int, 3> t{};
      for (int c = 0; c < 3; ++c) {
        const unsigned v = face.mIndices[c];
        if (v >= mesh.mNumVertices)
          throw InputError(pointer_, shown_ + ": a face refers to vertex " + std::to_string(v + 1) +
                                         " but its mesh has " + std::to_string(mesh.mNumVertices) + " vertices");
        t[std::size_t(c)] = local[v];
      }
      if (mirrored) std::swap(t[1], t[2]);
      out_.triangles.push_back(t);
    }
  }

  const aiScene& scene_;
  const std::string& shown_;
  const std::string& pointer_;
  TriangleMesh out_;
  std::map<std::array<double, 3>, int> index_;
};

// Renumbers an OBJ file's vertices in the order of its `v` lines (Assimp numbers them in the
// order faces first use them), so that a mesh's vertex ids, and everything built on them (its
// bounding volume tree, TetGen's input, contact order), follow the file as it is written. A
// vertex whose position is on no `v` line (a rounding of the reader's own) keeps its place after
// those that are.
void obj_file_order(TriangleMesh& mesh, const std::vector<std::array<float, 3>>& lines) {
  std::map<std::array<float, 3>, std::size_t> first;
  for (std::size_t i = 0; i < lines.size(); ++i) first.try_emplace(lines[i], i);
  std::vector<std::pair<std::size_t, int>> rank(mesh.vertices.size());
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
    const Vec3& x = mesh.vertices[i];
    const auto it = first.find({float(x.x()), float(x.y()), float(x.z())});
    rank[i] = {it != first.end() ? it->second : lines.size() + i, int(i)};
  }
  std::sort(rank.begin(), rank.end());
  std::vector<int> renumbered(mesh.vertices.size());
  std::vector<Vec3> vertices(mesh.vertices.size());
  for (std::size_t k = 0; k < rank.size(); ++k) {
    renumbered[std::size_t(rank[k].second)] = int(k);
    vertices[k] = mesh.vertices[std::size_t(rank[k].second)];
  }
  mesh.vertices = std::move(vertices);
  for (auto& t : mesh.triangles)
    for (int& v : t) v = renumbered[std::size_t(v)];
}

}  // namespace

const std::vector<std::string>& mesh_formats() {
  static const std::vector<std::string> formats{"stl", "obj", "ply", "gltf", "glb", "dae"};
  return formats;
}

TriangleMesh read_mesh(const fs::path& file, const std::string& pointer) {
  const std::string shown = "'" + file.string() + "'";
  // the file is checked first: Assimp's messages do not say what is wrong with it
  if (const std::string problem = file_problem(file); !problem.empty())
    throw InputError(pointer, problem == "file not found" ? "file not found: " + shown : shown + " " + problem);
  const bool obj = has_extension(file, ".obj");
  std::vector<std::array<float, 3>> obj_vertices;
  if (obj && (obj_vertices = check_obj_vertex_lines(file, shown, pointer)).empty())
    throw InputError(pointer, shown + " contains no vertices (no 'v' lines)");

  Assimp::Importer importer;
  importer.SetIOHandler(new CheckedIOSystem);  // the importer owns it
  // positions only (see the top of this file)
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                              aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS | aiComponent_COLORS |
                                  aiComponent_TEXCOORDS | aiComponent_BONEWEIGHTS | aiComponent_ANIMATIONS |
                                  aiComponent_TEXTURES | aiComponent_LIGHTS | aiComponent_CAMERAS |
                                  aiComponent_MATERIALS);
  // COLLADA's <up_axis> names the authoring tool's up, not a transform of the model: URDF and
  // ROS read the coordinates as stored (as rviz sets this too); its <unit> stays applied
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  // no stand-in meshes drawn for skeletons
  importer.SetPropertyBool(AI_CONFIG_IMPORT_NO_SKELETON_MESHES, true);
  const aiScene* scene = nullptr;
  try {
    scene = importer.ReadFile(file.string(), 0);
    if (scene && scene->mRootNode) {
      check_imported(*scene, shown, pointer);
      scene = importer.ApplyPostProcessing(aiProcess_RemoveComponent | aiProcess_JoinIdenticalVertices |
                                           aiProcess_Triangulate);
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {  // Assimp catches its own; anything else that escapes
    throw InputError(pointer, "cannot read mesh file " + shown + ": " + e.what());
  }
  if (!scene || !scene->mRootNode) {
    std::string why = importer.GetErrorString();
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    throw InputError(pointer, "cannot read mesh file " + shown + (why.empty() ? "" : ": " + why));
  }

  Merger merger(*scene, shown, pointer);
  merger.add(*scene->mRootNode, Eigen::Matrix4d::Identity(), 0);
  TriangleMesh mesh = merger.take();
  if (mesh.vertices.empty()) throw InputError(pointer, shown + " contains no vertices");
  if (obj) obj_file_order(mesh, obj_vertices);
  return mesh;
}

void write_obj(const fs::path& file, const std::vector<Vec3>& vertices,
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
