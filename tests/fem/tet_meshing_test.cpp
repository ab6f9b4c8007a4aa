#include <coulomb/error.h>
#include <coulomb/tet_meshing.h>
#include <gtest/gtest.h>

#define TETLIBRARY
#include <tetgen.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <numbers>

using namespace coulomb;
namespace fs = std::filesystem;

namespace {

// the surface of the cube [-h, h]^3: 8 corners, 12 outward triangles
void cube_surface(double h, std::vector<Vec3>& v, std::vector<std::array<int, 3>>& f) {
  v = {{-h, -h, -h}, {h, -h, -h}, {h, h, -h}, {-h, h, -h}, {-h, -h, h}, {h, -h, h}, {h, h, h}, {-h, h, h}};
  f = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
       {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
}

double total_volume(const TetMesh& m) {
  double s = 0.0;
  for (double v : tet_volumes(m)) s += v;
  return s;
}

double area(const TetMesh& m, const std::vector<std::array<int, 3>>& faces) {
  double s = 0.0;
  for (const auto& f : faces)
    s += 0.5 * (m.rest[std::size_t(f[1])] - m.rest[std::size_t(f[0])]).cross(m.rest[std::size_t(f[2])] - m.rest[std::size_t(f[0])]).norm();
  return s;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no exception)";
}

// a scratch directory per test, removed afterwards
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("coulomb_tet_meshing_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  fs::path write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return path / name;
  }
};

// a mesh as TetGen text, numbered from `base`, with comments, one attribute and markers
void write_tetgen(const TempDir& d, const std::string& stem, const TetMesh& m, int base) {
  std::string node = "# written by the test\n" + std::to_string(m.rest.size()) + " 3 1 1  # points, dim, attributes, markers\n\n";
  char buf[160];
  for (std::size_t i = 0; i < m.rest.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%d %.17g %.17g %.17g 7.5 %d\n", int(i) + base, m.rest[i].x(), m.rest[i].y(), m.rest[i].z(), int(i % 2));
    node += buf;
  }
  std::string ele = std::to_string(m.tets.size()) + " 4 1\n";
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    const auto& e = m.tets[t];
    std::snprintf(buf, sizeof buf, "  %d  %d %d %d %d  -1   # tet\n", int(t) + base, e[0] + base, e[1] + base, e[2] + base, e[3] + base);
    ele += buf;
  }
  d.write(stem + ".node", node);
  d.write(stem + ".ele", ele);
}

}  // namespace

TEST(Tetrahedralize, BoxSurfaceFillsTheBoxExactlyWithBoundedPositiveTets) {
  const double h = 0.7, max_volume = 0.01;
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(h, v, f);
  const TetMesh m = tetrahedralize(v, f, max_volume, 1.414);
  EXPECT_EQ(check_tet_mesh(m), "");
  EXPECT_NEAR(total_volume(m), 8 * h * h * h, 1e-9 * 8 * h * h * h);
  for (double vol : tet_volumes(m)) {
    EXPECT_GT(vol, 0.0);
    EXPECT_LE(vol, max_volume);
  }
  const auto faces = boundary_faces(m);
  EXPECT_NEAR(area(m, faces), 24 * h * h, 1e-9 * 24 * h * h);
  // the input surface's vertices come first, unchanged
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(m.rest[i], v[i]) << i;
  // every vertex carries mass
  for (double mass : lumped_masses(m, 1.0)) EXPECT_GT(mass, 0.0);
  // a closed surface of genus 0: V - E + F = 2
  EXPECT_EQ(int(surface_vertices(faces).size()) - int(surface_edges(faces).size()) + int(faces.size()), 2);
  std::printf("box h=%.1f max_volume=%.3g: %zu vertices, %zu tets, %zu boundary faces\n", h, max_volume, m.rest.size(), m.tets.size(),
              faces.size());
}

TEST(Tetrahedralize, IsDeterministic) {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(1.0, v, f);
  const TetMesh a = tetrahedralize(v, f, 0.02, 1.3), b = tetrahedralize(v, f, 0.02, 1.3);
  EXPECT_EQ(a.rest, b.rest);
  EXPECT_EQ(a.tets, b.tets);
}

