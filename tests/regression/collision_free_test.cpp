// Collision-free steps (issue 14): after every step of a scene, no two surface triangles
// intersect (find_intersections over the soft bodies' boundaries and the rigid bodies' shapes as
// triangles, within one soft body too). Prints the steps checked and the intersections found.
#include <coulomb/candidates.h>
#include <coulomb/intersections.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

using namespace coulomb;

namespace {

struct Count {
  int steps = 0, intersections = 0, steps_with = 0;
  int soft_self = 0, soft_soft = 0, soft_rigid = 0;  // intersecting pairs by kind
  int first = -1;  // first step with an intersection
};

// Runs `steps` steps and checks the surfaces after each.
Count run_checked(World& w, int steps) {
  const SceneDef& def = w.scene();
  const int nr = int(def.bodies.size());
  std::vector<std::vector<Vec3>> local(static_cast<std::size_t>(nr)), xr(static_cast<std::size_t>(nr));
  std::vector<std::vector<std::array<int, 3>>> fr(static_cast<std::size_t>(nr));
  for (int i = 0; i < nr; ++i) shape_triangles(def.shapes, def.bodies[std::size_t(i)].shape, local[std::size_t(i)], fr[std::size_t(i)]);
  Count c;
  for (int s = 0; s < steps && w.step_count() < w.total_steps(); ++s) {
    EXPECT_TRUE(w.step().ok());
    if (std::getenv("COULOMB_TRACE")) {
      int kinds[4] = {0, 0, 0, 0};
      double gmin = 1e9;
      for (const SoftContact& k : w.soft_contacts()) {
        ++kinds[int(k.kind)];
        if (k.kind == SoftContactKind::EdgeEdge) gmin = std::min(gmin, -k.depth);
      }
      std::printf("  step %d: soft contacts rv %d rt %d vt %d ee %d, ee min gap %.5f\n", w.step_count(), kinds[0], kinds[1],
                  kinds[2], kinds[3], gmin);
    }
    std::vector<CandidateSurface> surf;
    for (int i = 0; i < w.soft_body_count(); ++i) {
      const SoftBody& b = w.soft_body(i);
      CandidateSurface cs;
      cs.x = &b.x;
      cs.faces = &b.faces;
      cs.soft = i;
      surf.push_back(cs);
    }
    for (int i = 0; i < nr; ++i) {
      const BodyState b = w.body(i);
      const Pose p{b.position, b.orientation};
      auto& x = xr[std::size_t(i)];
      x.clear();
      for (const Vec3& v : local[std::size_t(i)]) x.push_back(p.apply(v));
      CandidateSurface cs;
      cs.x = &x;
      cs.faces = &fr[std::size_t(i)];
      cs.rigid = i;
      cs.fixed = b.fixed;
      cs.self = false;
      surf.push_back(cs);
    }
    IntersectionOptions o;
    o.fixed_fixed = false;
    // rigid-rigid pairs are the rigid pipeline's (speculative contacts allow a little overlap)
    std::vector<TriangleIntersection> found;
    for (const TriangleIntersection& t : find_intersections(surf, o))
      if (surf[std::size_t(t.sa)].rigid < 0 || surf[std::size_t(t.sb)].rigid < 0) found.push_back(t);
    for (const TriangleIntersection& t : found) {
      const bool ra = surf[std::size_t(t.sa)].rigid >= 0, rb = surf[std::size_t(t.sb)].rigid >= 0;
      if (ra || rb) ++c.soft_rigid;
      else if (t.sa == t.sb) ++c.soft_self;
      else ++c.soft_soft;
    }
    ++c.steps;
    if (!found.empty() && c.first < 0) c.first = c.steps;
    c.intersections += int(found.size());
    c.steps_with += found.empty() ? 0 : 1;
  }
  return c;
}

// A soft cube standing on one edge (pinned along its bottom), and a soft cube falling edge-on
// across it: the two edges cross at right angles away from their vertices, no vertex meets a
// face. A thickness of 1 mm keeps xpbd's residual penetration (~0.1 mm) off the surfaces.
nlohmann::json crossing_cubes(bool ee) {
  const double h = 0.1 * std::sqrt(2.0);
  const double s = std::sin(M_PI / 8), c = std::cos(M_PI / 8);
  return {{"format", "coulomb-scene/1"},
          {"gravity", {0, 0, -9.81}},
          {"time", {{"dt", 0.005}, {"duration", 0.6}}},
          {"solver", {{"type", "xpbd-jacobi"}, {"max_iterations", 30}}},
          {"collision", {{"envelope", 0.005}, {"edge_edge", ee}, {"self_contacts", ee}, {"thickness", 0.001}}},
          {"materials",
           {{"default", {{"density", 1000}, {"friction", 0.3}}},
            {"foam", {{"density", 300}, {"friction", 0.3}, {"young", 1e5}, {"poisson", 0.3}, {"model", "corotational"}}}}},
          {"soft_bodies",
           {{{"name", "base"}, {"material", "foam"}, {"position", {0, 0, h}}, {"orientation", {c, s, 0, 0}},
             {"mesh", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}, {"resolution", {2, 2, 2}}}},
             {"pinned", {{"box_min", {-1, -1, -1}}, {"box_max", {1, 1, 0.05}}}}},
            {{"name", "top"}, {"material", "foam"}, {"position", {0.025, 0.025, 3 * h + 0.01}}, {"orientation", {c, 0, s, 0}},
             {"velocity", {0, 0, -1}},
             {"mesh", {{"type", "box"}, {"half_extents", {0.1, 0.1, 0.1}}, {"resolution", {2, 2, 2}}}}}}}};
}

}  // namespace

