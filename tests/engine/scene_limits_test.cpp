// Huge values: a finite number past what the engine can derive quantities from (a
// hinge anchor or a soft thickness of 1e308, a length of 1e200 whose square overflows) is an
// InputError at load naming the value's JSON pointer (exit 2, so `coulomb validate` catches it),
// or the scene runs cleanly; it never becomes a NaN at step 1 (scenes/README.md "Limits").
#include <coulomb/error.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

namespace coulomb::limits_test {
namespace {

using nlohmann::json;

const std::filesystem::path kData = std::filesystem::path(COULOMB_SOURCE_DIR) / "tests/data/engine";

// Every rigid key with a number: each shape type, materials and a pair entry, both generators,
// the three rigid joint types with limits and a drive, the three actuator types, sleep.
json rigid_scene() {
  return json::parse(R"({
    "format": "coulomb-scene/1",
    "gravity": [0, 0, -9.81],
    "time": {"dt": 0.01, "steps": 3},
    "solver": {"type": "prox-gs", "max_iterations": 20, "abs_tol": 1e-6, "rel_tol": 1e-6,
               "r_factor": {"strategy": "local", "initial": 1, "nu": 0.9}},
    "stabilization": {"type": "baumgarte", "beta": 0.2},
    "collision": {"envelope": 0.01, "margin": 0.001, "overlap_tolerance": 0.01},
    "sleep": {"time": 0.5, "linear": 0.05, "angular": 1.0},
    "output": {"every": 1},
    "materials": {
      "default": {"density": 1000, "friction": 0.5, "torsional_friction": 0.01, "restitution": 0.2},
      "ice": {"density": 900, "friction_s": 0.05, "friction_t": 0.1, "restitution": 0.5}
    },
    "contact_materials": [{"a": "default", "b": "ice", "friction": 0.2, "torsional_friction": 0.001, "restitution": 0.1}],
    "shapes": {
      "ground": {"type": "plane", "normal": [0, 0, 1], "offset": 0},
      "ball": {"type": "sphere", "radius": 0.1},
      "brick": {"type": "box", "half_extents": [0.2, 0.1, 0.05]},
      "pill": {"type": "capsule", "radius": 0.05, "half_height": 0.1},
      "can": {"type": "cylinder", "radius": 0.05, "half_height": 0.1},
      "wedge": {"type": "convex", "vertices": [[0, 0, 0], [0.2, 0, 0], [0, 0.2, 0], [0, 0, 0.2]]},
      "tetra": {"type": "mesh", "file": "meshes/tetra.obj", "scale": 0.2},
      "dumbbell": {"type": "compound", "children": [
        {"shape": "ball", "position": [0, 0, -0.2]},
        {"shape": "ball", "position": [0, 0, 0.2], "orientation": [1, 0, 0, 0]}
      ]}
    },
    "bodies": [
      {"name": "floor", "shape": "ground", "fixed": true},
      {"name": "ball", "shape": "ball", "position": [0, 0, 0.5], "orientation": [1, 0, 0, 0],
       "velocity": [0.1, 0, 0], "angular_velocity": [0, 0.1, 0]},
      {"name": "brick", "shape": "brick", "material": "ice", "position": [1, 0, 0.3], "mass": 2,
       "inertia": [0.00833, 0.0283, 0.0333]},
      {"name": "pill", "shape": "pill", "position": [2, 0, 0.5]},
      {"name": "can", "shape": "can", "position": [3, 0, 0.5]},
      {"name": "wedge", "shape": "wedge", "position": [4, 0, 0.5]},
      {"name": "tetra", "shape": "tetra", "position": [5, 0, 0.5]},
      {"name": "dumbbell", "shape": "dumbbell", "position": [6, 0, 1]},
      {"name": "door", "shape": "brick", "position": [0, 3, 1]},
      {"name": "arm", "shape": "pill", "position": [2, 3, 1]},
      {"name": "slider", "shape": "brick", "position": [4, 3, 1]},
      {"name": "paddle", "shape": "brick", "position": [6, 3, 1]}
    ],
    "generators": [
      {"type": "grid", "prefix": "g", "shape": "ball", "count": [2, 1, 1], "origin": [0, -3, 0.5],
       "spacing": [0.5, 0, 0], "odd_row_offset": [0, 0, 0]},
      {"type": "random", "prefix": "r", "shape": "ball", "count": 2, "box_min": [2, -4, 0.5], "box_max": [3, -3, 1],
       "seed": 3, "min_separation": 0.3}
    ],
    "joints": [
      {"name": "hinge", "type": "hinge", "a": "door", "b": null, "anchor": [0, 3, 1.2], "axis": [1, 0, 0],
       "limits": [-1, 1], "compliance": 0, "angular_compliance": 0},
      {"name": "shoulder", "type": "ball", "a": "arm", "b": null, "anchor": [2, 3, 1.2]},
      {"name": "rail", "type": "prismatic", "a": "slider", "b": null, "axis": [0, 0, 1], "anchor": [4, 3, 1],
       "limits": [-0.5, 0.5], "drive": {"target": [[0, 0], [1, 0.1]], "compliance": 0.001}},
      {"name": "wrist", "type": "hinge", "a": "paddle", "b": null, "anchor": [6, 3, 1], "axis": [0, 0, 1]}
    ],
    "actuators": [
      {"name": "motor", "type": "velocity", "joint": "hinge", "max_effort": 5, "command": 0.5, "schedule": [[0, 0], [1, 1]]},
      {"name": "push", "type": "effort", "joint": "rail", "max_effort": 3, "command": 1},
      {"name": "servo", "type": "position", "joint": "wrist", "stiffness": 100, "damping": 10, "max_effort": 50,
       "command": 0.1, "schedule": [[0, 0], [1, 0.5]]}
    ]
  })");
}

// Every soft key with a number: a box and a sphere mesh, a pinned selection, an attach joint,
// the soft material keys and the soft collision keys.
json soft_scene() {
  return json::parse(R"({
    "format": "coulomb-scene/1",
    "time": {"dt": 0.005, "steps": 3},
    "solver": {"type": "xpbd-jacobi", "max_iterations": 10},
    "collision": {"envelope": 0.01, "thickness": 0.001, "self_contacts": true, "edge_edge": true},
    "materials": {
      "default": {"density": 1000, "friction": 0.5},
      "gel": {"density": 1000, "young": 1e5, "poisson": 0.3, "model": "neo-hookean", "damping": 0.01}
    },
    "shapes": {"ground": {"type": "plane", "normal": [0, 0, 1]}, "box": {"type": "box", "half_extents": [0.1, 0.1, 0.1]}},
    "bodies": [
      {"name": "floor", "shape": "ground", "fixed": true},
      {"name": "holder", "shape": "box", "position": [1, 0, 0.5]}
    ],
    "soft_bodies": [
      {"name": "cube", "material": "gel", "position": [0, 0, 0.3], "orientation": [1, 0, 0, 0], "velocity": [0, 0, -0.1],
       "mesh": {"type": "box", "half_extents": [0.1, 0.1, 0.1], "resolution": [2, 2, 2]},
       "pinned": {"box_min": [-1, -1, 0.39], "box_max": [1, 1, 1]}},
      {"name": "blob", "material": "gel", "position": [1, 0, 0.3], "mesh": {"type": "sphere", "radius": 0.08, "resolution": 3}}
    ],
    "joints": [
      {"type": "attach", "soft": "blob", "body": "holder", "vertices": {"box_min": [0, -1, 0.36], "box_max": [2, 1, 1]}}
    ]
  })");
}

