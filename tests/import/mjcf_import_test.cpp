// MJCF import, feature by feature, on small inline models (import/README.md, "MJCF"): frames,
// defaults, geometry, mass, joints, actuators, contact exclusions, equality constraints,
// includes, attach and replicate, warnings and refusals.
#include "mjcf_test_util.h"

namespace coulomb::mjcf_test {
namespace {


Quat axis_angle(double angle, const Vec3& axis) { return Quat(Eigen::AngleAxisd(angle, axis.normalized())); }

TEST(MjcfFrames, EveryOrientationAttributeGivesItsRotation) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="q" pos="1 2 3" quat="0 1 0 0"><freejoint/><geom size="0.1"/></body>
    <body name="aa" axisangle="0 0 2 90"><freejoint/><geom size="0.1"/></body>
    <body name="eu" euler="90 0 90"><freejoint/><geom size="0.1"/></body>
    <body name="xy" xyaxes="0 1 0 -1 0.5 0"><freejoint/><geom size="0.1"/></body>
    <body name="z" zaxis="1 0 0"><freejoint/><geom size="0.1"/></body>
    <body name="zdown" zaxis="0 0 -3"><freejoint/><geom size="0.1"/></body>
    <body name="parent" pos="1 0 0" euler="0 0 90"><freejoint/><geom size="0.1"/>
      <body name="child" pos="1 0 0"><joint type="hinge" axis="1 0 0"/><geom size="0.1"/></body>
    </body>
  </worldbody>)");
  const Json& bodies = r.scene["bodies"];
  EXPECT_TRUE(vec3(find(bodies, "q")["position"]).isApprox(Vec3(1, 2, 3)));
  EXPECT_TRUE(same_rotation(quat(find(bodies, "q")["orientation"]), axis_angle(kPi, Vec3::UnitX())));
  EXPECT_TRUE(same_rotation(quat(find(bodies, "aa")["orientation"]), axis_angle(kPi / 2, Vec3::UnitZ())));
  // eulerseq xyz: axes that turn with the frame, x first
  EXPECT_TRUE(same_rotation(quat(find(bodies, "eu")["orientation"]),
                            axis_angle(kPi / 2, Vec3::UnitX()) * axis_angle(kPi / 2, Vec3::UnitZ())));
  // y is made orthogonal to x: a quarter turn about z
  EXPECT_TRUE(same_rotation(quat(find(bodies, "xy")["orientation"]), axis_angle(kPi / 2, Vec3::UnitZ())));
  EXPECT_TRUE(same_rotation(quat(find(bodies, "z")["orientation"]), axis_angle(kPi / 2, Vec3::UnitY())));
  EXPECT_TRUE(same_rotation(quat(find(bodies, "zdown")["orientation"]), axis_angle(kPi, Vec3::UnitX())));
  // a child's frame is in its parent's: (1, 0, 0) turned a quarter about z, from (1, 0, 0)
  EXPECT_TRUE(vec3(find(bodies, "child")["position"]).isApprox(Vec3(1, 1, 0)));
  const Json& hinge = r.scene["joints"][0];
  EXPECT_TRUE(vec3(hinge["axis"]).isApprox(Vec3(0, 1, 0)));
  EXPECT_TRUE(vec3(hinge["anchor"]).isApprox(Vec3(1, 1, 0)));
}

TEST(MjcfFrames, RadiansAndFixedAxisEulerSequences) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <compiler angle="radian" eulerseq="ZYX"/>
  <worldbody>
    <body name="e" euler="0.3 0.2 0.1"><freejoint/><geom size="0.1"/></body>
    <body name="a" axisangle="1 0 0 0.5"><freejoint/><geom size="0.1"/></body>
  </worldbody>)");
  // upper case: fixed axes, each rotation applied after the ones before
  const Quat expected = axis_angle(0.1, Vec3::UnitX()) * axis_angle(0.2, Vec3::UnitY()) * axis_angle(0.3, Vec3::UnitZ());
  EXPECT_TRUE(same_rotation(quat(find(r.scene["bodies"], "e")["orientation"]), expected));
  EXPECT_TRUE(same_rotation(quat(find(r.scene["bodies"], "a")["orientation"]), axis_angle(0.5, Vec3::UnitX())));
}