TEST(Tetrahedralize, RejectsAnOpenSurface) {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(1.0, v, f);
  f.pop_back();
  const std::string msg = message_of([&] { tetrahedralize(v, f, 0.1, 1.414); });
  EXPECT_NE(msg.find("the surface is open: edge ("), std::string::npos) << msg;
  EXPECT_NE(msg.find("belongs to one triangle"), std::string::npos) << msg;
}

TEST(Tetrahedralize, RejectsInconsistentOrientation) {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(1.0, v, f);
  std::swap(f[5][1], f[5][2]);
  const std::string msg = message_of([&] { tetrahedralize(v, f, 0.1, 1.414); });
  EXPECT_NE(msg.find("inconsistently oriented"), std::string::npos) << msg;
}

TEST(Tetrahedralize, RejectsANonManifoldEdge) {
  // two tet surfaces sharing the edge (0, 1): four triangles meet there
  const std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, -1, 0}, {0, 0, -1}};
  const std::vector<std::array<int, 3>> f = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3},
                                             {0, 4, 1}, {0, 1, 5}, {0, 5, 4}, {1, 4, 5}};
  const std::string msg = message_of([&] { tetrahedralize(v, f, 0.1, 1.414); });
  EXPECT_NE(msg.find("not manifold: edge (0, 1) belongs to 4 triangles"), std::string::npos) << msg;
}

TEST(Tetrahedralize, RejectsBadVerticesTrianglesAndOptions) {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(1.0, v, f);
  const auto msg = [&](std::vector<Vec3> vv, std::vector<std::array<int, 3>> ff, double a = 0.1, double q = 1.414) {
    return message_of([&] { tetrahedralize(vv, ff, a, q); });
  };
  auto bad = v;
  bad[3].y() = std::nan("");
  EXPECT_NE(msg(bad, f).find("vertex 3 has a non-finite position"), std::string::npos);
  auto ff = f;
  ff[2][1] = 8;
  EXPECT_NE(msg(v, ff).find("triangle 2 refers to vertex 8"), std::string::npos);
  ff = f;
  ff[4] = {0, 1, 1};
  EXPECT_NE(msg(v, ff).find("triangle 4 repeats a vertex"), std::string::npos);
  auto flat = v;
  flat[5] = (v[1] + v[6]) / 2;  // triangle 7 (1, 6, 5) becomes a segment
  EXPECT_NE(msg(flat, f).find("triangle 7 is degenerate"), std::string::npos) << msg(flat, f);
  auto extra = v;
  extra.push_back(Vec3(5, 5, 5));
  EXPECT_NE(msg(extra, f).find("vertex 8 belongs to no triangle"), std::string::npos);
  auto twin = v;
  twin[6] = twin[0];
  EXPECT_NE(msg(twin, f).find("vertices 0 and 6 are at the same position"), std::string::npos) << msg(twin, f);
  EXPECT_NE(msg(v, f, 0.0).find("max_volume"), std::string::npos);
  EXPECT_NE(msg(v, f, -1.0).find("max_volume"), std::string::npos);
  EXPECT_NE(msg(v, f, 0.1, 1.0).find("quality"), std::string::npos);
  EXPECT_NE(msg(v, f, 0.1, std::nan("")).find("quality"), std::string::npos);
}

TEST(Tetrahedralize, ReportsASelfIntersectingSurface) {
  // two closed, disjointly indexed tet surfaces that pass through each other
  const std::vector<Vec3> v = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1},
                               {0.2, 0.2, 0.2}, {1.2, 0.2, 0.2}, {0.2, 1.2, 0.2}, {0.2, 0.2, 1.2}};
  const std::vector<std::array<int, 3>> f = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3},
                                             {4, 6, 5}, {4, 5, 7}, {4, 7, 6}, {5, 6, 7}};
  const std::string msg = message_of([&] { tetrahedralize(v, f, 0.01, 1.414); });
  EXPECT_NE(msg.find("intersects itself"), std::string::npos) << msg;
}

TEST(ReadTetgen, RoundTripsZeroAndOneBasedFilesWithCommentsAttributesAndMarkers) {
  const TempDir d;
  const TetMesh m = box_tet_mesh(Vec3(0.5, 1.0, 0.25), {2, 3, 1});
  for (int base : {0, 1}) {
    write_tetgen(d, "beam" + std::to_string(base), m, base);
    const TetMesh r = read_tetgen(d.path / ("beam" + std::to_string(base) + ".node"));
    EXPECT_EQ(r.rest, m.rest) << base;
    EXPECT_EQ(r.tets, m.tets) << base;
  }
}