// the JSON pointers of every number in `j`
void number_pointers(const json& j, const std::string& at, std::vector<std::string>& out) {
  if (j.is_number()) out.push_back(at);
  else if (j.is_object())
    for (const auto& item : j.items()) number_pointers(item.value(), at + "/" + item.key(), out);
  else if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i) number_pointers(j[i], at + "/" + std::to_string(i), out);
}

// "" when `doc` is refused at `pointer` (or at the object holding it) or runs its 3 steps
// cleanly; otherwise what went wrong. A huge component of a direction is a valid direction along
// that axis: a ground plane turned that way overlaps the bodies, which is refused as such.
std::string outcome(const json& doc, const std::string& pointer) {
  try {
    World w(parse_scene(doc, kData));
    for (int i = 0; i < 3; ++i) {
      const StepResult r = w.step();
      if (!r.ok()) return "step " + std::to_string(i + 1) + " failed: " + r.message;
    }
    return "";
  } catch (const InputError& e) {
    const std::string& p = e.pointer();
    const bool names_it = !p.empty() && (p == pointer || pointer.rfind(p + "/", 0) == 0);
    if (pointer.find("/normal/") != std::string::npos && e.message().find("at the start, more than") != std::string::npos)
      return "";
    return names_it ? "" : std::string("refused at another pointer: ") + e.what();
  } catch (const std::exception& e) {
    return std::string("threw: ") + e.what();
  }
}

