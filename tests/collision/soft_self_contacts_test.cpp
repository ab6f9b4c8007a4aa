// EdgeEdge and self VertexTriangle soft contacts (SoftDetectInput::edge_edge, self_contacts):
// two cubes crossing edge on (no vertex near a face: only an edge-edge contact sees them), a
// flattened box whose top vertices are near its own bottom triangles, a bar moved as a whole
// (no self-contact, whatever its speed) and folded onto itself (contacts across the fold at the
// folded gap), the gap convention g = n . (p_b - p_a) - offset = -depth, and the same contacts
// for 1 and 2 threads.
#include <coulomb/mesh_generators.h>
#include <coulomb/soft_contacts.h>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::soft_self_contacts_test {
namespace {

struct Body {
  std::vector<Vec3> x;
  std::vector<std::array<int, 3>> faces;
  std::vector<int> surface;
  std::vector<Vec3> rest;  // none: no rest-neighbour exclusion
  double reach = 0.0, self_reach = 0.0;
};

Body body(const Surface& s, const Quat& q, const Vec3& at) {
  Body b;
  for (const Vec3& p : s.vertices) b.x.push_back(q * p + at);
  b.faces = s.triangles;
  for (int i = 0; i < int(b.x.size()); ++i) b.surface.push_back(i);
  return b;
}

std::vector<SoftContact> detect(const std::vector<Body>& bodies, bool ee, bool self, double envelope = 0.01,
                                double thickness = 0.0) {
  static const ShapeLibrary lib;
  static const std::vector<int> shape;
  static const std::vector<Pose> pose;
  static const std::vector<std::uint8_t> fixed;
  SoftDetectInput in;
  in.rigid.shapes = &lib;
  in.rigid.body_shape = &shape;
  in.rigid.shape_pose = &pose;
  in.rigid.is_static = &fixed;
  in.rigid.envelope = envelope;
  for (const Body& b : bodies) in.soft.push_back({&b.x, &b.faces, &b.surface, b.reach, b.rest.empty() ? nullptr : &b.rest, b.self_reach});
  in.edge_edge = ee;
  in.self_contacts = self;
  in.thickness = thickness;
  std::vector<SoftContact> out;
  detect_soft_contacts(in, out);
  return out;
}

double gap(const SoftContact& c) { return c.normal.dot(c.b.point - c.a.point) - c.offset; }

// cube A with a top edge along x at z = h, cube B above it with a bottom edge along y at h + g
std::vector<Body> crossing_cubes(double g) {
  const double h = 0.5 * std::sqrt(2.0);
  const Surface cube = box_surface(Vec3(0.5, 0.5, 0.5));
  return {body(cube, Quat(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitX())), Vec3::Zero()),
          body(cube, Quat(Eigen::AngleAxisd(M_PI / 4, Vec3::UnitY())), Vec3(0, 0, 2 * h + g))};
}

TEST(SoftEdgeEdge, CrossingEdgesGiveOneEdgeEdgeContact) {
  EXPECT_TRUE(detect(crossing_cubes(0.005), false, false).empty());  // no vertex near a face
  const auto c = detect(crossing_cubes(0.005), true, false);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].kind, SoftContactKind::EdgeEdge);
  EXPECT_EQ(c[0].a.soft, 0);
  EXPECT_EQ(c[0].b.soft, 1);
  EXPECT_EQ(c[0].a.vertex[2], -1);
  EXPECT_EQ(c[0].b.vertex[2], -1);
  EXPECT_NEAR(c[0].a.weight[0], 0.5, 1e-9);
  EXPECT_NEAR(c[0].b.weight[1], 0.5, 1e-9);
  EXPECT_LT((c[0].normal - Vec3::UnitZ()).norm(), 1e-9);  // from A's edge up to B's
  EXPECT_NEAR(gap(c[0]), 0.005, 1e-9);
  EXPECT_NEAR(c[0].depth, -gap(c[0]), 1e-12);
  // the sides' points are their weighted vertices
  const auto cubes = crossing_cubes(0.005);
  const Vec3 pa = c[0].a.weight[0] * cubes[0].x[std::size_t(c[0].a.vertex[0])] +
                  c[0].a.weight[1] * cubes[0].x[std::size_t(c[0].a.vertex[1])];
  EXPECT_LT((pa - c[0].a.point).norm(), 1e-12);
}