TEST(ReadTetgen, ReadsTetGensOwnFilesWithoutFlipping) {
  // TetGen itself meshes a cube and writes .node/.ele with its own writer (1-based): its tets
  // are positive in our convention, so they are read back as written, not flipped
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(1.0, v, f);
  tetgenio in, out;
  in.firstnumber = 1;
  in.numberofpoints = 8;
  in.pointlist = new REAL[24];
  for (std::size_t i = 0; i < 8; ++i)
    for (int k = 0; k < 3; ++k) in.pointlist[3 * i + std::size_t(k)] = v[i][k];
  in.numberoffacets = 12;
  in.facetlist = new tetgenio::facet[12];
  for (std::size_t t = 0; t < 12; ++t) {
    tetgenio::facet& fa = in.facetlist[t];
    tetgenio::init(&fa);
    fa.numberofpolygons = 1;
    fa.polygonlist = new tetgenio::polygon[1];
    tetgenio::init(&fa.polygonlist[0]);
    fa.polygonlist[0].numberofvertices = 3;
    fa.polygonlist[0].vertexlist = new int[3];
    for (int k = 0; k < 3; ++k) fa.polygonlist[0].vertexlist[k] = f[t][std::size_t(k)] + 1;
  }
  char switches[] = "pq1.414a0.05Q";
  tetrahedralize(switches, &in, &out);
  ASSERT_EQ(out.firstnumber, 1);
  ASSERT_EQ(out.numberofcorners, 4);
  const TempDir d;
  std::string stem = (d.path / "cube").string();
  out.save_nodes(stem.data());
  out.save_elements(stem.data());
  const TetMesh r = read_tetgen(stem + ".node");
  ASSERT_EQ(r.tets.size(), std::size_t(out.numberoftetrahedra));
  for (std::size_t t = 0; t < r.tets.size(); ++t)
    for (int k = 0; k < 4; ++k) EXPECT_EQ(r.tets[t][std::size_t(k)], out.tetrahedronlist[4 * t + std::size_t(k)] - 1) << t;
  // TetGen's output starts with the input points
  for (std::size_t i = 0; i < 8; ++i) EXPECT_NEAR((r.rest[i] - v[i]).norm(), 0.0, 1e-15) << i;
  EXPECT_NEAR(total_volume(r), 8.0, 1e-9);
}

TEST(ReadTetgen, FlipsAFileWhoseTetsAreAllNegative) {
  const TempDir d;
  TetMesh m = box_tet_mesh(Vec3(1, 1, 1), {1, 1, 2});
  TetMesh flipped = m;
  for (auto& e : flipped.tets) std::swap(e[0], e[1]);
  write_tetgen(d, "neg", flipped, 0);
  const TetMesh r = read_tetgen(d.path / "neg.node");
  EXPECT_EQ(check_tet_mesh(r), "");
  EXPECT_NEAR(total_volume(r), 8.0, 1e-12);
}

