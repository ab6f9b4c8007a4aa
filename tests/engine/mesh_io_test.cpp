// read_mesh (engine/src/mesh_io.cpp): every documented format gives the same closed unit cube
// (8 vertices, 12 outward triangles, volume 1: the oracle is the cube written), node transforms
// and COLLADA's <unit> are applied, a real robot link reads in place, and every bad file is an
// InputError at the given pointer naming the file.
#include <coulomb/error.h>
#include <coulomb/mass_properties.h>
#include <coulomb/mesh.h>
#include <coulomb/mesh_io.h>

#include <gtest/gtest.h>

#include "mesh_files.h"
#include "scene_test_util.h"

#include <filesystem>
#include <string>

namespace coulomb {
namespace {

using namespace scene_test;
using namespace mesh_test;

struct Bounds {
  Vec3 lo, hi;
};
Bounds bounds(const std::vector<Vec3>& v) {
  Bounds b{v.at(0), v.at(0)};
  for (const Vec3& x : v) {
    b.lo = b.lo.cwiseMin(x);
    b.hi = b.hi.cwiseMax(x);
  }
  return b;
}

// a closed box with corners lo, hi, wound outwards (positive signed volume before the engine
// turns anything over), of 8 vertices and 12 triangles
void expect_box(const TriangleMesh& m, const Vec3& lo, const Vec3& hi) {
  EXPECT_EQ(m.vertices.size(), 8u);
  EXPECT_EQ(m.triangles.size(), 12u);
  const Bounds b = bounds(m.vertices);
  EXPECT_NEAR((b.lo - lo).norm(), 0.0, 1e-6);
  EXPECT_NEAR((b.hi - hi).norm(), 0.0, 1e-6);
  const double volume = (hi - lo).prod();
  EXPECT_NEAR(volume_integrals(m.vertices, m.triangles).volume, volume, 1e-6 * volume);
  const auto tri = make_tri_mesh(m.vertices, m.triangles, 18);
  EXPECT_TRUE(tri->closed);
  EXPECT_NEAR(tri->volume, volume, 1e-6 * volume);
}

void expect_unit_cube(const TriangleMesh& m) { expect_box(m, Vec3::Constant(-0.5), Vec3::Constant(0.5)); }

InputError error_reading(const fs::path& file, const std::string& pointer = "/shapes/m/file") {
  try {
    read_mesh(file, pointer);
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), pointer);
    EXPECT_NE(e.message().find(file.string()), std::string::npos) << "the message names the file: " << e.what();
    return e;
  }
  ADD_FAILURE() << "no error reading " << file;
  return InputError(pointer, "");
}

TEST(MeshFiles, AsciiStlCornersAreJoinedIntoAClosedCube) {
  TempDir dir;
  expect_unit_cube(read_mesh(dir.write("cube.stl", ascii_stl()), "/p"));
}

TEST(MeshFiles, BinaryStlCornersAreJoinedIntoAClosedCube) {
  TempDir dir;
  expect_unit_cube(read_mesh(dir.write("cube.stl", binary_stl()), "/p"));
  // the importer goes by content: a binary STL under another extension still reads
  expect_unit_cube(read_mesh(dir.write("cube.STL", binary_stl()), "/p"));
}

TEST(MeshFiles, PlyQuadsAreTriangulatedAsciiAndBinary) {
  TempDir dir;
  expect_unit_cube(read_mesh(dir.write("ascii.ply", ply(false)), "/p"));
  expect_unit_cube(read_mesh(dir.write("binary.ply", ply(true)), "/p"));
}

TEST(MeshFiles, ObjGroupsShareTheirCorners) {
  TempDir dir;
  expect_unit_cube(read_mesh(dir.write("cube.obj", obj_two_groups()), "/p"));
}