TEST(MjcfDefaults, NestedClassesInheritAndChildclassApplies) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <default>
    <geom friction="0.5" density="100"/>
    <joint damping="2"/>
    <default class="big">
      <geom size="0.3"/>
      <joint damping="7" armature="0.1"/>
      <default class="bigger"><geom size="0.5"/></default>
    </default>
  </default>
  <worldbody>
    <body name="a" childclass="big"><freejoint/>
      <geom/>
      <body name="b" pos="0 0 -2"><joint name="j1"/><geom class="bigger"/></body>
    </body>
    <body name="d" pos="3 0 0"><joint name="j2"/><geom size="0.1"/></body>
  </worldbody>)");
  const Json& s = r.scene;
  EXPECT_DOUBLE_EQ(s["shapes"][find(s["bodies"], "a")["shape"].get<std::string>()]["radius"], 0.3);
  EXPECT_DOUBLE_EQ(s["shapes"][find(s["bodies"], "b")["shape"].get<std::string>()]["radius"], 0.5);
  EXPECT_NEAR(find(s["bodies"], "a")["mass"].get<double>(), 100 * 4.0 / 3.0 * kPi * 0.027, 1e-9);
  EXPECT_DOUBLE_EQ(s["materials"][find(s["bodies"], "a")["material"].get<std::string>()]["friction"], 0.5);
  EXPECT_DOUBLE_EQ(find(s["joints"], "j1")["damping"], 7.0);
  EXPECT_DOUBLE_EQ(find(s["joints"], "j1")["armature"], 0.1);
  EXPECT_DOUBLE_EQ(find(s["joints"], "j2")["damping"], 2.0);
  EXPECT_FALSE(find(s["joints"], "j2").contains("armature"));
}

TEST(MjcfGeoms, FromtoPlacesCapsulesAndBoxesAlongTheSegment) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="b"><freejoint/>
      <geom type="capsule" fromto="0 0 0 0 0 1" size="0.1"/>
      <geom type="box" fromto="0 0 0 2 0 0" size="0.2 0.7"/>
    </body>
  </worldbody>)");
  const Json& shapes = r.scene["shapes"];
  const Json& compound = shapes[find(r.scene["bodies"], "b")["shape"].get<std::string>()];
  ASSERT_EQ(compound["type"], "compound");
  const Json& cap = compound["children"][0];
  EXPECT_EQ(shapes[cap["shape"].get<std::string>()]["type"], "capsule");
  EXPECT_DOUBLE_EQ(shapes[cap["shape"].get<std::string>()]["half_height"], 0.5);
  EXPECT_DOUBLE_EQ(shapes[cap["shape"].get<std::string>()]["radius"], 0.1);
  EXPECT_TRUE(vec3(cap["position"]).isApprox(Vec3(0, 0, 0.5)));
  EXPECT_NEAR(std::abs((quat(cap["orientation"]) * Vec3::UnitZ()).z()), 1.0, 1e-12);
  const Json& box = compound["children"][1];
  // MuJoCo's box along fromto: size[0] across both ways, half the length along
  EXPECT_TRUE(vec3(shapes[box["shape"].get<std::string>()]["half_extents"]).isApprox(Vec3(0.2, 0.2, 1.0)));
  EXPECT_TRUE(vec3(box["position"]).isApprox(Vec3(1, 0, 0)));
  EXPECT_NEAR(std::abs((quat(box["orientation"]) * Vec3::UnitZ()).x()), 1.0, 1e-12);
}