TEST(ReadTetgen, MalformedFilesNameTheFileAndLine) {
  const TempDir d;
  const TetMesh m = box_tet_mesh(Vec3(1, 1, 1), {1, 1, 1});
  write_tetgen(d, "ok", m, 0);
  const auto node = d.path / "ok.node", ele = d.path / "ok.ele";
  const auto read = [](const fs::path& p) -> std::pair<std::string, std::string> {
    try {
      read_tetgen(p);
    } catch (const InputError& e) {
      return {e.pointer(), e.message()};
    }
    return {"", "(no InputError)"};
  };
  std::string ele_text, node_text;
  {
    std::ifstream in(ele);
    ele_text.assign(std::istreambuf_iterator<char>(in), {});
    std::ifstream in2(node);
    node_text.assign(std::istreambuf_iterator<char>(in2), {});
  }
  // missing .ele
  d.write("lonely.node", node_text);
  auto [p, msg] = read(d.path / "lonely.node");
  EXPECT_EQ(p, (d.path / "lonely.ele").string());
  EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
  // missing .node
  std::tie(p, msg) = read(d.path / "nothing.node");
  EXPECT_EQ(p, (d.path / "nothing.node").string());
  // wrong count: one tet announced too many
  d.write("count.node", node_text);
  d.write("count.ele", "7 4 1\n" + ele_text.substr(ele_text.find('\n') + 1));
  std::tie(p, msg) = read(d.path / "count.node");
  EXPECT_EQ(p, (d.path / "count.ele").string());
  EXPECT_NE(msg.find("announces 7 tets but the file has 6"), std::string::npos) << msg;
  // index out of range
  d.write("range.node", node_text);
  d.write("range.ele", "1 4 0\n0 0 1 2 8\n");
  std::tie(p, msg) = read(d.path / "range.node");
  EXPECT_EQ(p, (d.path / "range.ele").string());
  EXPECT_NE(msg.find("line 2: point 8 is out of range"), std::string::npos) << msg;
  // quadratic tets
  d.write("quad.node", node_text);
  d.write("quad.ele", "1 10 0\n0 0 1 2 3 4 5 6 7 0 1\n");
  std::tie(p, msg) = read(d.path / "quad.node");
  EXPECT_NE(msg.find("10-node"), std::string::npos) << msg;
  // bad number in the .node file (line 5: the header sits on line 2 after a comment and a blank)
  std::string bad_node = node_text;
  bad_node.replace(bad_node.find("0 -1 -1 -1"), 10, "0 -1 -1 x1");
  d.write("number.node", bad_node);
  d.write("number.ele", ele_text);
  std::tie(p, msg) = read(d.path / "number.node");
  EXPECT_EQ(p, (d.path / "number.node").string());
  EXPECT_NE(msg.find("line 4: z 'x1' is not a finite number"), std::string::npos) << msg;
  // a mixed-orientation tet: tet 3 of 6 reversed
  std::string mixed = "6 4 0\n";
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    auto e = m.tets[t];
    if (t == 3) std::swap(e[0], e[1]);
    mixed += std::to_string(t) + " " + std::to_string(e[0]) + " " + std::to_string(e[1]) + " " + std::to_string(e[2]) + " " +
             std::to_string(e[3]) + "\n";
  }
  d.write("mixed.node", node_text);
  d.write("mixed.ele", mixed);
  std::tie(p, msg) = read(d.path / "mixed.node");
  EXPECT_EQ(p, (d.path / "mixed.ele").string());
  EXPECT_NE(msg.find("line 5: tet 3 is inverted"), std::string::npos) << msg;
  // first point numbered 2
  d.write("base.node", "1 3 0 0\n2 0 0 0\n");
  d.write("base.ele", "0 4 0\n");
  std::tie(p, msg) = read(d.path / "base.node");
  EXPECT_NE(msg.find("numbered 0 or 1"), std::string::npos) << msg;
  // an unused point
  d.write("unused.node", "5 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n4 9 9 9\n");
  d.write("unused.ele", "1 4 0\n0 0 1 2 3\n");
  std::tie(p, msg) = read(d.path / "unused.node");
  EXPECT_NE(msg.find("line 6: point 4 belongs to no tet"), std::string::npos) << msg;
  // a degenerate (flat) tet
  d.write("flat.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 1 1 0\n");
  d.write("flat.ele", "1 4 0\n0 0 1 2 3\n");
  std::tie(p, msg) = read(d.path / "flat.node");
  EXPECT_EQ(p, (d.path / "flat.ele").string());
  EXPECT_NE(msg.find("degenerate"), std::string::npos) << msg;
}

TEST(SphereTetMesh, VolumeConvergesToTheBall) {
  const double r = 0.3, ball = 4.0 / 3.0 * std::numbers::pi * r * r * r;
  for (int n : {2, 3, 4, 6, 8, 10, 12}) {
    const TetMesh m = sphere_tet_mesh(r, n);
    EXPECT_EQ(check_tet_mesh(m), "") << n;
    const double err = (total_volume(m) - ball) / ball;
    const auto faces = boundary_faces(m);
    double rmin = 1e9, rmax = 0;
    for (int v : surface_vertices(faces)) {
      rmin = std::min(rmin, m.rest[std::size_t(v)].norm());
      rmax = std::max(rmax, m.rest[std::size_t(v)].norm());
    }
    std::printf("sphere r=%.2f resolution %2d: %5zu vertices %6zu tets %5zu surface triangles, volume error %+.3f%%\n", r, n,
                m.rest.size(), m.tets.size(), faces.size(), 100 * err);
    EXPECT_LT(err, 0.0) << n;  // inscribed
    if (n >= 6) {
      EXPECT_GT(err, -0.03) << n;
    }
    EXPECT_NEAR(rmin, r, 1e-12) << n;  // the boundary is the icosphere: on the sphere
    EXPECT_NEAR(rmax, r, 1e-12) << n;
    EXPECT_EQ(int(surface_vertices(faces).size()) - int(surface_edges(faces).size()) + int(faces.size()), 2) << n;
  }
}