TEST(MeshFiles, ObjVerticesKeepTheOrderOfTheirLines) {
  // faces that first use the vertices in reverse order: the ids still follow the `v` lines, so
  // that a mesh's bounding volume tree and contact order are the file's own
  TempDir dir;
  const TriangleMesh m = read_mesh(
      dir.write("tet.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 4 3 2\nf 4 2 1\nf 4 1 3\nf 1 2 3\n"), "/p");
  ASSERT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.vertices[0], Vec3(0, 0, 0));
  EXPECT_EQ(m.vertices[1], Vec3(1, 0, 0));
  EXPECT_EQ(m.vertices[2], Vec3(0, 1, 0));
  EXPECT_EQ(m.vertices[3], Vec3(0, 0, 1));
  ASSERT_EQ(m.triangles.size(), 4u);
  EXPECT_EQ(m.triangles[0], (std::array<int, 3>{3, 2, 1}));
  EXPECT_EQ(m.triangles[3], (std::array<int, 3>{0, 1, 2}));
}

TEST(MeshFiles, ObjPointCloudHasVerticesAndNoTriangles) {
  // the points of a `convex` shape's file need no faces
  TempDir dir;
  const TriangleMesh m = read_mesh(dir.write("points.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n"), "/p");
  EXPECT_EQ(m.vertices.size(), 4u);
  EXPECT_TRUE(m.triangles.empty());
}

TEST(MeshFiles, GltfAndGlbNodeTransformsAreApplied) {
  TempDir dir;
  const std::string node = R"("translation": [1, 2, 3], "scale": [2, 2, 2])";
  expect_box(read_mesh(dir.write("cube.gltf", gltf(node)), "/p"), Vec3(0, 1, 2), Vec3(2, 3, 4));
  expect_box(read_mesh(dir.write("cube.glb", glb(node)), "/p"), Vec3(0, 1, 2), Vec3(2, 3, 4));
}

TEST(MeshFiles, MirroringNodeKeepsTheTrianglesFacingOut) {
  // a scale of -1 on x turns the winding over; expect_box checks the signed volume stays +1
  TempDir dir;
  expect_unit_cube(read_mesh(dir.write("mirror.gltf", gltf(R"("scale": [-1, 1, 1])")), "/p"));
}

TEST(MeshFiles, ColladaUnitAndNodeTransformsAreAppliedNotItsUpAxis) {
  TempDir dir;
  const TriangleMesh m = read_mesh(dir.write("tet.dae", collada_tet()), "/p");
  ASSERT_EQ(m.vertices.size(), 4u);
  EXPECT_EQ(m.triangles.size(), 4u);
  const Bounds b = bounds(m.vertices);
  EXPECT_NEAR((b.lo - Vec3(0.1, 0, 0)).norm(), 0.0, 1e-7);
  EXPECT_NEAR((b.hi - Vec3(0.12, 0.02, 0.02)).norm(), 0.0, 1e-7);
  const auto tri = make_tri_mesh(m.vertices, m.triangles, 18);
  EXPECT_TRUE(tri->closed);
  EXPECT_NEAR(tri->volume, std::pow(0.02, 3) / 6.0, 1e-12);
}

TEST(MeshFiles, RealRobotLinkStlMatchesItsObj) {
  // the KUKA iiwa's first link, binary STL and OBJ of the same surface, read in place
  const fs::path folder = fs::path(COULOMB_SOURCE_DIR) / "../shared/robots/urdf/kuka_iiwa/meshes";
  if (!fs::exists(folder / "link_1.stl")) GTEST_SKIP() << "no " << folder;
  const TriangleMesh stl = read_mesh(folder / "link_1.stl", "/p");
  const TriangleMesh obj = read_mesh(folder / "link_1.obj", "/p");
  EXPECT_EQ(stl.triangles.size(), 2759u);  // the count in the binary header
  EXPECT_EQ(obj.triangles.size(), stl.triangles.size());
  // STL's 3 corners per triangle are joined: about half a vertex per triangle, as a surface has
  EXPECT_LT(stl.vertices.size(), stl.triangles.size());
  const Bounds a = bounds(stl.vertices), b = bounds(obj.vertices);
  EXPECT_NEAR((a.lo - b.lo).norm(), 0.0, 1e-5);
  EXPECT_NEAR((a.hi - b.hi).norm(), 0.0, 1e-5);
  EXPECT_GT((a.hi - a.lo).minCoeff(), 0.05);  // metres: a link about 0.3 m long
  EXPECT_LT((a.hi - a.lo).maxCoeff(), 1.0);
  EXPECT_GT(make_convex_hull(stl.vertices).vertices.size(), 8u);
}