TEST(SoftEdgeEdge, CrossedEdgesKeepTheSeparatingNormal) {
  // the edges have passed each other by 3 mm: the normal still points from A up to B
  const auto c = detect(crossing_cubes(-0.003), true, false);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_LT((c[0].normal - Vec3::UnitZ()).norm(), 1e-9);
  EXPECT_NEAR(c[0].depth, 0.003, 1e-9);
  // with a thickness, the offset is two thicknesses
  const auto t = detect(crossing_cubes(0.005), true, false, 0.01, 0.002);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0].offset, 0.004, 1e-15);
  EXPECT_NEAR(gap(t[0]), 0.001, 1e-9);
  // beyond the envelope: none
  EXPECT_TRUE(detect(crossing_cubes(0.02), true, false).empty());
}

TEST(SoftSelfContact, FlatBoxTopVerticesTouchItsBottom) {
  // a 2 m x 2 m x 1 cm box: each top corner is 1 cm above bottom triangles that do not contain it
  const std::vector<Body> flat{body(box_surface(Vec3(1, 1, 0.005)), Quat::Identity(), Vec3::Zero())};
  EXPECT_TRUE(detect(flat, false, false, 0.02).empty());
  const auto c = detect(flat, false, true, 0.02);
  ASSERT_FALSE(c.empty());
  for (const SoftContact& k : c) {
    EXPECT_EQ(k.kind, SoftContactKind::VertexTriangle);
    EXPECT_EQ(k.a.soft, 0);
    EXPECT_EQ(k.b.soft, 0);
    const auto& f = flat[0].faces[std::size_t(k.b.feature)];
    EXPECT_TRUE(std::find(f.begin(), f.end(), k.a.vertex[0]) == f.end());  // not adjacent
    // 1 cm below (the bottom) or just under it (a side face's diagonal from the bottom corner
    // below to the far top corner: 0.0099999 m)
    EXPECT_NEAR(gap(k), 0.01, 1e-6);
    // from the vertex towards the other side of the box
    EXPECT_GT(std::abs(k.normal.z()), 0.9999);
    EXPECT_LT(k.normal.z() * flat[0].x[std::size_t(k.a.vertex[0])].z(), 0.0);
  }
  // closer envelope: the 1 cm is out of range
  EXPECT_TRUE(detect(flat, false, true, 0.005).empty());
}

// A 1 m x 0.2 m x 0.2 m bar of 10 x 2 x 2 cells (a soft box's surface) moved as a whole, at
// 5 m/s over a 10 ms step (reach 5 cm, self reach 0: its own features do not close on each
// other). Each edge of a convex body lies behind the surface at every other edge, so self
// edge-edge pairs are unsigned (the side test of two bodies would read the face diagonals beside
// each long edge, 5.8 cm apart, as 5.8 cm deep contacts), and the self reach is the deformation's
// only (the body's whole reach would take every vertex and edge within 11 cm). With an envelope of 8 cm, wider than those rest
// distances (5.8 cm for those edges, 7.1 cm from a vertex to the triangles across a long edge),
// the rest shape says they are neighbours: none with rest positions, and without them only
// separated (unsigned) ones.
Surface bar_surface(int nx, int ny, int nz, double cell) {
  std::vector<std::array<int, 3>> cells;
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      for (int k = 0; k < nz; ++k) cells.push_back({i - nx / 2, j - ny / 2, k - nz / 2});
  return voxel_surface(cells, cell);
}

TEST(SoftSelfContact, BarMovedAsAWholeHasNoSelfContacts) {
  const Surface s = bar_surface(10, 2, 2, 0.1);
  Body bar = body(s, Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized())), Vec3(0.05, 0.0, 10.0));
  bar.rest = s.vertices;
  bar.reach = 0.05;
  EXPECT_TRUE(detect({bar}, true, true).empty());
  EXPECT_TRUE(detect({bar}, true, true, 0.01, 0.001).empty());
  EXPECT_TRUE(detect({bar}, true, true, 0.08).empty());
  bar.rest.clear();
  const auto c = detect({bar}, true, true, 0.08);
  int ee = 0;
  for (const SoftContact& k : c) {
    ee += k.kind == SoftContactKind::EdgeEdge;
    EXPECT_GT(gap(k), 0.05) << int(k.kind);  // the nearest non-adjacent features are 5.8 cm apart
    EXPECT_LT(gap(k), 0.08);
    EXPECT_NEAR(k.depth, -gap(k), 1e-12);
  }
  EXPECT_GT(ee, 0);
  EXPECT_GT(int(c.size()) - ee, 0);
}