void sweep(const json& scene) {
  ASSERT_EQ(outcome(scene, ""), "");  // the scene itself runs
  std::vector<std::string> pointers;
  number_pointers(scene, "", pointers);
  ASSERT_GT(pointers.size(), 40u);
  for (const std::string& p : pointers)
    for (double huge : {1e308, -1e308, 1e200, -1e200}) {
      json doc = scene;
      doc[json::json_pointer(p)] = huge;
      const std::string what = outcome(doc, p);
      EXPECT_EQ(what, "") << p << " = " << huge;
    }
}

TEST(SceneLimits, EveryRigidNumberSetHugeIsRefusedAtItsPointerOrRunsCleanly) { sweep(rigid_scene()); }

TEST(SceneLimits, EverySoftNumberSetHugeIsRefusedAtItsPointerOrRunsCleanly) { sweep(soft_scene()); }

// the issue's three examples, each refused with its own pointer and the limit in the message
TEST(SceneLimits, AHugeAnchorOrThicknessIsRefusedWithTheLimit) {
  const auto error = [](const json& doc) {
    try {
      World w(parse_scene(doc, kData));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  json anchor = rigid_scene();
  anchor["joints"][0]["anchor"] = {0, 1e308, 1.2};
  EXPECT_EQ(error(anchor), "/joints/0/anchor: expected an array of 3 numbers, each in [-1e9, 1e9] (m, the scene limit), "
                           "got [0,1e+308,1.2]");
  json thick = soft_scene();
  thick["collision"]["thickness"] = 1e308;
  EXPECT_EQ(error(thick), "/collision/thickness: expected a number >= 0, at most 1e9 (m, the scene limit), got 1e+308");
}

// An axis is a direction: normalised on load whatever its magnitude, as orientations are.
TEST(SceneLimits, AHugeAxisIsADirection) {
  json doc = rigid_scene();
  doc["joints"][0]["axis"] = {1e308, 0, 1e308};
  const SceneDef s = parse_scene(doc, kData);
  EXPECT_NEAR(s.joints[0].axis.x(), std::sqrt(0.5), 1e-15);
  EXPECT_NEAR(s.joints[0].axis.z(), std::sqrt(0.5), 1e-15);
  doc["joints"][0]["axis"] = {0, 0, 1e-13};
  EXPECT_THROW(parse_scene(doc, kData), InputError);
}

// Within the limits a scene runs: a grid whose second ball lies 1e9 m away; one more metre
// and the grid is refused at its spacing.
TEST(SceneLimits, ValuesAtTheLimitsRun) {
  json doc = rigid_scene();
  doc["generators"][0]["origin"] = {0, -3, 0.5};
  doc["generators"][0]["spacing"] = {1e9, 0, 0};
  World w(parse_scene(doc, kData));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(w.step().ok());
  doc["generators"][0]["origin"] = {1, -3, 0.5};
  try {
    parse_scene(doc, kData);
    ADD_FAILURE() << "a grid reaching past 1e9 m was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/generators/0/spacing") << e.what();
  }
}

}  // namespace
}  // namespace coulomb::limits_test
