// MJCF import of the bundled robot models (../shared/robots/mjcf, read in place): counts of
// bodies, joints and actuators, and masses against the closed-form volumes of their geoms.
#include "mjcf_test_util.h"

namespace coulomb::mjcf_test {
namespace {

const fs::path kModels = fs::path(COULOMB_ROBOTS_DIR) / "mjcf";

double capsule_volume(double r, double length) { return kPi * r * r * length + 4.0 / 3.0 * kPi * r * r * r; }
double sphere_volume(double r) { return 4.0 / 3.0 * kPi * r * r * r; }

ImportResult load(const fs::path& file) {
  if (!fs::exists(file)) return {};
  return import_mjcf(file);
}

#define SKIP_WITHOUT(file) \
  if (!fs::exists(file)) GTEST_SKIP() << file << " is missing"

// bodies that carry a model's mass: the moving ones, less the frames of joint chains
double moving_mass(const Json& scene) {
  double m = 0.0;
  for (const Json& b : scene["bodies"])
    if (!b.value("fixed", false) && b["name"].get<std::string>().find('/') == std::string::npos) m += b["mass"].get<double>();
  return m;
}

int count_where(const Json& array, const std::string& key, const Json& value) {
  int n = 0;
  for (const Json& item : array) n += item.value(key, Json()) == value;
  return n;
}

TEST(MjcfModels, AntHangsFromItsWeldedTorsoWithEightMotors) {
  SKIP_WITHOUT(kModels / "ant.xml");
  const auto r = load(kModels / "ant.xml");
  const Json& s = r.scene;
  // the torso has no joint in this file (its free joint is commented out): welded to the world,
  // with the four hip segments welded to it; the ground is added (no plane in the model)
  EXPECT_TRUE(find(s["bodies"], "torso")["fixed"].get<bool>());
  EXPECT_EQ(s["bodies"].size(), 1u + 8u + 1u);
  EXPECT_EQ(s["joints"].size(), 8u);
  ASSERT_EQ(s["actuators"].size(), 8u);
  for (const Json& a : s["actuators"]) {
    EXPECT_EQ(a["gear"], 150.0);
    EXPECT_EQ(a["ctrl_range"], Json::array({-1.0, 1.0}));
  }
  // density 5 (the model's default geom): each leg a capsule of 0.2 sqrt 2 and one of 0.4 sqrt 2
  const double leg = 5 * (capsule_volume(0.08, 0.2 * std::sqrt(2.0)) + capsule_volume(0.08, 0.4 * std::sqrt(2.0)));
  EXPECT_NEAR(moving_mass(s), 4 * leg, 1e-9);
  EXPECT_DOUBLE_EQ(s["time"]["dt"], 0.01);
  // the ankles start outside their ranges in MuJoCo (ref 0): posed at the nearer limit
  EXPECT_TRUE(has_warning(r, "ankle_1", "posed at 30")) << warnings_text(r);
  EXPECT_NEAR(find(s["joints"], "ankle_2")["position"].get<double>(), -30 * kPi / 180, 1e-12);
  EXPECT_TRUE(has_warning(r, "custom", "not imported"));
}

TEST(MjcfModels, HopperIsAPlanarChainInGlobalCoordinates) {
  SKIP_WITHOUT(kModels / "hopper.xml");
  const auto r = load(kModels / "hopper.xml");
  const Json& s = r.scene;
  EXPECT_TRUE(has_warning(r, "compiler", "read as local"));
  // torso on slide x, slide z, hinge y: two chain frames; thigh, leg, foot on one hinge each
  EXPECT_EQ(s["bodies"].size(), 6u + 1u);
  EXPECT_EQ(s["joints"].size(), 6u);
  EXPECT_EQ(s["actuators"].size(), 3u);
  EXPECT_DOUBLE_EQ(find(s["joints"], "ignore2")["position"], 1.25);
  const double mass = 1000 * (capsule_volume(0.05, 0.4) + capsule_volume(0.05, 0.45) + capsule_volume(0.04, 0.5) +
                              capsule_volume(0.06, 0.39));
  EXPECT_NEAR(moving_mass(s), mass, 1e-9);
  EXPECT_NEAR(find(s["bodies"], "torso/ignore1")["mass"].get<double>(), 0.01 * 1000 * capsule_volume(0.05, 0.4), 1e-9);
  // the foot's capsule runs along x at z = 0.1
  const Json& foot = find(s["bodies"], "foot");
  EXPECT_TRUE(vec3(foot["position"]).isApprox(Vec3::Zero()));
  EXPECT_NEAR(vec3(foot["center_of_mass"]).z(), 0.1, 1e-12);
}

TEST(MjcfModels, HalfCheetahTotalMassIsSetByTheCompiler) {
  SKIP_WITHOUT(kModels / "half_cheetah.xml");
  const auto r = load(kModels / "half_cheetah.xml");
  EXPECT_EQ(r.scene["joints"].size(), 9u);
  EXPECT_EQ(r.scene["actuators"].size(), 6u);
  EXPECT_NEAR(moving_mass(r.scene), 14.0, 1e-9);  // settotalmass="14"
  EXPECT_TRUE(has_warning(r, "inertial", "inertiafromgeom"));
  EXPECT_TRUE(has_warning(r, "joint", "springs"));
}

TEST(MjcfModels, ReacherAndInvertedPendulumImport) {
  SKIP_WITHOUT(kModels / "reacher.xml");
  const auto reacher = load(kModels / "reacher.xml");
  EXPECT_EQ(reacher.scene["joints"].size(), 4u);
  EXPECT_EQ(reacher.scene["actuators"].size(), 2u);
  const auto pendulum = load(kModels / "inverted_pendulum.xml");
  EXPECT_EQ(pendulum.scene["joints"].size(), 2u);
  ASSERT_EQ(pendulum.scene["actuators"].size(), 1u);
  EXPECT_EQ(pendulum.scene["actuators"][0]["ctrl_range"], Json::array({-3.0, 3.0}));
  EXPECT_TRUE(find(pendulum.scene["bodies"], "rail")["fixed"].get<bool>());
  EXPECT_TRUE(has_warning(pendulum, "size", "not imported"));
}

TEST(MjcfModels, BulletHumanoidHas21HingesAndMotors) {
  SKIP_WITHOUT(kModels / "humanoid.xml");
  const auto r = load(kModels / "humanoid.xml");
  EXPECT_EQ(r.scene["joints"].size(), 21u);
  EXPECT_EQ(r.scene["actuators"].size(), 21u);
  EXPECT_EQ(count_where(r.scene["bodies"], "name", "floor"), 1);
  EXPECT_TRUE(find(r.scene["bodies"], "torso")["fixed"].get<bool>());  // no free joint in this file
}

TEST(MjcfModels, MujocoHumanoidWithDefaultsAndChildclass) {
  SKIP_WITHOUT(kModels / "mujoco/humanoid.xml");
  const auto r = load(kModels / "mujoco/humanoid.xml");
  const Json& s = r.scene;
  EXPECT_EQ(s["joints"].size(), 21u);
  EXPECT_EQ(s["actuators"].size(), 21u);
  // the torso is free and holds the head (welded); its geoms: two capsules and a sphere
  const Json& torso = find(s["bodies"], "torso");
  EXPECT_FALSE(torso.value("fixed", false));
  const double torso_mass = 1000 * (capsule_volume(0.07, 0.14) + capsule_volume(0.06, 0.12) + sphere_volume(0.09));
  EXPECT_NEAR(torso["mass"].get<double>(), torso_mass, 1e-9);
  // class shin: fromto and size from the defaults; class knee: pos and axis; hip_y: axis
  const Json& knee = find(s["joints"], "knee_right");
  EXPECT_TRUE(vec3(knee["axis"]).isApprox(Vec3(0, -1, 0)));
  EXPECT_NEAR(knee["limits"][0].get<double>(), -160 * kPi / 180, 1e-12);
  EXPECT_DOUBLE_EQ(find(s["actuators"], "hip_y_right")["gear"], 120.0);
  EXPECT_EQ(find(s["actuators"], "hip_y_right")["ctrl_range"], Json::array({-1.0, 1.0}));
  // the model's two exclusions, and a body and its parent on each chain of several joints
  // (waist, thighs, feet, upper arms: MuJoCo's parent filter)
  EXPECT_EQ(s["collision"]["exclude"].size(), 2u + 7u);
  for (const char* element : {"tendon", "keyframe", "visual", "light", "camera"})
    EXPECT_TRUE(has_warning(r, element, "not imported")) << element << "\n" << warnings_text(r);
  EXPECT_TRUE(has_warning(r, "joint", "springs"));
}

TEST(MjcfModels, TwentyTwoHumanoidsAttachedAndReplicated) {
  SKIP_WITHOUT(kModels / "mujoco/22_humanoids.xml");
  const auto r = load(kModels / "mujoco/22_humanoids.xml");
  const Json& s = r.scene;
  EXPECT_EQ(s["joints"].size(), 22u * 21u);
  EXPECT_EQ(s["actuators"].size(), 22u * 21u);
  EXPECT_EQ(s["collision"]["exclude"].size(), 22u * 9u);
  // copy i turned i * 16.36 degrees about z, 4 m from the axis
  for (int i : {0, 7, 21}) {
    const std::string name = "_torso-" + std::string(i < 10 ? "0" : "") + std::to_string(i);
    const Vec3 p = vec3(find(s["bodies"], name)["position"]);
    const double a = i * 16.36 * kPi / 180;
    EXPECT_TRUE(p.isApprox(Vec3(4 * std::sin(a), -4 * std::cos(a), 1.282), 1e-9)) << name << ": " << p.transpose();
  }
  EXPECT_EQ(find(s["actuators"], "_knee_left-05")["joint"], "_knee_left-05");
}

}  // namespace
}  // namespace coulomb::mjcf_test