TEST(SphereTetMesh, IsDeterministicAndRejectsBadArguments) {
  const TetMesh a = sphere_tet_mesh(1.0, 5), b = sphere_tet_mesh(1.0, 5);
  EXPECT_EQ(a.rest, b.rest);
  EXPECT_EQ(a.tets, b.tets);
  EXPECT_THROW(sphere_tet_mesh(0.0, 6), std::invalid_argument);
  EXPECT_THROW(sphere_tet_mesh(-1.0, 6), std::invalid_argument);
  EXPECT_THROW(sphere_tet_mesh(1.0, 1), std::invalid_argument);
}

TEST(LumpedMasses, SumToDensityTimesVolumeAndArePositive) {
  const double density = 1100.0;
  const TetMesh box = box_tet_mesh(Vec3(0.5, 0.25, 0.1), {3, 2, 2});
  const auto mb = lumped_masses(box, density);
  double sum = 0.0;
  for (double x : mb) {
    EXPECT_GT(x, 0.0);
    sum += x;
  }
  EXPECT_NEAR(sum, density * 1.0 * 0.5 * 0.2, 1e-12 * density);
  // one tet: a quarter of its mass at each corner
  TetMesh one;
  one.rest = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)};
  one.tets = {{0, 1, 2, 3}};
  for (double x : lumped_masses(one, 6.0)) EXPECT_DOUBLE_EQ(x, 0.25);
  const TetMesh ball = sphere_tet_mesh(1.0, 6);
  sum = 0.0;
  for (double x : lumped_masses(ball, density)) {
    EXPECT_GT(x, 0.0);
    sum += x;
  }
  EXPECT_NEAR(sum, density * total_volume(ball), 1e-9 * sum);
  EXPECT_THROW(lumped_masses(box, 0.0), std::invalid_argument);
  EXPECT_THROW(lumped_masses(box, std::nan("")), std::invalid_argument);
}

TEST(SurfaceEdgesAndVertices, AreUniqueAndSorted) {
  const std::vector<std::array<int, 3>> faces = {{3, 1, 2}, {2, 1, 0}};
  EXPECT_EQ(surface_edges(faces), (std::vector<std::array<int, 2>>{{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 3}}));
  EXPECT_EQ(surface_vertices(faces), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(surface_edges({}).empty());
}

// Memory guards (issue 11): meshes that would not fit are refused before anything is allocated,
// with the estimate. max_volume 1e-12 in a 2.744 m^3 cube is at least 2.7e12 tets.
TEST(MeshLimits, TetGenWithATinyMaxVolumeIsRefusedWithItsEstimate) {
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  cube_surface(0.7, v, f);
  try {
    tetrahedralize(v, f, 1e-12, 1.414);
    FAIL() << "expected MeshTooLarge";
  } catch (const MeshTooLarge& e) {
    EXPECT_NE(std::string(e.what()).find("at least 2.74e+12 tets"), std::string::npos) << e.what();
  }
  // at the limit's scale it still meshes: 2.744 / 0.01 = 274 tets at least
  EXPECT_NO_THROW(tetrahedralize(v, f, 0.01, 1.414));
}

TEST(MeshLimits, BoxResolutionsAreCountedIn64Bits) {
  EXPECT_THROW(box_tet_mesh(Vec3(0.5, 0.5, 0.5), {100, 100, 100}), MeshTooLarge);     // 6e6 tets
  EXPECT_THROW(box_tet_mesh(Vec3(0.5, 0.5, 0.5), {2000, 2000, 2000}), MeshTooLarge);  // 4.8e10: overflows an int
  EXPECT_THROW(box_tet_mesh(Vec3(0.5, 0.5, 0.5), {2'000'000'000, 2'000'000'000, 2}), MeshTooLarge);
  EXPECT_EQ(box_tet_mesh(Vec3(0.5, 0.5, 0.5), {2, 3, 4}).tets.size(), 6u * 2 * 3 * 4);
}