TEST(MeshFileErrors, MissingFolderAndSpecialFilesNameTheFile) {
  TempDir dir;
  EXPECT_NE(error_reading(dir.path() / "none.stl").message().find("file not found"), std::string::npos);
  EXPECT_NE(error_reading(dir.path()).message().find("is a folder"), std::string::npos);
  EXPECT_NE(error_reading("/dev/zero").message().find("not a regular file"), std::string::npos);
  // a file a mesh refers to obeys the same rules: a glTF buffer that is /dev/zero is not read
  const InputError e = error_reading(dir.write("zero.gltf", gltf_json(R"("scale": [1, 1, 1])", "/dev/zero")));
  EXPECT_NE(e.message().find("cannot read mesh file"), std::string::npos) << e.what();
}

TEST(MeshFileErrors, FileOverTheSizeLimit) {
  TempDir dir;
  const fs::path big = dir.write("big.stl", "");
  fs::resize_file(big, kMaxMeshFileBytes + 1);  // sparse: no disk is written
  EXPECT_NE(error_reading(big).message().find("more than the limit of 256 MiB"), std::string::npos);
}

TEST(MeshFileErrors, UnknownOrCorruptFormatGivesAssimpsReason) {
  TempDir dir;
  const InputError e = error_reading(dir.write("notes.xyz", "hello, this is not a mesh\n"));
  EXPECT_NE(e.message().find("cannot read mesh file"), std::string::npos) << e.what();
  // a binary STL that promises 12 triangles and holds 3
  const InputError cut = error_reading(dir.write("cut.stl", binary_stl(12).substr(0, 84 + 3 * 50)));
  EXPECT_NE(cut.message().find("cannot read mesh file"), std::string::npos) << cut.what();
}

TEST(MeshFileErrors, NoVertices) {
  TempDir dir;
  // Assimp's STL importer: "file is empty. There are no facets defined"
  const InputError e = error_reading(dir.write("empty.stl", binary_stl(0)));
  EXPECT_NE(e.message().find("no facets"), std::string::npos) << e.what();
  EXPECT_NE(error_reading(dir.write("empty.obj", "# nothing\n")).message().find("contains no vertices"),
            std::string::npos);
}

TEST(MeshFileErrors, NonFiniteCoordinate) {
  TempDir dir;
  const InputError e = error_reading(dir.write("nan.stl", ascii_stl("  facet normal 0 0 0\n    outer loop\n"
                                                                    "      vertex nan 0 0\n      vertex 1 0 0\n"
                                                                    "      vertex 0 1 0\n    endloop\n  endfacet\n")));
  EXPECT_NE(e.message().find("is not finite"), std::string::npos) << e.what();
}

TEST(MeshFileErrors, FaceReferringToAMissingVertex) {
  TempDir dir;
  for (bool binary : {false, true}) {
    const InputError e = error_reading(dir.write(binary ? "b.ply" : "a.ply", ply(binary, 99)));
    EXPECT_NE(e.message().find("a face refers to vertex 100 but its mesh has 8 vertices"), std::string::npos) << e.what();
  }
  const InputError obj = error_reading(dir.write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"));
  EXPECT_NE(obj.message().find("out of range"), std::string::npos) << obj.what();
}

}  // namespace
}  // namespace coulomb
