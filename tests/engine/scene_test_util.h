// Helpers shared by the scene loader tests: a minimal valid scene, JSON edits by pointer, and
// an assertion that a document fails with a given pointer and message.
#pragma once
//
// Mistakes: each test breaks one rule of the format in an otherwise valid scene and checks that
// the InputError names the exact JSON pointer of the offending value and says what is wrong.
// Valid input: every key of a full scene file arrives in SceneDef unchanged; generators are
// checked against their definitions (grid formula, mt19937_64 raw outputs as the oracle for the
// random generator).
#include <coulomb/error.h>
#include <coulomb/mesh_io.h>
#include <coulomb/scene.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

namespace coulomb::scene_test {

using nlohmann::json;
namespace fs = std::filesystem;

// the smallest valid scene: one ball above a fixed ground plane
inline json minimal_scene() {
  return json::parse(R"({
    "format": "coulomb-scene/1",
    "time": {"dt": 0.01, "steps": 10},
    "shapes": {
      "ball": {"type": "sphere", "radius": 0.5},
      "ground": {"type": "plane", "normal": [0, 0, 1]}
    },
    "bodies": [
      {"name": "floor", "shape": "ground", "fixed": true},
      {"name": "b0", "shape": "ball", "position": [0, 0, 1]}
    ]
  })");
}

// `doc` with the value at `pointer` replaced (or added)
inline json with(json doc, const std::string& pointer, const json& value) {
  doc[json::json_pointer(pointer)] = value;
  return doc;
}

inline json without(json doc, const std::string& pointer) {
  json::json_pointer p(pointer);
  doc[p.parent_pointer()].erase(p.back());
  return doc;
}

// parse_scene must throw InputError at exactly `pointer` with `fragment` in its message
inline void expect_error(const json& doc, const std::string& pointer, const std::string& fragment,
                  const fs::path& base_dir = ".") {
  try {
    parse_scene(doc, base_dir);
    ADD_FAILURE() << "no error; expected one at '" << pointer << "'";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), pointer) << e.what();
    EXPECT_NE(e.message().find(fragment), std::string::npos) << "message: " << e.message();
  }
}

// a fresh folder under the system temp folder, removed afterwards
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("coulomb_scene_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }

 private:
  fs::path path_;
};

inline constexpr const char* kCubeObj = R"(# unit cube centred at the origin
v -0.5 -0.5 -0.5
v  0.5 -0.5 -0.5
v  0.5  0.5 -0.5
v -0.5  0.5 -0.5
v -0.5 -0.5  0.5
v  0.5 -0.5  0.5
v  0.5  0.5  0.5
v -0.5  0.5  0.5
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
)";

inline const BodyDef& body(const SceneDef& s, const std::string& name) {
  for (const BodyDef& b : s.bodies)
    if (b.name == name) return b;
  throw std::runtime_error("no body " + name);
}

inline void expect_vec(const Vec3& v, double x, double y, double z, double tol = 1e-12) {
  EXPECT_NEAR(v.x(), x, tol);
  EXPECT_NEAR(v.y(), y, tol);
  EXPECT_NEAR(v.z(), z, tol);
}

inline void expect_quat(const Quat& q, double w, double x, double y, double z, double tol = 1e-12) {
  EXPECT_NEAR(q.w(), w, tol);
  EXPECT_NEAR(q.x(), x, tol);
  EXPECT_NEAR(q.y(), y, tol);
  EXPECT_NEAR(q.z(), z, tol);
}

}  // namespace coulomb::scene_test
