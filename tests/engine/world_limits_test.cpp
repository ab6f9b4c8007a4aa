// What the World refuses to simulate, and how it says so (issue 11): masses and inertias no
// contact solve can handle and non-finite starting states are InputErrors at load (exit 2 with
// the body's JSON pointer, so `coulomb validate` catches them), and so are thread counts above the
// cap; a non-finite number in a step's output, or a body or its spinning rim faster than
// max_speed, is an invalid state (exit 3); the first Moreau half step cannot carry a body through
// a wall; and every shape type is listed by build_info (`coulomb info`).
#include <coulomb/build_info.h>
#include <coulomb/error.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace coulomb;
using nlohmann::json;

namespace {

// a 1 m cube of 1000 kg resting on a plane; `edit` changes its body entry
json cube_scene(const json& edit = json::object()) {
  json body = {{"name", "cube"}, {"shape", "cube"}, {"position", {0, 0, 0.5}}};
  body.update(edit);
  return {{"format", "coulomb-scene/1"},
          {"time", {{"dt", 0.01}, {"steps", 10}}},
          {"solver", {{"type", "pgs"}}},
          {"shapes", {{"ground", {{"type", "plane"}, {"normal", {0, 0, 1}}}}, {"cube", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}}}}},
          {"bodies", {{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}}, body}}};
}

// the InputError of building a World from `scene`, or "" when it builds
std::string load_error(const json& scene, std::string* pointer = nullptr) {
  try {
    World w(parse_scene(scene, "."));
  } catch (const InputError& e) {
    if (pointer) *pointer = e.pointer();
    return e.what();
  }
  return "";
}

TEST(WorldLimits, MassesOutsideTheSimulableRangeAreRejectedWithTheBodysPointer) {
  for (double m : {1e-300, 1e-16, 1e16, 1e305, 1e308}) {
    std::string pointer;
    const std::string e = load_error(cube_scene({{"mass", m}}), &pointer);
    EXPECT_EQ(pointer, "/bodies/1") << m;
    EXPECT_NE(e.find("outside the range"), std::string::npos) << e;
  }
  EXPECT_EQ(load_error(cube_scene({{"mass", 1e-6}})), "");  // a 1 mm cube of water
  EXPECT_EQ(load_error(cube_scene({{"mass", 1e9}})), "");
}

TEST(WorldLimits, InertiasNoMassDistributionHasAreRejected) {
  std::string pointer;
  // triangle inequality
  EXPECT_NE(load_error(cube_scene({{"inertia", {1, 1, 5}}}), &pointer).find("triangle inequality"), std::string::npos);
  EXPECT_EQ(pointer, "/bodies/1");
  // larger than all of 1000 kg at the cube's corners can give (m rho^2 = 1000 * 0.5)
  EXPECT_NE(load_error(cube_scene({{"inertia", {600, 600, 600}}})).find("larger than any mass"), std::string::npos);
  // the issue's [1e-3, 1, 1] (fell 17 m through the floor) and 1e-300: too ill-conditioned
  EXPECT_NE(load_error(cube_scene({{"inertia", {1e-3, 1, 1}}})).find("ill-conditioned"), std::string::npos);
  EXPECT_NE(load_error(cube_scene({{"inertia", {1e-300, 1e-300, 1e-300}}})).find("ill-conditioned"), std::string::npos);
  // the uniform cube's own (1000 / 6) and a hollow one's (1000 * 5 / 18) are fine
  EXPECT_EQ(load_error(cube_scene({{"inertia", {166.7, 166.7, 166.7}}})), "");
  EXPECT_EQ(load_error(cube_scene({{"inertia", {277.8, 277.8, 277.8}}})), "");
}

TEST(WorldLimits, NonFiniteStartsAreInputErrors) {
  std::string pointer;
  // the scene's numbers are capped at load (scenes/README.md "Limits"): a position whose potential
  // energy would overflow is refused at its own pointer
  EXPECT_NE(load_error(cube_scene({{"position", {0, 0, 1e308}}}), &pointer).find("the scene limit"), std::string::npos);
  EXPECT_EQ(pointer, "/bodies/1/position");
  // a 1e308 grid spacing: refused at the spacing
  json grid = cube_scene();
  grid["generators"] = {{{"type", "grid"}, {"prefix", "g"}, {"shape", "cube"}, {"count", {3, 1, 1}},
                         {"spacing", {1e308, 1, 1}}, {"origin", {0, 0, 2}}}};
  EXPECT_NE(load_error(grid, &pointer), "");
  EXPECT_EQ(pointer, "/generators/0/spacing");
  // a SceneDef built by a program passes no reader: the World checks what it starts from
  const auto world_error = [&](const SceneDef& scene) {
    try {
      World w(scene);
    } catch (const InputError& e) {
      pointer = e.pointer();
      return std::string(e.what());
    }
    return std::string();
  };
  SceneDef far = parse_scene(cube_scene(), ".");
  far.bodies[1].position.z() = 1e308;
  EXPECT_NE(world_error(far).find("beyond the scene limit"), std::string::npos);
  EXPECT_EQ(pointer, "/bodies/1");
  far.bodies[1].position.z() = INFINITY;
  EXPECT_NE(world_error(far).find("non-finite"), std::string::npos);
  EXPECT_EQ(pointer, "/bodies/1");
  // infinite derived mass: density times volume overflows
  SceneDef dense = parse_scene(cube_scene(), ".");
  dense.materials[0].density = 1e308;
  dense.shapes.shapes[std::size_t(dense.bodies[1].shape)].half_extents = {10, 10, 10};
  dense.shapes.shapes[std::size_t(dense.bodies[1].shape)].hull = box_hull({10, 10, 10});
  EXPECT_NE(world_error(dense).find("infinite mass"), std::string::npos);
  EXPECT_EQ(pointer, "/bodies/1");
}