TEST(MjcfGeoms, WorldGeomsAndPlanesAreFixedBodies) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <geom name="floor" type="plane" pos="0 0 -1" euler="90 0 0" size="5 5 0.1"/>
    <geom name="post" type="box" pos="2 0 0" size="0.1 0.1 1"/>
    <geom name="ghost" type="sphere" size="1" contype="0" conaffinity="0"/>
  </worldbody>)");
  const Json& floor = find(r.scene["bodies"], "floor");
  EXPECT_TRUE(floor["fixed"].get<bool>());
  const Json& plane = r.scene["shapes"][floor["shape"].get<std::string>()];
  EXPECT_TRUE(vec3(plane["normal"]).isApprox(Vec3(0, -1, 0)));  // the geom frame's z
  EXPECT_NEAR(plane["offset"].get<double>(), 0.0, 1e-12);
  EXPECT_TRUE(find(r.scene["bodies"], "post")["fixed"].get<bool>());
  // a visual geom is not a body; the model's plane replaces the default ground
  EXPECT_EQ(r.scene["bodies"].size(), 2u);
}

// What the viewer draws: every geom of the groups MuJoCo shows (0 to 2) in its rgba (its
// class's, or its material's where the rgba is the default grey); a collision geom by its own
// shape, a visual-only geom (contype = conaffinity = 0) as a shape of its own, a mesh as it is
TEST(MjcfGeoms, VisualGeometryKeepsMuJoCosColours) {
  ModelFolder folder;
  folder.write("shell.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  const auto r = import_text(folder, R"(
  <asset>
    <material name="steel" rgba="0.2 0.3 0.4 1"/>
    <mesh name="shell" file="shell.obj" scale="2 2 2"/>
  </asset>
  <default><default class="red"><geom rgba="1 0 0 1"/></default></default>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <freejoint/>
      <geom name="core" type="sphere" size="0.1" class="red"/>
      <geom name="tip" type="box" size="0.1 0.1 0.1" pos="0 0 0.5" material="steel"/>
      <geom name="skin" type="mesh" mesh="shell" pos="0 0.2 0" contype="0" conaffinity="0" rgba="0 1 0 0.5"/>
      <geom name="hidden" type="capsule" size="0.05 0.2" group="3"/>
      <geom name="clear" type="sphere" size="0.3" contype="0" conaffinity="0" rgba="1 1 1 0"/>
    </body>
  </worldbody>)");
  const Json& arm = find(r.scene["bodies"], "arm");
  const Json& shapes = r.scene["shapes"];
  ASSERT_EQ(arm["visual"].size(), 3u) << arm.dump();  // core, tip, skin
  const Json& children = shapes[arm["shape"].get<std::string>()]["children"];
  ASSERT_EQ(children.size(), 3u);  // core, tip, hidden: the collision geoms
  EXPECT_EQ(arm["visual"][0]["shape"], children[0]["shape"]);
  EXPECT_EQ(arm["visual"][0]["color"], Json({1.0, 0.0, 0.0, 1.0}));
  EXPECT_EQ(arm["visual"][1]["shape"], children[1]["shape"]);
  EXPECT_TRUE(vec3(arm["visual"][1]["position"]).isApprox(Vec3(0, 0, 0.5)));
  EXPECT_EQ(arm["visual"][1]["color"], Json({0.2, 0.3, 0.4, 1.0}));
  const Json& skin = arm["visual"][2];  // the mesh file as it is, not its hull
  EXPECT_EQ(fs::path(skin["mesh"].get<std::string>()).filename(), "shell.obj");
  EXPECT_EQ(skin["scale"], Json({2.0, 2.0, 2.0}));
  EXPECT_TRUE(vec3(skin["position"]).isApprox(Vec3(0, 0.2, 0)));
  EXPECT_EQ(skin["color"], Json({0.0, 1.0, 0.0, 0.5}));
  // an unknown material is an error naming the geom's line
  try {
    import_text(folder, R"(<worldbody><body><freejoint/><geom size="1" material="none"/></body></worldbody>)");
    ADD_FAILURE() << "no ImportError";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown material 'none'"), std::string::npos) << e.what();
  }
}

TEST(MjcfGeoms, RefusesWhatTheSceneCannotCarry) {
  ModelFolder folder;
  EXPECT_THROW(import_text(folder, R"(<worldbody><body><freejoint/><geom type="plane" size="1 1 1"/></body></worldbody>)"), ImportError);
  try {
    import_text(folder, "<worldbody>\n<body><freejoint/>\n<geom type=\"ellipsoid\" size=\"1 2 3\"/></body></worldbody>");
    FAIL() << "an ellipsoid was imported";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("model.xml:4: geom: an ellipsoid"), std::string::npos) << e.what();
  }
  // equal radii: a sphere
  const auto r = import_text(folder, R"(<worldbody><body name="e"><freejoint/><geom type="ellipsoid" size="1 1 1"/></body></worldbody>)");
  EXPECT_EQ(r.scene["shapes"]["e"]["type"], "sphere");
  // a moving body needs mass (MuJoCo's mjMINVAL)
  try {
    import_text(folder, R"(<worldbody><body name="m"><joint/></body></worldbody>)");
    FAIL() << "a massless moving body was imported";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("mjMINVAL"), std::string::npos) << e.what();
  }
}

