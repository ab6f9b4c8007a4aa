// URDF import (import/src/urdf_import.cpp): each feature on a small URDF written by the test,
// with the expected scene values worked out by hand (rotations, forward kinematics, limits),
// every error naming the file, line and element, and the three robots of ../shared/robots/urdf
// imported as a whole.
#include <coulomb/import.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

namespace coulomb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kRobots = fs::path(COULOMB_SOURCE_DIR) / ".." / "shared" / "robots" / "urdf";

class UrdfImport : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("coulomb_urdf_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  // a <robot> of the given links and joints
  fs::path robot(const std::string& body, const std::string& name = "robot.urdf") {
    return write(name, "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n" + body + "</robot>\n");
  }
  ImportResult import(const std::string& body, ImportOptions options = {}) {
    return import_urdf(robot(body), options);
  }
  // the ImportError's message for this robot
  std::string error_of(const std::string& body, ImportOptions options = {}) {
    try {
      import(body, options);
    } catch (const ImportError& e) {
      return e.what();
    }
    ADD_FAILURE() << "no ImportError";
    return "";
  }
  fs::path dir_;
};

ImportOptions no_ground() {
  ImportOptions o;
  o.ground = false;
  return o;
}
ImportOptions strict() {
  ImportOptions o;
  o.strict = true;
  return o;
}
ImportOptions floating_at(double x, double y, double z) {
  ImportOptions o;
  o.floating_base = true;
  o.base_position = std::array<double, 3>{x, y, z};
  return o;
}

const json& body(const json& scene, const std::string& name) {
  for (const json& b : scene["bodies"])
    if (b["name"] == name) return b;
  throw std::runtime_error("no body " + name);
}
const json& joint(const json& scene, const std::string& name) {
  for (const json& j : scene["joints"])
    if (j["name"] == name) return j;
  throw std::runtime_error("no joint " + name);
}
bool has_warning(const ImportResult& r, const std::string& fragment, int line = -1) {
  for (const ImportWarning& w : r.warnings)
    if (w.text().find(fragment) != std::string::npos && (line < 0 || w.line == line)) return true;
  return false;
}
void expect_vec(const json& v, std::vector<double> want, double tol = 1e-12) {
  ASSERT_EQ(v.size(), want.size()) << v;
  for (std::size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(v[k].get<double>(), want[k], tol) << v;
}

const std::string kBase = R"(<link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
)";
std::string link(const std::string& name, const std::string& extra = "") {
  return "<link name=\"" + name +
         "\"><inertial><mass value=\"2\"/><inertia ixx=\"0.1\" iyy=\"0.1\" izz=\"0.1\" ixy=\"0\" ixz=\"0\" "
         "iyz=\"0\"/></inertial>" +
         extra + "</link>\n";
}

// I' = R I R^T: a quarter turn about z swaps Ixx and Iyy; the centre of mass is the origin's xyz
TEST_F(UrdfImport, InertialIsRotatedIntoTheLinkFrame) {
  const ImportResult r = import(kBase + R"(<link name="arm"><inertial><origin xyz="0.1 0.2 0.3" rpy="0 0 1.5707963267948966"/>
      <mass value="3"/><inertia ixx="1" iyy="2" izz="2.5" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="j" type="fixed"><parent link="base"/><child link="arm"/></joint>)",
                                    no_ground());
  const json& arm = body(r.scene, "arm");
  EXPECT_EQ(arm["mass"], 3.0);
  expect_vec(arm["center_of_mass"], {0.1, 0.2, 0.3});
  expect_vec(arm["inertia"], {2, 1, 2.5, 0, 0, 0});
  // a tilted principal frame gives products of inertia: R_x(pi/4) diag(1, 2, 2.5) R_x(pi/4)^T
  const ImportResult t = import(kBase + R"(<link name="arm"><inertial><origin rpy="0.7853981633974483 0 0"/>
      <mass value="3"/><inertia ixx="1" iyy="2" izz="2.5" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="j" type="fixed"><parent link="base"/><child link="arm"/></joint>)",
                                    no_ground());
  expect_vec(body(t.scene, "arm")["inertia"], {1, 2.25, 2.25, 0, 0, -0.25});
}