TEST(CollisionFree, SoftStackEveryStep) {
  std::vector<std::string> o{"/collision/edge_edge=true", "/collision/self_contacts=true", "/collision/thickness=0.001"};
  if (std::getenv("COULOMB_PLAIN")) o.clear();
  World w(load_scene(std::string(COULOMB_SOURCE_DIR) + "/scenes/soft_stack.json", o));
  const Count c = run_checked(w, 100);
  std::printf("soft_stack (edge_edge, self_contacts): %d steps checked, %d intersecting triangle pairs in %d steps "
              "(soft self %d, soft-soft %d, soft-rigid %d)\n",
              c.steps, c.intersections, c.steps_with, c.soft_self, c.soft_soft, c.soft_rigid);
  EXPECT_EQ(c.steps, 100);
  EXPECT_EQ(c.intersections, 0);
}

TEST(CollisionFree, CubesCrossingEdgeOn) {
  for (bool ee : {false, true}) {
    World w(parse_scene(crossing_cubes(ee), "."));
    const Count c = run_checked(w, 50);
    const SoftBody& top = w.soft_body(w.find_soft_body("top"));
    double zmin = 1e9;
    for (const Vec3& x : top.x) zmin = std::min(zmin, x.z());
    std::printf("cubes crossing edge on, edge_edge %s: %d steps checked, %d intersecting triangle pairs in %d steps "
                "(soft self %d, soft-soft %d, soft-rigid %d, first at step %d), top cube's lowest vertex at z %.4f\n",
                ee ? "on" : "off", c.steps, c.intersections, c.steps_with, c.soft_self, c.soft_soft, c.soft_rigid,
                c.first, zmin);
    // the edges meet at step 2: without edge-edge contacts they pass through each other, with
    // them the top cube is held (over the first 50 steps; later, when it has tipped over and
    // slides off the ridge, an edge-edge normal can take the wrong side: collision/README.md)
    if (ee) {
      EXPECT_EQ(c.intersections, 0);
      EXPECT_GT(zmin, 0.1);
    } else {
      EXPECT_GT(c.intersections, 0);
    }
  }
}