// The bar folded onto itself: 1 m x 5 cm x 5 cm (20 x 1 x 1 cells), its right part bent around a
// half circle of radius R (the centre line's) and laid back over its left part, the facing
// sides (its top, z = h at rest) 5 mm apart: 2 R - 2 h. Vertices of the straight parts meet the
// other layer's triangles, and their edges (the other layer's diagonals cross them) meet too,
// each contact at the folded gap along z, from a's layer towards b's; nothing is a rest
// neighbour there (the layers are far apart at rest).
TEST(SoftSelfContact, FoldedBarTouchesItselfAcrossTheFold) {
  const double cell = 0.05, h = 0.5 * cell, folded_gap = 0.005, r = h + 0.5 * folded_gap, x0 = -0.1;
  const Surface s = bar_surface(20, 1, 1, cell);
  Body bar = body(s, Quat::Identity(), Vec3::Zero());
  bar.rest = s.vertices;
  // 0: lower layer, 1: in the bend, 2: upper layer
  std::vector<int> part(s.vertices.size());
  for (std::size_t v = 0; v < s.vertices.size(); ++v) {
    const Vec3& p = s.vertices[v];
    const double along = p.x() - x0, radius = r - p.z();
    if (along <= 0.0) {
      part[v] = 0;
    } else if (along < M_PI * r) {
      part[v] = 1;
      bar.x[v] = Vec3(x0 + radius * std::sin(along / r), p.y(), r - radius * std::cos(along / r));
    } else {
      part[v] = 2;
      bar.x[v] = Vec3(x0 - (along - M_PI * r), p.y(), 2.0 * r - p.z());
    }
  }
  int vt = 0, ee = 0;
  for (const SoftContact& k : detect({bar}, true, true, 0.01)) {
    const auto layer = [&](const ContactSide& side) {
      int l = -1;
      for (int v : side.vertex)
        if (v >= 0) l = l < 0 || l == part[std::size_t(v)] ? part[std::size_t(v)] : 1;
      return l;
    };
    const int la = layer(k.a), lb = layer(k.b);
    if (la == 1 || lb == 1) continue;  // in the bend, where the inner side is crushed
    EXPECT_NE(la, lb);
    EXPECT_NEAR(gap(k), folded_gap, 1e-9) << int(k.kind);
    EXPECT_NEAR(k.normal.z(), la == 0 ? 1.0 : -1.0, 1e-9) << int(k.kind);
    (k.kind == SoftContactKind::EdgeEdge ? ee : vt) += 1;
  }
  EXPECT_GT(vt, 10);
  EXPECT_GT(ee, 10);
}

TEST(SoftSelfContact, SameContactsForOneAndTwoThreads) {
  std::vector<Body> bodies = crossing_cubes(0.004);
  bodies.push_back(body(box_surface(Vec3(1, 1, 0.005)), Quat::Identity(), Vec3(0, 0, -2)));
  bodies.push_back(body(icosphere_surface(0.3, 2), Quat::Identity(), Vec3(0.9, 0, 0.3)));
  std::vector<SoftContact> one, two;
  tbb::task_arena(1).execute([&] { one = detect(bodies, true, true, 0.05); });
  tbb::task_arena(2).execute([&] { two = detect(bodies, true, true, 0.05); });
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t i = 0; i < one.size(); ++i) {
    EXPECT_FALSE(soft_contact_less(one[i], two[i]) || soft_contact_less(two[i], one[i]));
    EXPECT_EQ(one[i].normal, two[i].normal);
  }
  EXPECT_TRUE(std::is_sorted(one.begin(), one.end(), soft_contact_less));
}

}  // namespace
}  // namespace coulomb::soft_self_contacts_test