// revolute -> hinge with limits, continuous -> hinge without, prismatic -> prismatic with
// limits, fixed -> fixed, floating -> none (a free child); a (child), b (parent)
TEST_F(UrdfImport, EachJointTypeMapsToItsSceneJoint) {
  const ImportResult r = import(kBase + link("l1") + link("l2") + link("l3") + link("l4") + link("l5") + R"(
    <joint name="rev" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/><limit lower="-1" upper="2" effort="0" velocity="0"/></joint>
    <joint name="cont" type="continuous"><parent link="l1"/><child link="l2"/><axis xyz="1 0 0"/></joint>
    <joint name="pri" type="prismatic"><parent link="l2"/><child link="l3"/><axis xyz="0 0 1"/><limit lower="-0.5" upper="0.5" effort="0" velocity="0"/></joint>
    <joint name="fix" type="fixed"><parent link="l3"/><child link="l4"/></joint>
    <joint name="free" type="floating"><parent link="base"/><child link="l5"/></joint>)",
                                no_ground());
  ASSERT_EQ(r.scene["joints"].size(), 4u);
  EXPECT_EQ(joint(r.scene, "rev")["type"], "hinge");
  expect_vec(joint(r.scene, "rev")["limits"], {-1, 2});
  EXPECT_EQ(joint(r.scene, "rev")["a"], "l1");
  EXPECT_EQ(joint(r.scene, "rev")["b"], "base");
  EXPECT_EQ(joint(r.scene, "cont")["type"], "hinge");
  EXPECT_FALSE(joint(r.scene, "cont").contains("limits"));
  EXPECT_EQ(joint(r.scene, "pri")["type"], "prismatic");
  expect_vec(joint(r.scene, "pri")["limits"], {-0.5, 0.5});
  EXPECT_EQ(joint(r.scene, "fix")["type"], "fixed");
  EXPECT_TRUE(body(r.scene, "base").value("fixed", false));
  EXPECT_FALSE(body(r.scene, "l5").value("fixed", false));
  EXPECT_FALSE(r.scene.contains("actuators"));  // effort 0: no actuator
}

// the joint frame is the parent's frame times the origin; the axis is given in the joint frame
TEST_F(UrdfImport, AnchorAxisAndLinkPosesFollowTheJointOrigins) {
  const ImportResult r = import(kBase + link("l1") + link("l2") + R"(
    <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/>
      <origin xyz="0 0 1" rpy="0 0 1.5707963267948966"/><axis xyz="1 0 0"/></joint>
    <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/><origin xyz="0.5 0 0"/><axis xyz="0 0 1"/></joint>)",
                                no_ground());
  expect_vec(joint(r.scene, "j1")["anchor"], {0, 0, 1});
  expect_vec(joint(r.scene, "j1")["axis"], {0, 1, 0});  // x turned a quarter about z
  expect_vec(body(r.scene, "l1")["position"], {0, 0, 1});
  const double h = std::sqrt(0.5);
  expect_vec(body(r.scene, "l1")["orientation"], {h, 0, 0, h});
  expect_vec(body(r.scene, "l2")["position"], {0, 0.5, 1});  // 0.5 along l1's x, which is world y
  expect_vec(joint(r.scene, "j2")["anchor"], {0, 0.5, 1});
  expect_vec(joint(r.scene, "j2")["axis"], {0, 0, 1});
}

// 0 outside [lo, hi]: the link is placed at the nearest limit and the joint's position starts there
TEST_F(UrdfImport, LimitsThatExcludeZeroPlaceTheJointAtTheNearestLimit) {
  const ImportResult r = import(kBase + link("l1") + link("l2") + R"(
    <joint name="hinge" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
      <limit lower="0.5" upper="1.5" effort="0" velocity="0"/></joint>
    <joint name="slide" type="prismatic"><parent link="l1"/><child link="l2"/><origin xyz="1 0 0"/><axis xyz="1 0 0"/>
      <limit lower="-2" upper="-1" effort="0" velocity="0"/></joint>)",
                                no_ground());
  EXPECT_DOUBLE_EQ(joint(r.scene, "hinge")["position"].get<double>(), 0.5);
  expect_vec(body(r.scene, "l1")["orientation"], {std::cos(0.25), 0, 0, std::sin(0.25)});
  EXPECT_DOUBLE_EQ(joint(r.scene, "slide")["position"].get<double>(), -1.0);
  // l2: l1's x axis turned by 0.5 rad, 1 m out and then -1 m back along it: at l1's origin
  expect_vec(body(r.scene, "l2")["position"], {0, 0, 0}, 1e-12);
  expect_vec(joint(r.scene, "slide")["anchor"], {std::cos(0.5), std::sin(0.5), 0});
  EXPECT_TRUE(has_warning(r, "joint 'hinge': 0 lies outside its limits"));
}