TEST(MjcfMass, GeomsCombineByParallelAxes) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="b" pos="0 0 1"><freejoint/>
      <geom pos="0.5 0 0" size="0.1"/>
      <geom pos="-0.5 0 0" size="0.1" mass="2"/>
      <geom type="box" size="0.1 0.2 0.3" contype="0" conaffinity="0" density="10"/>
    </body>
  </worldbody>)");
  const Json& b = find(r.scene["bodies"], "b");
  const double m1 = 1000 * 4.0 / 3.0 * kPi * 1e-3, m2 = 2.0, m3 = 10 * 8 * 0.1 * 0.2 * 0.3;  // the visual box counts
  const double m = m1 + m2 + m3;
  EXPECT_NEAR(b["mass"].get<double>(), m, 1e-12);
  const double cx = (0.5 * m1 - 0.5 * m2) / m;
  EXPECT_TRUE(vec3(b["center_of_mass"]).isApprox(Vec3(cx, 0, 0)));
  const double sphere = 0.4 * 0.01;  // 2/5 r^2 per unit mass
  const double ixx = (m1 + m2) * sphere + m3 / 3 * (0.04 + 0.09);
  const double iyy = (m1 + m2) * sphere + m1 * (0.5 - cx) * (0.5 - cx) + m2 * (0.5 + cx) * (0.5 + cx) + m3 * cx * cx + m3 / 3 * (0.01 + 0.09);
  EXPECT_NEAR(b["inertia"][0].get<double>(), ixx, 1e-12);
  EXPECT_NEAR(b["inertia"][1].get<double>(), iyy, 1e-12);
  EXPECT_NEAR(b["inertia"][3].get<double>(), 0.0, 1e-12);
  // the visual box is no collision shape: one compound of two spheres
  EXPECT_EQ(r.scene["shapes"]["b"]["children"].size(), 2u);
}

TEST(MjcfMass, InertialWithFullInertiaTurnsWithItsFrame) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="b"><freejoint/><inertial pos="0.1 0 0" mass="2" fullinertia="2 3 4 0.1 0.2 0.3"/><geom size="0.1"/></body>
    <body name="t" pos="5 0 0"><freejoint/><inertial pos="0 0.1 0" quat="0 0 0 1" mass="2" fullinertia="2 3 4 0.1 0.2 0.3"/></body>
  </worldbody>)");
  const Json& b = find(r.scene["bodies"], "b");
  EXPECT_DOUBLE_EQ(b["mass"], 2.0);
  EXPECT_TRUE(vec3(b["center_of_mass"]).isApprox(Vec3(0.1, 0, 0)));
  const std::vector<double> want = {2, 3, 4, 0.1, 0.2, 0.3};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(b["inertia"][k].get<double>(), want[k], 1e-12) << k;
  // half a turn about z reverses x and y: Ixz and Iyz change sign
  const Json& t = find(r.scene["bodies"], "t");
  const std::vector<double> turned = {2, 3, 4, 0.1, -0.2, -0.3};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(t["inertia"][k].get<double>(), turned[k], 1e-12) << k;
  EXPECT_FALSE(t.contains("shape"));  // mass and inertia only
}

