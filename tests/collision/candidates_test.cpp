// Candidate lists (seed 004 s.5.1) against brute force: every non-adjacent vertex-face and
// edge-edge pair of the scene that CCD finds colliding over the step must be a candidate, no
// candidate may be an adjacent pair or a pair of two fixed surfaces, and the lists are the same
// for 1 and 2 threads. The out-of-box re-check (s.5.2) finds the pairs of a vertex that left its box.
#include <coulomb/candidates.h>
#include <coulomb/ccd.h>
#include <coulomb/mesh_generators.h>

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <map>
#include <set>

// (its own namespace: the test binaries are unity builds, tests/CMakeLists.txt)
namespace coulomb::candidates_test {
namespace {

struct Scene {
  std::vector<std::vector<Vec3>> x, v;
  std::vector<std::vector<std::array<int, 3>>> faces;
  std::vector<CandidateSurface> surfaces;
  void add(const Surface& s, const Vec3& at, const Vec3& vel, std::mt19937_64& g, double jitter, int soft, int rigid,
           bool fixed) {
    std::uniform_real_distribution<double> u(-1, 1);
    x.emplace_back();
    v.emplace_back();
    for (const Vec3& p : s.vertices) {
      x.back().push_back(p + at);
      v.back().push_back(vel + jitter * Vec3(u(g), u(g), u(g)));
    }
    faces.push_back(s.triangles);
    CandidateSurface c;
    c.soft = soft;
    c.rigid = rigid;
    c.fixed = fixed;
    surfaces.push_back(c);
  }
  void bind() {  // pointers after every vector is in place
    for (std::size_t i = 0; i < surfaces.size(); ++i) {
      surfaces[i].x = &x[i];
      surfaces[i].v = surfaces[i].fixed ? nullptr : &v[i];
      surfaces[i].faces = &faces[i];
    }
  }
};

// Three soft spheres flying into each other and into a fixed box, some vertices jittered so that
// the spheres also fold into themselves.
Scene make_scene(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  Scene s;
  s.add(icosphere_surface(0.5, 2), Vec3(0, 0, 0), Vec3(2, 0, 0), g, 2.0, 0, -1, false);
  s.add(icosphere_surface(0.4, 2), Vec3(1.0, 0.1, 0), Vec3(-2, 0, 0), g, 2.0, 1, -1, false);
  s.add(icosphere_surface(0.3, 1), Vec3(0.2, 0.9, 0.1), Vec3(0, -3, 0), g, 1.0, 2, -1, false);
  s.add(box_surface(Vec3(2, 2, 0.1)), Vec3(0, 0, -0.7), Vec3::Zero(), g, 0.0, -1, 0, true);
  s.bind();
  return s;
}

bool shares(const std::array<int, 3>& f, int v) { return f[0] == v || f[1] == v || f[2] == v; }

TEST(Candidates, EveryCollidingFeaturePairIsACandidate) {
  const Scene s = make_scene(7);
  CandidateOptions opt;
  opt.dt = 0.05;
  opt.margin = 0.01;
  CandidateLists lists;
  build_candidates(s.surfaces, opt, lists);
  ASSERT_GT(lists.vf.size(), 0u);
  ASSERT_GT(lists.ee.size(), 0u);
  const std::set<VertexFaceCandidate> vf(lists.vf.begin(), lists.vf.end());
  const std::set<EdgeEdgeCandidate> ee(lists.ee.begin(), lists.ee.end());
  EXPECT_EQ(vf.size(), lists.vf.size());  // unique
  EXPECT_TRUE(std::is_sorted(lists.vf.begin(), lists.vf.end()));
  EXPECT_TRUE(std::is_sorted(lists.ee.begin(), lists.ee.end()));
  CcdOptions co;
  co.thickness = opt.margin;
  const auto end = [&](int surf, int vert) {
    const Vec3& x = s.x[std::size_t(surf)][std::size_t(vert)];
    return s.surfaces[std::size_t(surf)].fixed ? x : Vec3(x + opt.dt * s.v[std::size_t(surf)][std::size_t(vert)]);
  };
  const int ns = int(s.surfaces.size());
  int vf_hits = 0, ee_hits = 0, self_hits = 0;
  // brute force: every vertex against every face
  for (int a = 0; a < ns; ++a)
    for (int b = 0; b < ns; ++b) {
      if (s.surfaces[std::size_t(a)].fixed && s.surfaces[std::size_t(b)].fixed) continue;
      if (a == b && s.surfaces[std::size_t(a)].rigid >= 0) continue;
      std::set<int> used;
      for (const auto& f : s.faces[std::size_t(a)]) used.insert(f.begin(), f.end());
      for (int p : used)
        for (int f = 0; f < int(s.faces[std::size_t(b)].size()); ++f) {
          const auto& t = s.faces[std::size_t(b)][std::size_t(f)];
          if (a == b && shares(t, p)) continue;
          const auto& X = s.x;
          const auto h = ccd_vertex_face(X[std::size_t(a)][std::size_t(p)], X[std::size_t(b)][std::size_t(t[0])],
                                         X[std::size_t(b)][std::size_t(t[1])], X[std::size_t(b)][std::size_t(t[2])],
                                         end(a, p), end(b, t[0]), end(b, t[1]), end(b, t[2]), co);
          if (!h) continue;
          ++vf_hits;
          self_hits += a == b;
          EXPECT_TRUE(vf.count({a, p, b, f})) << "missing vertex-face " << a << ":" << p << " " << b << ":" << f;
        }
    }
  // every edge against every edge (each unordered pair once)
  std::vector<std::array<int, 3>> edges;  // surface, v0 < v1
  for (int a = 0; a < ns; ++a) {
    std::set<std::pair<int, int>> es;
    for (const auto& f : s.faces[std::size_t(a)])
      for (int i = 0; i < 3; ++i) es.insert({std::min(f[std::size_t(i)], f[std::size_t((i + 1) % 3)]), std::max(f[std::size_t(i)], f[std::size_t((i + 1) % 3)])});
    for (const auto& [p, q] : es) edges.push_back({a, p, q});
  }
  for (std::size_t i = 0; i < edges.size(); ++i)
    for (std::size_t j = i + 1; j < edges.size(); ++j) {
      const auto &e = edges[i], &f = edges[j];
      const auto &A = s.surfaces[std::size_t(e[0])], &B = s.surfaces[std::size_t(f[0])];
      if (A.fixed && B.fixed) continue;
      if (e[0] == f[0] && (A.rigid >= 0 || e[1] == f[1] || e[1] == f[2] || e[2] == f[1] || e[2] == f[2])) continue;
      const auto& X = s.x;
      const auto h = ccd_edge_edge(X[std::size_t(e[0])][std::size_t(e[1])], X[std::size_t(e[0])][std::size_t(e[2])],
                                   X[std::size_t(f[0])][std::size_t(f[1])], X[std::size_t(f[0])][std::size_t(f[2])],
                                   end(e[0], e[1]), end(e[0], e[2]), end(f[0], f[1]), end(f[0], f[2]), co);
      if (!h) continue;
      ++ee_hits;
      self_hits += e[0] == f[0];
      EXPECT_TRUE(ee.count({e[0], e[1], e[2], f[0], f[1], f[2]})) << "missing edge-edge";
    }
  // the scene does collide, within bodies too
  EXPECT_GT(vf_hits, 20);
  EXPECT_GT(ee_hits, 20);
  EXPECT_GT(self_hits, 5);
  // the lists are pruned (the jittered vertices boxes are large: 3 dt |v| up to 0.45 m here)
  EXPECT_LT(lists.ee.size(), edges.size() * edges.size() / 10);
  std::printf("edges %zu, edge-edge candidates %zu, vertex-face %zu, face pairs %d; colliding vf %d ee %d self %d\n",
              edges.size(), lists.ee.size(), lists.vf.size(), lists.face_pairs, vf_hits, ee_hits, self_hits);
}

TEST(Candidates, AdjacentAndFixedPairsAreCulled) {
  const Scene s = make_scene(8);
  CandidateOptions opt;
  opt.dt = 0.05;
  CandidateLists lists;
  build_candidates(s.surfaces, opt, lists);
  int self = 0;
  for (const auto& c : lists.vf) {
    EXPECT_FALSE(s.surfaces[std::size_t(c.vs)].fixed && s.surfaces[std::size_t(c.fs)].fixed);
    if (c.vs != c.fs) continue;
    ++self;
    EXPECT_LT(s.surfaces[std::size_t(c.vs)].rigid, 0);
    EXPECT_FALSE(shares(s.faces[std::size_t(c.fs)][std::size_t(c.f)], c.v));
  }
  for (const auto& c : lists.ee) {
    EXPECT_TRUE((std::array<int, 3>{c.as, c.a0, c.a1} < std::array<int, 3>{c.bs, c.b0, c.b1}));
    EXPECT_LT(c.a0, c.a1);
    EXPECT_LT(c.b0, c.b1);
    if (c.as == c.bs) { EXPECT_TRUE(c.a0 != c.b0 && c.a0 != c.b1 && c.a1 != c.b0 && c.a1 != c.b1); }
  }
  EXPECT_GT(self, 0);
  // no self pairs when a surface opts out
  Scene t = make_scene(8);
  for (auto& c : t.surfaces) c.self = false;
  CandidateLists none;
  build_candidates(t.surfaces, opt, none);
  for (const auto& c : none.vf) EXPECT_NE(c.vs, c.fs);
  for (const auto& c : none.ee) EXPECT_NE(c.as, c.bs);
}

TEST(Candidates, SameListsForOneAndTwoThreads) {
  const Scene s = make_scene(9);
  CandidateOptions opt;
  opt.dt = 0.05;
  opt.margin = 0.005;
  CandidateLists one, two;
  tbb::task_arena(1).execute([&] { build_candidates(s.surfaces, opt, one); });
  tbb::task_arena(2).execute([&] { build_candidates(s.surfaces, opt, two); });
  EXPECT_TRUE(one.vf == two.vf);
  EXPECT_TRUE(one.ee == two.ee);
  EXPECT_EQ(one.face_pairs, two.face_pairs);
}

TEST(Candidates, OutOfBoxVertexIsRechecked) {
  // two spheres at rest 1 m apart: no candidates between them; then a vertex of the first jumps
  // to the second (out of its box): the re-check finds its pairs
  std::mt19937_64 g(1);
  Scene s;
  s.add(icosphere_surface(0.3, 1), Vec3(0, 0, 0), Vec3::Zero(), g, 0.0, 0, -1, false);
  s.add(icosphere_surface(0.3, 1), Vec3(1, 0, 0), Vec3::Zero(), g, 0.0, 1, -1, false);
  s.bind();
  CandidateOptions opt;
  opt.dt = 0.01;
  opt.margin = 0.01;
  CandidateLists lists;
  build_candidates(s.surfaces, opt, lists);
  for (const auto& c : lists.vf) EXPECT_EQ(c.vs, c.fs);  // self pairs at most
  std::vector<std::vector<Vec3>> now = s.x;
  // the vertex of sphere 0 nearest +x moves into sphere 1
  int far = 0;
  for (int i = 0; i < int(now[0].size()); ++i)
    if (now[0][std::size_t(i)].x() > now[0][std::size_t(far)].x()) far = i;
  now[0][std::size_t(far)] = Vec3(0.75, 0, 0);
  const RecheckResult r = recheck_candidates(s.surfaces, {&now[0], &now[1]}, opt, lists);
  EXPECT_EQ(r.vertices_out, 1);
  EXPECT_GT(r.vf_added, 0);
  bool found = false;
  for (const auto& c : lists.vf) found |= c.vs == 0 && c.v == far && c.fs == 1;
  EXPECT_TRUE(found);
  EXPECT_TRUE(std::is_sorted(lists.vf.begin(), lists.vf.end()));
  // nothing moved out: nothing to do
  const RecheckResult again = recheck_candidates(s.surfaces, {&now[0], &now[1]}, opt, lists);
  EXPECT_EQ(again.vertices_out, 0);
}

TEST(Candidates, RigidShapesAreTriangulated) {
  ShapeLibrary lib;
  Shape box;
  box.type = ShapeType::Box;
  box.half_extents = Vec3(1, 2, 3);
  box.hull = box_hull(box.half_extents);
  const int b = lib.add(box);
  Shape sphere;
  sphere.type = ShapeType::Sphere;
  sphere.radius = 0.5;
  const int sp = lib.add(sphere);
  std::vector<Vec3> v;
  std::vector<std::array<int, 3>> f;
  shape_triangles(lib, b, v, f);
  EXPECT_EQ(f.size(), 12u);
  v.clear();
  f.clear();
  shape_triangles(lib, sp, v, f, 12);
  EXPECT_GT(f.size(), 40u);
  for (const Vec3& p : v) EXPECT_NEAR(p.norm(), 0.5, 1e-12);
  // a closed surface: every edge used twice
  std::map<std::pair<int, int>, int> uses;
  for (const auto& t : f)
    for (int i = 0; i < 3; ++i) ++uses[{std::min(t[std::size_t(i)], t[std::size_t((i + 1) % 3)]), std::max(t[std::size_t(i)], t[std::size_t((i + 1) % 3)])}];
  for (const auto& [e, n] : uses) EXPECT_EQ(n, 2);
}

}  // namespace
}  // namespace coulomb::candidates_test