// a revolute joint whose <limit> writes neither lower nor upper is imported without limits
TEST_F(UrdfImport, ALimitWithoutLowerAndUpperLeavesTheHingeFree) {
  const ImportResult r = import(kBase + link("l1") + R"(<joint name="knee" type="revolute"><parent link="base"/>
      <child link="l1"/><axis xyz="0 1 0"/><limit effort="10" velocity="3"/></joint>)",
                                no_ground());
  EXPECT_FALSE(joint(r.scene, "knee").contains("limits"));
  EXPECT_TRUE(has_warning(r, "gives neither lower nor upper", 6));
  // limit effort -> an effort actuator named after the joint; velocity -> max_velocity
  ASSERT_EQ(r.scene["actuators"].size(), 1u);
  EXPECT_EQ(r.scene["actuators"][0], (json{{"name", "knee"}, {"type", "effort"}, {"joint", "knee"},
                                           {"max_effort", 10.0}, {"max_velocity", 3.0}}));
}

TEST_F(UrdfImport, DynamicsBecomeJointDampingAndFriction) {
  const ImportResult r = import(kBase + link("l1") + R"(<joint name="j" type="continuous"><parent link="base"/>
      <child link="l1"/><axis xyz="0 1 0"/><dynamics damping="0.5" friction="0.25"/></joint>)");
  EXPECT_EQ(joint(r.scene, "j")["damping"], 0.5);
  EXPECT_EQ(joint(r.scene, "j")["friction"], 0.25);
}

// box size -> half extents, cylinder length -> 2 half heights, several collisions -> a compound
TEST_F(UrdfImport, CollisionGeometryBecomesShapes) {
  const ImportResult r = import(kBase + link("l1", R"(<collision><geometry><box size="0.2 0.4 0.6"/></geometry></collision>
      <collision><origin xyz="0 0 1"/><geometry><cylinder radius="0.1" length="0.5"/></geometry></collision>
      <collision><origin xyz="0 0 2"/><geometry><sphere radius="0.3"/></geometry></collision>)") +
                                R"(<joint name="j" type="fixed"><parent link="base"/><child link="l1"/></joint>)",
                                no_ground());
  const json& shapes = r.scene["shapes"];
  EXPECT_EQ(shapes["l1"]["type"], "compound");
  ASSERT_EQ(shapes["l1"]["children"].size(), 3u);
  expect_vec(shapes["l1/0"]["half_extents"], {0.1, 0.2, 0.3});
  EXPECT_EQ(shapes["l1/1"], (json{{"type", "cylinder"}, {"radius", 0.1}, {"half_height", 0.25}}));
  EXPECT_EQ(shapes["l1/2"], (json{{"type", "sphere"}, {"radius", 0.3}}));
  expect_vec(shapes["l1"]["children"][2]["position"], {0, 0, 2});
  EXPECT_EQ(body(r.scene, "l1")["contype"], 2);  // links do not collide with each other
  EXPECT_EQ(body(r.scene, "l1").value("conaffinity", 1), 1);  // the default, not written
}

// package://NAME/REST is NAME/REST under a search-path folder; relative paths are beside the
// model; the scene holds absolute paths
TEST_F(UrdfImport, MeshPathsResolvePackagesAndRelativePaths) {
  const std::string cube = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  write("pkgs/my_robot/meshes/a.obj", cube);
  write("model/meshes/b.obj", cube);
  const std::string links = kBase + link("l1", R"(<collision><geometry><mesh filename="package://my_robot/meshes/a.obj" scale="2 2 2"/></geometry></collision>)") +
                           link("l2", R"(<collision><geometry><mesh filename="meshes/b.obj"/></geometry></collision>)") +
                           R"(<joint name="j1" type="fixed"><parent link="base"/><child link="l1"/></joint>
                              <joint name="j2" type="fixed"><parent link="base"/><child link="l2"/></joint>)";
  const fs::path model = robot(links, "model/robot.urdf");
  ImportOptions options;
  options.search_path = {dir_ / "pkgs"};
  const ImportResult r = import_urdf(model, options);
  EXPECT_EQ(r.scene["shapes"]["l1"]["file"], (dir_ / "pkgs/my_robot/meshes/a.obj").lexically_normal().string());
  expect_vec(r.scene["shapes"]["l1"]["scale"], {2, 2, 2});
  EXPECT_EQ(r.scene["shapes"]["l1"]["convex"], true);  // the hull, as MuJoCo
  EXPECT_EQ(r.scene["shapes"]["l2"]["file"], (dir_ / "model/meshes/b.obj").lexically_normal().string());
  EXPECT_FALSE(r.scene["shapes"]["l2"].contains("scale"));
  // without the search path the package is not found: an error naming the link and the places tried
  try {
    import_urdf(model, {});
    ADD_FAILURE() << "no ImportError";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("link 'l1' collision mesh: 'package://my_robot/meshes/a.obj' not found"),
              std::string::npos)
        << e.what();
  }
  // relative scene paths: beside the scene file's folder
  json scene = r.scene;
  relativize_paths(scene, dir_ / "out");
  EXPECT_EQ(scene["shapes"]["l2"]["file"], "../model/meshes/b.obj");
}

