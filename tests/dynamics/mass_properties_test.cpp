// Mass properties against closed forms (and the hull path against the box closed form).
#include <coulomb/mass_properties.h>
#include <gtest/gtest.h>

#include <numbers>

using namespace coulomb;
constexpr double kPi = std::numbers::pi;

namespace {
int add_primitive(ShapeLibrary& lib, ShapeType t, double r, double h, Vec3 e = Vec3::Zero()) {
  Shape s;
  s.type = t;
  s.radius = r;
  s.half_height = h;
  s.half_extents = e;
  if (t == ShapeType::Box) s.hull = box_hull(e);
  return lib.add(s);
}
void expect_diag(const Mat3& I, const Vec3& d, double tol) {
  EXPECT_NEAR(I(0, 0), d.x(), tol);
  EXPECT_NEAR(I(1, 1), d.y(), tol);
  EXPECT_NEAR(I(2, 2), d.z(), tol);
  EXPECT_NEAR(I(0, 1), 0.0, tol);
  EXPECT_NEAR(I(0, 2), 0.0, tol);
  EXPECT_NEAR(I(1, 2), 0.0, tol);
}
}  // namespace

TEST(MassProperties, SphereSolidBall) {
  ShapeLibrary lib;
  const int s = add_primitive(lib, ShapeType::Sphere, 0.5, 0);
  const MassProperties m = mass_properties(lib, s, 2000.0);
  const double mass = 2000.0 * 4.0 / 3.0 * kPi * 0.125;
  EXPECT_NEAR(m.mass, mass, 1e-9);
  expect_diag(m.inertia, Vec3::Constant(0.4 * mass * 0.25), 1e-9);
}

TEST(MassProperties, BoxCuboid) {
  ShapeLibrary lib;
  const int s = add_primitive(lib, ShapeType::Box, 0, 0, Vec3(0.5, 1.0, 1.5));
  const MassProperties m = mass_properties(lib, s, 1000.0);
  const double mass = 1000.0 * 1 * 2 * 3;
  EXPECT_NEAR(m.mass, mass, 1e-9);
  expect_diag(m.inertia, mass / 12.0 * Vec3(4 + 9, 1 + 9, 1 + 4), 1e-9);
}

TEST(MassProperties, CylinderSolid) {
  ShapeLibrary lib;
  const int s = add_primitive(lib, ShapeType::Cylinder, 0.3, 0.8);
  const MassProperties m = mass_properties(lib, s, 500.0);
  const double mass = 500.0 * kPi * 0.09 * 1.6;
  EXPECT_NEAR(m.mass, mass, 1e-9);
  const double ix = mass * (3 * 0.09 + 1.6 * 1.6) / 12.0;  // m (3 r^2 + L^2) / 12
  expect_diag(m.inertia, Vec3(ix, ix, mass * 0.09 / 2.0), 1e-9);
}

TEST(MassProperties, CapsuleMatchesNumericalIntegration) {
  // capsule = cylinder + 2 hemispheres; compare with a midpoint-rule integral over a grid
  ShapeLibrary lib;
  const double r = 0.2, h = 0.5;
  const int s = add_primitive(lib, ShapeType::Capsule, r, h);
  const MassProperties m = mass_properties(lib, s, 1.0);
  EXPECT_NEAR(m.volume, kPi * r * r * 2 * h + 4.0 / 3.0 * kPi * r * r * r, 1e-12);
  const int n = 120;
  double vol = 0, ixx = 0, izz = 0;
  const double dx = 2 * r / n, dz = 2 * (h + r) / (2 * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < 2 * n; ++k) {
        const double x = -r + (i + 0.5) * dx, y = -r + (j + 0.5) * dx, z = -(h + r) + (k + 0.5) * dz;
        const double zc = std::clamp(z, -h, h);
        if (x * x + y * y + (z - zc) * (z - zc) > r * r) continue;
        const double dv = dx * dx * dz;
        vol += dv;
        ixx += (y * y + z * z) * dv;
        izz += (x * x + y * y) * dv;
      }
  EXPECT_NEAR(m.volume, vol, 2e-3 * vol);
  EXPECT_NEAR(m.inertia(0, 0), ixx, 5e-3 * ixx);
  EXPECT_NEAR(m.inertia(2, 2), izz, 5e-3 * izz);
}