TEST(MjcfBodies, WeldedBodiesJoinTheirParentAndJointChainsGetFrames) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="torso" pos="0 0 1">
      <joint name="rootx" type="slide" axis="1 0 0"/>
      <joint name="rootz" type="slide" axis="0 0 1" ref="1.25"/>
      <joint name="rooty" type="hinge" axis="0 1 0"/>
      <geom size="0.1"/>
      <body name="head" pos="0 0 0.5"><geom size="0.1"/></body>
      <body name="arm" pos="0.3 0 0"><joint name="elbow" axis="0 1 0" range="-10 10"/><geom size="0.1"/></body>
    </body>
    <body name="free" pos="3 0 0"><freejoint/><geom size="0.1"/></body>
  </worldbody>
  <contact><exclude body1="head" body2="free"/></contact>)");
  const Json& s = r.scene;
  // head is welded to torso: one body with both spheres
  const double sphere = 1000 * 4.0 / 3.0 * kPi * 1e-3;
  EXPECT_NEAR(find(s["bodies"], "torso")["mass"].get<double>(), 2 * sphere, 1e-12);
  for (const Json& b : s["bodies"]) EXPECT_NE(b["name"], "head");
  // three joints: two frames of 1% of the torso between them, proximal joint first
  EXPECT_NEAR(find(s["bodies"], "torso/rootx")["mass"].get<double>(), 0.02 * sphere, 1e-12);
  EXPECT_EQ(find(s["joints"], "rootx")["b"], nullptr);
  EXPECT_EQ(find(s["joints"], "rootx")["a"], "torso/rootx");
  EXPECT_EQ(find(s["joints"], "rootz")["b"], "torso/rootx");
  EXPECT_EQ(find(s["joints"], "rootz")["a"], "torso/rootz");
  EXPECT_EQ(find(s["joints"], "rooty")["a"], "torso");
  EXPECT_DOUBLE_EQ(find(s["joints"], "rootz")["position"], 1.25);
  EXPECT_EQ(find(s["joints"], "elbow")["limits"][1].get<double>(), 10 * kPi / 180);
  EXPECT_EQ(find(s["joints"], "elbow")["b"], "torso");
  EXPECT_EQ(s["joints"].size(), 4u);  // no joint for the free body
  // the exclusion names the scene body that holds head
  EXPECT_EQ(s["collision"]["exclude"][0], Json::array({"torso", "free"}));
}

TEST(MjcfJoints, ARefOutsideTheRangeIsPosedAtTheNearerLimit) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="base" pos="0 0 1"><freejoint/><geom size="0.1"/>
      <body name="arm"><joint name="j" axis="0 1 0" range="30 100"/><geom type="capsule" fromto="0 0 0 1 0 0" size="0.05"/>
        <body name="hand" pos="1 0 0"><joint name="k" axis="0 1 0" ref="5" range="0 10"/><geom size="0.05"/></body>
      </body>
    </body>
  </worldbody>)");
  EXPECT_TRUE(has_warning(r, "joint", "posed at 30")) << warnings_text(r);
  const Json& j = find(r.scene["joints"], "j");
  EXPECT_NEAR(j["position"].get<double>(), kPi / 6, 1e-12);
  // the arm and the hand turned 30 degrees about +y: the hand's frame is at (cos, 0, -sin)
  const Vec3 hand = vec3(find(r.scene["bodies"], "hand")["position"]);
  EXPECT_TRUE(hand.isApprox(Vec3(std::cos(kPi / 6), 0, 1 - std::sin(kPi / 6))));
  EXPECT_TRUE(vec3(find(r.scene["joints"], "k")["anchor"]).isApprox(hand));
  EXPECT_NEAR(find(r.scene["joints"], "k")["position"].get<double>(), 5 * kPi / 180, 1e-12);
}