TEST_F(UrdfImport, MassesTheEngineWouldRefuseAreRepairedWithAWarning) {
  const ImportResult r = import(kBase + R"(<link name="empty"/>
    <link name="shell"><collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
    <link name="lopsided"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="5" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <link name="zero"><inertial><mass value="0"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
    <joint name="j1" type="continuous"><parent link="base"/><child link="empty"/></joint>
    <joint name="j2" type="continuous"><parent link="base"/><child link="shell"/></joint>
    <joint name="j3" type="continuous"><parent link="base"/><child link="lopsided"/></joint>
    <joint name="j4" type="continuous"><parent link="base"/><child link="zero"/></joint>)",
                                no_ground());
  EXPECT_DOUBLE_EQ(body(r.scene, "empty")["mass"].get<double>(), 1e-3);
  EXPECT_TRUE(has_warning(r, "link 'empty' inertial: no <inertial> and no collision geometry", 4));
  EXPECT_FALSE(body(r.scene, "shell").contains("mass"));  // from the box at 1000 kg/m^3
  EXPECT_TRUE(has_warning(r, "link 'shell' inertial: no <inertial>: mass and inertia are taken from the collision geometry"));
  const json& i = body(r.scene, "lopsided")["inertia"];  // 1 + 1 < 5: balanced
  EXPECT_TRUE(i[0].get<double>() + i[1].get<double>() >= i[2].get<double>()) << i;
  EXPECT_TRUE(has_warning(r, "link 'lopsided' inertial: the principal moments break the triangle inequality", 6));
  EXPECT_DOUBLE_EQ(body(r.scene, "zero")["mass"].get<double>(), 1e-3);
  EXPECT_TRUE(has_warning(r, "link 'zero' inertial: mass 0 and no collision geometry", 7));
}

TEST_F(UrdfImport, UnsupportedElementsAreWarningsWithTheirLines) {
  const ImportResult r = import(kBase + link("l1", "<visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"m\"><texture filename=\"t.png\"/></material></visual>") +
                                link("l2", "<visual><geometry><box size=\"1 1 1\"/></geometry><material name=\"m\"><texture filename=\"t.png\"/></material></visual>") + R"(
    <joint name="j1" type="continuous"><parent link="base"/><child link="l1"/><safety_controller k_velocity="1"/></joint>
    <joint name="j2" type="continuous"><parent link="base"/><child link="l2"/><mimic joint="j1"/><calibration rising="0"/></joint>
    <transmission name="t"/>
    <gazebo/>)");
  const std::string f = (dir_ / "robot.urdf").string();
  EXPECT_TRUE(has_warning(r, f + ":4: link 'l1' visual material: textures are not imported"));
  EXPECT_FALSE(has_warning(r, "link 'l2' visual"));  // once per model
  EXPECT_TRUE(has_warning(r, f + ":7: joint 'j1' safety_controller: not imported"));
  EXPECT_TRUE(has_warning(r, f + ":8: joint 'j2' mimic: not imported: the joint moves on its own instead of following joint 'j1'"));
  EXPECT_TRUE(has_warning(r, ":8: joint 'j2' calibration"));
  EXPECT_TRUE(has_warning(r, ":9: transmission 't'"));
  EXPECT_TRUE(has_warning(r, ":10: gazebo"));
  for (std::size_t k = 1; k < r.warnings.size(); ++k) EXPECT_LE(r.warnings[k - 1].line, r.warnings[k].line);
  // --strict: the first warning is an error
  EXPECT_NE(error_of(kBase + link("l1", "<visual><geometry><box size=\"1 1 1\"/></geometry></visual><sensor/>") +
                         R"(<joint name="j1" type="fixed"><parent link="base"/><child link="l1"/></joint>)",
                     strict())
                .find(":4: link 'l1': <sensor> is not a URDF element this importer knows"),
            std::string::npos);
}

