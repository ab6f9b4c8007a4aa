#include <coulomb/tet_mesh.h>
#include <gtest/gtest.h>

using namespace coulomb;

TEST(TetMesh, UnitTetVolumeIsOneSixth) {
  EXPECT_DOUBLE_EQ(signed_volume(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(signed_volume(Vec3(0, 0, 0), Vec3(0, 1, 0), Vec3(1, 0, 0), Vec3(0, 0, 1)), -1.0 / 6.0);
}

TEST(TetMesh, BoxMeshFillsTheBoxExactlyAndIsClosed) {
  const TetMesh m = box_tet_mesh(Vec3(0.5, 1.0, 1.5), {2, 3, 4});
  EXPECT_EQ(m.tets.size(), 6u * 2 * 3 * 4);
  double total = 0.0;
  for (double v : tet_volumes(m)) {
    EXPECT_GT(v, 0.0);
    total += v;
  }
  EXPECT_NEAR(total, 1.0 * 2.0 * 3.0, 1e-12);
  EXPECT_EQ(check_tet_mesh(m), "");
  // a conforming mesh's boundary: 2 triangles per boundary cell face
  EXPECT_EQ(boundary_faces(m).size(), 2u * 2 * (2 * 3 + 3 * 4 + 2 * 4));
}

TEST(TetMesh, BoundaryFacesPointOutward) {
  const TetMesh m = box_tet_mesh(Vec3(1, 1, 1), {2, 2, 2});
  for (const auto& f : boundary_faces(m)) {
    const Vec3 a = m.rest[std::size_t(f[0])], b = m.rest[std::size_t(f[1])], c = m.rest[std::size_t(f[2])];
    const Vec3 n = (b - a).cross(c - a);
    EXPECT_GT(n.dot((a + b + c) / 3.0), 0.0);  // the box is centred at the origin
  }
}

TEST(TetMesh, RejectsInvertedDegenerateAndOutOfRangeTets) {
  TetMesh m;
  m.rest = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1), Vec3(1, 1, 0)};
  m.tets = {{0, 2, 1, 3}};
  EXPECT_NE(check_tet_mesh(m).find("inverted"), std::string::npos);
  m.tets = {{0, 1, 2, 3}, {0, 1, 4, 2}};  // second tet is flat (z = 0)
  EXPECT_NE(check_tet_mesh(m).find("degenerate"), std::string::npos);
  m.tets = {{0, 1, 2, 7}};
  EXPECT_NE(check_tet_mesh(m).find("vertex 7"), std::string::npos);
  m.tets = {{0, 1, 1, 3}};
  EXPECT_NE(check_tet_mesh(m).find("repeats"), std::string::npos);
  m.tets.clear();
  EXPECT_NE(check_tet_mesh(m).find("no tetrahedra"), std::string::npos);
}