TEST(MjcfActuators, MotorPositionVelocityAndGeneralMapToTheScene) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <default><default class="limited"><motor ctrlrange="-0.4 0.4"/></default></default>
  <worldbody>
    <body name="b"><joint name="h" range="-90 90"/><geom size="0.1"/>
      <body name="c" pos="1 0 0"><joint name="s" type="slide" axis="1 0 0"/><geom size="0.1"/></body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m" class="limited" joint="h" gear="150" forcerange="-2 2"/>
    <position name="p" joint="h" kp="100" kv="10" ctrlrange="-1 1"/>
    <velocity name="v" joint="s" kv="5"/>
    <general name="g" joint="h" gainprm="2" gear="3" forcerange="-4 4"/>
    <general name="gp" joint="s" biastype="affine" gainprm="30" biasprm="0 -30 -3"/>
    <general name="gv" joint="s" biastype="affine" gainprm="7" biasprm="0 0 -7"/>
    <motor joint="s" forcerange="-1 3"/>
  </actuator>)");
  const Json& a = r.scene["actuators"];
  ASSERT_EQ(a.size(), 7u);
  EXPECT_EQ(find(a, "m"), Json::parse(R"({"name":"m","joint":"h","type":"effort","gear":150.0,"ctrl_range":[-0.4,0.4],"max_effort":2.0})"));
  EXPECT_EQ(find(a, "p"), Json::parse(R"({"name":"p","joint":"h","type":"position","stiffness":100.0,"damping":10.0,"ctrl_range":[-1.0,1.0]})"));
  EXPECT_EQ(find(a, "v"), Json::parse(R"({"name":"v","joint":"s","type":"velocity","damping":5.0})"));
  // force = gain ctrl, clamped to forcerange: the scene's command is ctrl, so the bound is 4 / 2
  EXPECT_EQ(find(a, "g"), Json::parse(R"({"name":"g","joint":"h","type":"effort","gear":6.0,"max_effort":2.0})"));
  EXPECT_EQ(find(a, "gp"), Json::parse(R"({"name":"gp","joint":"s","type":"position","stiffness":30.0,"damping":3.0})"));
  EXPECT_EQ(find(a, "gv"), Json::parse(R"({"name":"gv","joint":"s","type":"velocity","damping":7.0})"));
  EXPECT_EQ(find(a, "actuator7")["max_effort"], 3.0);  // unnamed: a generated name
  EXPECT_TRUE(has_warning(r, "motor", "not symmetric"));
}