// <visual>: shapes the viewer draws (meshes as they are, not their hulls) at their origin in the
// link frame, coloured by their material (its own or the robot's, by name); a missing visual mesh
// is left out with a warning
TEST_F(UrdfImport, VisualGeometryIsKeptForTheViewer) {
  const std::string cube = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
  write("meshes/shell.obj", cube);
  const ImportResult r = import(R"(<material name="blue"><color rgba="0 0 1 1"/></material>)" + kBase +
                                link("l1", R"(<visual><origin xyz="0 0 0.5" rpy="0 0 1.5707963267948966"/><geometry><box size="0.2 0.4 0.6"/></geometry>
                                  <material name="blue"/></visual>
                                  <visual><geometry><mesh filename="meshes/shell.obj" scale="2 2 2"/></geometry>
                                  <material name="red"><color rgba="1 0 0 0.5"/></material></visual>
                                  <visual><geometry><mesh filename="meshes/missing.stl"/></geometry></visual>
                                  <collision><geometry><sphere radius="0.1"/></geometry></collision>)") +
                                R"(<joint name="j" type="continuous"><parent link="base"/><child link="l1"/></joint>)",
                                no_ground());
  const json& l1 = body(r.scene, "l1");
  ASSERT_EQ(l1["visual"].size(), 2u) << l1;
  const json& box = l1["visual"][0];
  EXPECT_EQ(r.scene["shapes"][box["shape"].get<std::string>()]["type"], "box");
  expect_vec(box["position"], {0, 0, 0.5});
  expect_vec(box["orientation"], {std::sqrt(0.5), 0, 0, std::sqrt(0.5)});
  expect_vec(box["color"], {0, 0, 1, 1});
  const json& mesh = l1["visual"][1];  // a file drawn as it is, not its hull
  EXPECT_EQ(mesh["mesh"], (dir_ / "meshes/shell.obj").lexically_normal().string());
  expect_vec(mesh["scale"], {2, 2, 2});
  expect_vec(mesh["color"], {1, 0, 0, 0.5});
  EXPECT_TRUE(has_warning(r, "link 'l1' visual mesh: 'meshes/missing.stl' not found"));
  EXPECT_EQ(r.scene["shapes"]["l1"]["type"], "sphere");  // the collision shape is unchanged
  EXPECT_FALSE(body(r.scene, "base").contains("visual"));
  // the scene loads, and coulomb import's relative paths reach the visual mesh too
  json scene = r.scene;
  relativize_paths(scene, dir_ / "out");
  EXPECT_EQ(body(scene, "l1")["visual"][1]["mesh"], "../meshes/shell.obj");
}

TEST_F(UrdfImport, BadModelsAreImportErrorsNamingFileLineAndElement) {
  const std::string f = (dir_ / "robot.urdf").string();
  try {
    import_urdf(dir_ / "missing.urdf");
    ADD_FAILURE();
  } catch (const ImportError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "missing.urdf").string() + ": robot: no such file");
  }
  // malformed XML: tinyxml2's message and line (the element left open)
  EXPECT_EQ(error_of(kBase + "<link name=\"l1\">\n</lonk>\n"),
            f + ":4: XML: XML_ERROR_MISMATCHED_ELEMENT (XMLElement name=link)");
  // urdfdom's message, at the joint's line
  const std::string unknown = error_of(kBase + link("l1") +
                                       R"(<joint name="hip" type="screw"><parent link="base"/><child link="l1"/></joint>)");
  EXPECT_NE(unknown.find(f + ":5: robot: Joint [hip] has no known type [screw]"), std::string::npos) << unknown;
  const std::string planar = error_of(kBase + link("l1") +
                                      R"(<joint name="p" type="planar"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/></joint>)");
  EXPECT_NE(planar.find(f + ":5: joint 'p': planar joints are not supported"), std::string::npos) << planar;
  const std::string mesh = error_of(kBase + link("l1", R"(<collision><geometry><mesh filename="nope.stl"/></geometry></collision>)") +
                                    R"(<joint name="j" type="fixed"><parent link="base"/><child link="l1"/></joint>)");
  EXPECT_NE(mesh.find(f + ":4: link 'l1' collision mesh: 'nope.stl' not found"), std::string::npos) << mesh;
  EXPECT_NE(error_of("<link name=\"a\"/><link name=\"b\"/>").find("robot: "), std::string::npos);  // two roots
  const fs::path not_robot = write("x.urdf", "<mujoco/>");
  EXPECT_THROW(import_urdf(not_robot), ImportError);
}