TEST(WorldLimits, ANonFiniteOutputIsAnInvalidState) {
  // gravity 1e300 (beyond the scene limit, so set on the SceneDef): the first step's velocity is
  // finite, its kinetic energy is not
  SceneDef s = parse_scene(cube_scene({{"position", {0, 0, 10}}}), ".");
  s.gravity = {0, 0, -1e300};
  WorldSettings settings;
  settings.max_speed = 1e308;
  World w(s, settings);
  const StepResult r = w.step();
  EXPECT_EQ(r.status, StepResult::Status::InvalidState);
  EXPECT_NE(r.message.find("kinetic energy"), std::string::npos) << r.message;
}

// An embedder may skip the per-step merit (SolverOptions::evaluate_merit = false, as
// coulomb-vs-bullet does: it computes both engines' merits itself). The merit is then NaN,
// which is not an invalid state, and the impulses are the same bits as with it.
TEST(WorldLimits, AMeritNotAskedForIsNotAnInvalidState) {
  for (const char* solver : {"pgs", "prox-gs", "prox-jacobi"}) {
    json s = cube_scene({{"position", {0.1, 0, 0.49}}, {"velocity", {0.5, 0, 0}}});
    s["solver"]["type"] = solver;
    SceneDef with = parse_scene(s, "."), without = parse_scene(s, ".");
    without.solver_options.evaluate_merit = false;
    World a(with), b(without);
    for (int step = 0; step < 10; ++step) {
      ASSERT_TRUE(a.step().ok());
      const StepResult r = b.step();
      ASSERT_TRUE(r.ok()) << solver << ": " << r.message;
      EXPECT_TRUE(std::isfinite(a.last_stats().solver.merit)) << solver;
      EXPECT_TRUE(std::isnan(b.last_stats().solver.merit)) << solver;
      ASSERT_GT(a.last_stats().contacts, 0);
      const auto la = a.contact_impulses(), lb = b.contact_impulses();
      ASSERT_EQ(la.size(), lb.size());
      for (std::size_t k = 0; k < la.size(); ++k)
        EXPECT_EQ(la[k], lb[k]) << solver << " step " << step << " contact " << k;
    }
  }
}

// A 20 cm ball at 200 m/s towards a 2 cm wall, 1 m and 0.39 m away: Moreau's explicit first half
// step (1 m) used to embed it in the wall or carry it through; now the first step stops it at
// the wall, as the speculative contacts of every later step do.
TEST(WorldLimits, TheFirstMoreauHalfStepCannotCrossAWall) {
  for (const std::string solver : {"pgs", "prox-gs", "prox-jacobi"})
    for (double gap : {1.0, 0.39, 0.2}) {
      const json s = {{"format", "coulomb-scene/1"},
                      {"gravity", {0, 0, 0}},
                      {"time", {{"dt", 0.01}, {"steps", 20}}},
                      {"solver", {{"type", solver}}},
                      {"shapes", {{"wall", {{"type", "box"}, {"half_extents", {0.01, 2, 2}}}}, {"ball", {{"type", "sphere"}, {"radius", 0.1}}}}},
                      {"bodies",
                       {{{"name", "wall"}, {"shape", "wall"}, {"fixed", true}},
                        {{"name", "ball"}, {"shape", "ball"}, {"position", {-0.01 - gap, 0, 0}}, {"velocity", {200, 0, 0}}}}}};
      World w(parse_scene(s, "."));
      const int ball = w.find_body("ball");
      for (int i = 0; i < 20; ++i) {
        ASSERT_TRUE(w.step().ok()) << solver << " gap " << gap;
        // the ball's surface never passes the wall's near face (x = -0.01) by more than 1 mm
        EXPECT_LT(w.body(ball).position.x() + 0.1, -0.01 + 1e-3) << solver << " gap " << gap << " step " << i + 1;
      }
      EXPECT_LT(std::abs(w.body(ball).velocity.x()), 1e-6) << solver << " gap " << gap;
    }
}