TEST(MjcfActuators, RefusesOtherActuatorsNamingTheLine) {
  ModelFolder folder;
  const std::string tree = "<worldbody><body><joint name=\"h\"/><geom size=\"0.1\"/></body></worldbody>\n";
  auto refused = [&](const std::string& actuator, const std::string& part) {
    try {
      import_text(folder, tree + "<actuator>\n" + actuator + "\n</actuator>");
      ADD_FAILURE() << actuator << " was imported";
    } catch (const ImportError& e) {
      EXPECT_NE(std::string(e.what()).find("model.xml:4:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused(R"(<general joint="h" biastype="affine" gainprm="1" biasprm="1 2 3"/>)", "biastype 'affine'");
  refused(R"(<motor tendon="t"/>)", "tendon transmission");
  refused(R"(<muscle joint="h"/>)", "muscle");
  refused(R"(<motor joint="nope"/>)", "unknown joint 'nope'");
}

TEST(MjcfEquality, ConnectAndWeldBecomeJointsThatLetTheBodiesTouch) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(
  <worldbody>
    <body name="a" pos="0 0 1" euler="0 0 90"><freejoint/><geom size="0.1"/></body>
    <body name="b" pos="0 1 1"><freejoint/><geom size="0.1"/></body>
    <body name="c" pos="2 0 1"><freejoint/><geom size="0.1"/></body>
  </worldbody>
  <equality>
    <connect name="link" body1="a" body2="b" anchor="1 0 0"/>
    <weld body1="c"/>
    <weld body1="a" body2="c" active="false"/>
    <joint joint1="x"/>
  </equality>)");
  const Json& link = find(r.scene["joints"], "link");
  EXPECT_EQ(link["type"], "ball");
  EXPECT_EQ(link["a"], "a");
  EXPECT_EQ(link["b"], "b");
  EXPECT_TRUE(vec3(link["anchor"]).isApprox(Vec3(0, 1, 1)));  // (1, 0, 0) in a's turned frame
  EXPECT_TRUE(link["collide"].get<bool>());
  const Json& weld = find(r.scene["joints"], "weld2");
  EXPECT_EQ(weld["type"], "fixed");
  EXPECT_EQ(weld["b"], nullptr);
  EXPECT_EQ(r.scene["joints"].size(), 2u);
  EXPECT_TRUE(has_warning(r, "weld", "inactive"));
  EXPECT_TRUE(has_warning(r, "joint", "equality constraints are not imported"));
}

TEST(MjcfFiles, IncludesAreReadRelativeToTheirFileAndCyclesRefused) {
  ModelFolder folder;
  folder.write("parts/leg.xml", R"(<mujoco><body name="leg" pos="0 0 -1"><joint name="knee"/><geom size="0.1"/></body></mujoco>)");
  folder.write("parts/body.xml", R"(<mujoco><body name="torso" pos="0 0 2"><freejoint/><geom size="0.2"/>
    <include file="leg.xml"/></body></mujoco>)");
  const auto r = import_text(folder, R"(<worldbody><include file="parts/body.xml"/></worldbody>)");
  EXPECT_TRUE(vec3(find(r.scene["bodies"], "leg")["position"]).isApprox(Vec3(0, 0, 1)));
  EXPECT_EQ(find(r.scene["joints"], "knee")["b"], "torso");

  folder.write("a.xml", R"(<mujoco><include file="b.xml"/></mujoco>)");
  folder.write("b.xml", R"(<mujoco><include file="a.xml"/></mujoco>)");
  try {
    import_text(folder, R"(<include file="a.xml"/>)");
    FAIL() << "an include cycle was read";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("includes itself"), std::string::npos) << e.what();
  }
}

TEST(MjcfFiles, AttachAndReplicateCopyAModelWithPrefixAndSuffix) {
  ModelFolder folder;
  folder.write("arm.xml", R"(<mujoco>
    <compiler angle="radian"/>
    <worldbody><body name="arm" pos="0 0 1"><joint name="j" range="-1 1"/><geom size="0.1"/></body></worldbody>
    <actuator><motor name="m" joint="j"/></actuator>
    <sensor><jointpos joint="j"/></sensor>
  </mujoco>)");
  const auto r = import_text(folder, R"(
  <asset><model name="arm" file="arm.xml"/></asset>
  <worldbody>
    <replicate count="3" offset="1 0 0" sep="-">
      <frame pos="0 2 0"><attach model="arm" body="arm" prefix="p_"/></frame>
    </replicate>
  </worldbody>)");
  for (int i = 0; i < 3; ++i) {
    const std::string suffix = "-" + std::to_string(i);
    EXPECT_TRUE(vec3(find(r.scene["bodies"], "p_arm" + suffix)["position"]).isApprox(Vec3(i, 2, 1)));
    EXPECT_EQ(find(r.scene["joints"], "p_j" + suffix)["limits"][1], 1.0);  // the attached model's radians
    EXPECT_EQ(find(r.scene["actuators"], "p_m" + suffix)["joint"], "p_j" + suffix);
  }
  EXPECT_TRUE(has_warning(r, "sensor", "not imported"));
}

TEST(MjcfWarnings, NameTheElementFileAndLineAndStrictRefuses) {
  ModelFolder folder;
  const std::string text = R"(<option timestep="0.01" integrator="RK4"/>
  <worldbody>
    <body name="b"><freejoint/>
      <geom size="0.1" solref="0.02 1"/>
      <geom size="0.1" pos="1 0 0" solref="0.02 1"/>
      <site name="s1"/>
    </body>
  </worldbody>
  <sensor><touch site="s1"/></sensor>
  <keyframe><key qpos="0 0 0 1 0 0 0"/></keyframe>)";
  const auto r = import_text(folder, text);
  EXPECT_DOUBLE_EQ(r.scene["time"]["dt"], 0.01);
  EXPECT_TRUE(has_warning(r, "option", "integrator", 2)) << warnings_text(r);
  EXPECT_TRUE(has_warning(r, "geom", "'solref'", 5)) << warnings_text(r);
  EXPECT_TRUE(has_warning(r, "geom", "and in 1 more", 5)) << warnings_text(r);
  EXPECT_TRUE(has_warning(r, "site", "not imported", 7)) << warnings_text(r);
  EXPECT_TRUE(has_warning(r, "sensor", "not imported", 10)) << warnings_text(r);
  EXPECT_TRUE(has_warning(r, "keyframe", "not imported", 11)) << warnings_text(r);
  for (std::size_t i = 1; i < r.warnings.size(); ++i) EXPECT_LE(r.warnings[i - 1].line, r.warnings[i].line);
  EXPECT_NE(r.warnings[0].text().find("model.xml:2: option:"), std::string::npos) << r.warnings[0].text();
  ImportOptions strict;
  strict.strict = true;
  EXPECT_THROW(import_text(folder, text, strict), ImportError);
}

TEST(MjcfCompiler, GlobalCoordinatesOnlyWhereTheyReadAsLocal) {
  ModelFolder folder;
  const auto r = import_text(folder, R"(<compiler coordinate="global"/>
  <worldbody><body name="b"><joint name="j" pos="0 0 1"/><geom type="capsule" fromto="0 0 1 0 0 0" size="0.1"/></body></worldbody>)");
  EXPECT_TRUE(has_warning(r, "compiler", "read as local"));
  EXPECT_TRUE(vec3(find(r.scene["joints"], "j")["anchor"]).isApprox(Vec3(0, 0, 1)));
  EXPECT_THROW(import_text(folder, R"(<compiler coordinate="global"/>
  <worldbody><body pos="0 0 1"><freejoint/><geom size="0.1"/></body></worldbody>)"),
               ImportError);
}

TEST(MjcfCompiler, InertiaFromGeomChoosesTheSource) {
  ModelFolder folder;
  const std::string tree = R"(<worldbody><body name="b"><freejoint/><inertial pos="0 0 0" mass="3" diaginertia="1 1 1"/><geom size="0.1"/></body></worldbody>)";
  EXPECT_DOUBLE_EQ(find(import_text(folder, tree).scene["bodies"], "b")["mass"], 3.0);
  const auto from_geoms = import_text(folder, R"(<compiler inertiafromgeom="true"/>)" + tree);
  EXPECT_NEAR(find(from_geoms.scene["bodies"], "b")["mass"].get<double>(), 1000 * 4.0 / 3.0 * kPi * 1e-3, 1e-12);
}

TEST(MjcfGround, AddedUnderAModelAboveItAndNotThroughOne) {
  ModelFolder folder;
  // a free ball 1 m up gets the ground plane z = 0
  const auto above = import_text(folder, R"(<worldbody><body name="b" pos="0 0 1"><freejoint/><geom size="0.1"/></body></worldbody>)");
  find(above.scene["bodies"], "ground");  // fails the test when absent
  // a cart on a rail at z = 0 (inverted_pendulum.xml) was built without a floor: none is added
  const auto through = import_text(folder, R"(<worldbody><body name="cart"><joint type="slide" axis="1 0 0"/>
    <geom size="0.1"/></body></worldbody>)");
  for (const auto& b : through.scene["bodies"]) EXPECT_NE(b["name"], "ground");
  EXPECT_TRUE(has_warning(through, "worldbody", "no ground plane added", 2)) << warnings_text(through);
  // a model with a plane of its own keeps it alone
  const auto plane = import_text(folder, R"(<worldbody><geom name="floor" type="plane" size="5 5 0.1"/>
    <body name="b" pos="0 0 1"><freejoint/><geom size="0.1"/></body></worldbody>)");
  for (const auto& b : plane.scene["bodies"]) EXPECT_NE(b["name"], "ground");
}

}  // namespace
}  // namespace coulomb::mjcf_test