// the root is welded to the world unless floating_base; with a ground it is raised until its
// lowest collision point is on it, unless base_position places it
TEST_F(UrdfImport, RootPlacement) {
  const std::string model = R"(<link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
      <collision><geometry><box size="1 1 0.4"/></geometry></collision></link>)";
  const ImportResult lifted = import(model);
  expect_vec(body(lifted.scene, "base")["position"], {0, 0, 0.2});
  EXPECT_TRUE(body(lifted.scene, "base")["fixed"].get<bool>());
  EXPECT_EQ(body(lifted.scene, "ground")["fixed"], true);
  const ImportResult placed = import(model, floating_at(1, 2, 3));
  expect_vec(body(placed.scene, "base")["position"], {1, 2, 3});
  EXPECT_FALSE(body(placed.scene, "base").contains("fixed"));
  const ImportResult bare = import(model, no_ground());
  expect_vec(body(bare.scene, "base")["position"], {0, 0, 0});
  EXPECT_THROW(body(bare.scene, "ground"), std::runtime_error);
}

// the robots of ../shared/robots/urdf: what they hold arrives in the scene
TEST_F(UrdfImport, TheTestRobotsImport) {
  if (!fs::exists(kRobots)) GTEST_SKIP() << kRobots << " is missing";
  const ImportResult cart = import_urdf(kRobots / "cartpole.urdf");
  EXPECT_EQ(cart.scene["bodies"].size(), 4u);  // slideBar, cart, pole, ground
  EXPECT_EQ(joint(cart.scene, "slider_to_cart")["type"], "prismatic");
  EXPECT_EQ(cart.scene["actuators"].size(), 1u);
  EXPECT_EQ(cart.scene["actuators"][0]["max_effort"], 1000.0);
  expect_vec(body(cart.scene, "cart")["position"], {0, 0, 0.1});  // raised onto the ground

  const ImportResult kuka = import_urdf(kRobots / "kuka_iiwa" / "model.urdf");
  EXPECT_EQ(kuka.scene["joints"].size(), 7u);
  EXPECT_EQ(kuka.scene["actuators"].size(), 7u);
  EXPECT_EQ(joint(kuka.scene, "lbr_iiwa_joint_1")["damping"], 0.5);
  EXPECT_EQ(kuka.scene["actuators"][0]["max_velocity"], 10.0);
  EXPECT_TRUE(fs::path(kuka.scene["shapes"]["lbr_iiwa_link_1"]["file"].get<std::string>()).is_absolute());
  ASSERT_EQ(body(kuka.scene, "lbr_iiwa_link_1")["visual"].size(), 1u);  // its OBJ, in the robot's "Blue"
  expect_vec(body(kuka.scene, "lbr_iiwa_link_1")["visual"][0]["color"], {0.5, 0.7, 1.0, 1.0}, 1e-6);

  const ImportResult minitaur = import_urdf(kRobots / "minitaur" / "minitaur.urdf");
  EXPECT_EQ(minitaur.scene["bodies"].size(), 28u);  // 27 links and the ground
  EXPECT_EQ(minitaur.scene["joints"].size(), 26u);
  EXPECT_TRUE(has_warning(minitaur, "joint_properties: read as <dynamics>"));
  // PyBullet's <contact>: lateral_friction 1 makes the lower legs' material; stiffness and damping are warned about
  EXPECT_EQ(body(minitaur.scene, "lower_leg_front_rightR_link")["material"], "friction_1");
  EXPECT_EQ(body(minitaur.scene, "base_chassis_link")["material"], "friction_0.8");
  EXPECT_TRUE(has_warning(minitaur, "link 'lower_leg_front_rightR_link' contact/stiffness: not imported", 430));
}

}  // namespace
}  // namespace coulomb