TEST(MassProperties, HullOfBoxVerticesEqualsBox) {
  ShapeLibrary lib;
  const Vec3 e(0.3, 0.4, 0.7);
  const int b = add_primitive(lib, ShapeType::Box, 0, 0, e);
  Shape hull;
  hull.type = ShapeType::Convex;
  hull.hull = make_convex_hull(box_hull(e).vertices);
  const int c = lib.add(hull);
  const MassProperties mb = mass_properties(lib, b, 700.0), mc = mass_properties(lib, c, 700.0);
  EXPECT_NEAR(mc.mass, mb.mass, 1e-9);
  EXPECT_NEAR((mc.com - mb.com).norm(), 0.0, 1e-12);
  EXPECT_NEAR((mc.inertia - mb.inertia).norm(), 0.0, 1e-9);
}

TEST(MassProperties, HullOfTetrahedronHasItsCentroidAndVolume) {
  ShapeLibrary lib;
  Shape s;
  s.type = ShapeType::Convex;
  s.hull = make_convex_hull({Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, 1)});
  const MassProperties m = mass_properties(lib, lib.add(s), 6.0);
  EXPECT_NEAR(m.volume, 1.0 / 6.0, 1e-12);
  EXPECT_NEAR((m.com - Vec3::Constant(0.25)).norm(), 0.0, 1e-12);
  // mass 1: int (y^2 + z^2) dm = 2/10 about the origin, minus m (1/16 + 1/16) at the centroid = 3/40;
  // products: int x y dm = 1/20 about the origin, minus m/16 -> I_xy = -(1/20 - 1/16) = 1/80
  EXPECT_NEAR(m.inertia(0, 0), 3.0 / 40.0, 1e-12);
  EXPECT_NEAR(m.inertia(0, 1), 1.0 / 80.0, 1e-12);
}

TEST(MassProperties, CompoundOfTwoBoxesIsTheLongBox) {
  ShapeLibrary lib;
  const int half = add_primitive(lib, ShapeType::Box, 0, 0, Vec3(0.5, 0.5, 0.5));
  const int whole = add_primitive(lib, ShapeType::Box, 0, 0, Vec3(1.0, 0.5, 0.5));
  Shape c;
  c.type = ShapeType::Compound;
  c.children = {{half, Pose{Vec3(-0.5, 0, 0), Quat::Identity()}}, {half, Pose{Vec3(0.5, 0, 0), Quat::Identity()}}};
  const int comp = lib.add(c);
  const MassProperties mc = mass_properties(lib, comp, 300.0), mw = mass_properties(lib, whole, 300.0);
  EXPECT_NEAR(mc.mass, mw.mass, 1e-9);
  EXPECT_NEAR(mc.com.norm(), 0.0, 1e-12);
  EXPECT_NEAR((mc.inertia - mw.inertia).norm(), 0.0, 1e-9);
}

TEST(MassProperties, CompoundComShiftsTowardsTheHeavierSide) {
  ShapeLibrary lib;
  const int small = add_primitive(lib, ShapeType::Sphere, 0.1, 0);
  const int big = add_primitive(lib, ShapeType::Sphere, 0.2, 0);
  Shape c;
  c.type = ShapeType::Compound;
  c.children = {{small, Pose{Vec3(0, 0, 0), Quat::Identity()}}, {big, Pose{Vec3(1, 0, 0), Quat::Identity()}}};
  const MassProperties m = mass_properties(lib, lib.add(c), 1.0);
  EXPECT_NEAR(m.com.x(), 8.0 / 9.0, 1e-12);  // volumes 1 : 8
}

TEST(MassProperties, PlaneHasNoMass) {
  ShapeLibrary lib;
  Shape p;
  p.type = ShapeType::Plane;
  const int id = lib.add(p);
  EXPECT_THROW(mass_properties(lib, id, 1.0), std::invalid_argument);
}