// Initial velocities that respect every gap are left exactly as the scene gives them.
TEST(WorldLimits, TheFirstStepLeavesAdmissibleVelocitiesAlone) {
  json s = cube_scene({{"position", {0, 0, 1.5}}, {"velocity", {1, 0, -2}}});
  World w(parse_scene(s, "."));
  ASSERT_TRUE(w.step().ok());
  // free flight for the whole step: v = v0 + g dt
  EXPECT_EQ(w.body(1).velocity, Vec3(1.0, 0.0, -2.0 - 9.81 * 0.01));
}

// A thread count outside [0, kMaxThreads] is refused by the World itself, so that every entry
// point (C++, Python, the CLI's --resume) gets an InputError naming "threads".
TEST(WorldLimits, ThreadCountsAboveTheCapAreInputErrorsNamingThreads) {
  for (int threads : {-1, WorldSettings::kMaxThreads + 1, 100000}) {
    WorldSettings settings;
    settings.threads = threads;
    try {
      World w(parse_scene(cube_scene(), "."), settings);
      ADD_FAILURE() << threads << " threads were accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer(), "threads") << threads;
      EXPECT_NE(e.message().find(std::to_string(WorldSettings::kMaxThreads)), std::string::npos) << e.what();
    }
  }
  WorldSettings at_cap;
  at_cap.threads = WorldSettings::kMaxThreads;
  World w(parse_scene(cube_scene(), "."), at_cap);
  EXPECT_TRUE(w.step().ok());
}

// --max-speed covers the spin too: |w| times the bounding radius about the centre of mass (the
// speed of the body's farthest point) above the limit is an invalid state naming the body.
TEST(WorldLimits, ASpinWhoseRimExceedsTheMaxSpeedIsAnInvalidState) {
  // the 1 m cube in free fall, spinning about z; its bounding radius is sqrt(3) / 2 = 0.866 m
  WorldSettings settings;
  settings.max_speed = 10.0;
  World fast(parse_scene(cube_scene({{"position", {0, 0, 10}}, {"angular_velocity", {0, 0, 100}}}), "."), settings);
  const StepResult r = fast.step();
  EXPECT_EQ(r.status, StepResult::Status::InvalidState);
  EXPECT_EQ(r.body, fast.find_body("cube"));
  EXPECT_NE(r.message.find("step 1: body 'cube'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("angular speed of 100.0"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("rad/s"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("moves at 86.6"), std::string::npos) << r.message;  // the rim
  // 10 rad/s: a rim speed of 8.7 m/s, within the limit for every step of the fall
  World within(parse_scene(cube_scene({{"position", {0, 0, 10}}, {"angular_velocity", {0, 0, 10}}}), "."), settings);
  for (int i = 0; i < 10; ++i) {
    const StepResult ok = within.step();
    ASSERT_TRUE(ok.ok()) << ok.message;
  }
}

TEST(WorldLimits, BuildInfoListsEveryShapeType) {
  const BuildInfo b = build_info();
  for (const char* t : {"sphere", "box", "capsule", "cylinder", "plane", "convex", "compound", "mesh"})
    EXPECT_NE(std::find(b.shapes.begin(), b.shapes.end(), t), b.shapes.end()) << t;
}

// Memory guards at load: exit 2 with the pointer and the estimate, nothing allocated first.
TEST(WorldLimits, OversizedScenesAreRefusedAtLoadWithTheirEstimate) {
  json grid = cube_scene();
  grid["generators"] = {{{"type", "grid"}, {"prefix", "g"}, {"shape", "cube"}, {"count", {2000, 1000, 1}}, {"spacing", {1, 1, 1}}}};
  std::string pointer;
  EXPECT_NE(load_error(grid, &pointer).find("need about 6.4 GB"), std::string::npos);
  EXPECT_EQ(pointer, "/generators/0/count");
  json soft = cube_scene();
  soft["solver"]["type"] = "xpbd-jacobi";
  soft["materials"] = {{"default", {{"density", 1000}, {"young", 1e6}, {"poisson", 0.3}}}};
  for (int n : {100, 2000}) {
    soft["soft_bodies"] = {{{"name", "s"}, {"mesh", {{"type", "box"}, {"half_extents", {0.5, 0.5, 0.5}}, {"resolution", {n, n, n}}}}}};
    EXPECT_NE(load_error(soft, &pointer).find("tets, more than the limit"), std::string::npos) << n;
    EXPECT_EQ(pointer, "/soft_bodies/0/mesh/resolution");
  }
}

}  // namespace
