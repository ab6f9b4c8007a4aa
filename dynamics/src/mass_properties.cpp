// Mass properties. Closed forms for primitives; the hull case follows the signed-tetrahedron
// decomposition of a closed surface (each triangle with the origin spans a tetrahedron whose
// covariance is det(A) * A C0 A^T with C0 the canonical covariance, Blow & Binstock 2004).
#include <coulomb/mass_properties.h>

#include <numbers>
#include <stdexcept>

namespace coulomb {

namespace {

constexpr double kPi = std::numbers::pi;

MassProperties from_diagonal(double volume, double density, const Vec3& diag) {
  MassProperties m;
  m.volume = volume;
  m.mass = density * volume;
  m.inertia = (m.mass * diag).asDiagonal();
  return m;
}

// Inertia about the com from the unit-density integrals scaled by density.
MassProperties from_integrals(const VolumeIntegrals& vi, double density) {
  MassProperties m;
  m.volume = vi.volume;
  m.mass = density * vi.volume;
  m.com = vi.first / vi.volume;
  Mat3 C = density * vi.second - m.mass * m.com * m.com.transpose();  // covariance about com
  m.inertia = C.trace() * Mat3::Identity() - C;
  return m;
}

}  // namespace

VolumeIntegrals volume_integrals(const std::vector<Vec3>& v, const std::vector<std::array<int, 3>>& tris) {
  // canonical covariance of the unit tetrahedron (0, e1, e2, e3)
  Mat3 C0;
  C0 << 2, 1, 1, 1, 2, 1, 1, 1, 2;
  C0 /= 120.0;
  VolumeIntegrals out;
  for (const auto& t : tris) {
    Mat3 A;
    A << v[std::size_t(t[0])], v[std::size_t(t[1])], v[std::size_t(t[2])];
    const double det = A.determinant();
    out.volume += det / 6.0;
    out.first += det / 24.0 * (A.col(0) + A.col(1) + A.col(2));
    out.second += det * A * C0 * A.transpose();
  }
  return out;
}

MassProperties mass_properties(const ShapeLibrary& lib, int shape, double density) {
  const Shape& s = lib[shape];
  const double r = s.radius, h = s.half_height;
  switch (s.type) {
    case ShapeType::Sphere:
      return from_diagonal(4.0 / 3.0 * kPi * r * r * r, density, Vec3::Constant(0.4 * r * r));
    case ShapeType::Box: {
      const Vec3 e = s.half_extents.cwiseProduct(s.half_extents);
      return from_diagonal(8.0 * s.half_extents.prod(), density, Vec3(e.y() + e.z(), e.x() + e.z(), e.x() + e.y()) / 3.0);
    }
    case ShapeType::Cylinder: {
      const double ix = r * r / 4.0 + h * h / 3.0;
      return from_diagonal(2.0 * kPi * r * r * h, density, Vec3(ix, ix, r * r / 2.0));
    }
    case ShapeType::Capsule: {
      // cylinder of length 2h plus two hemispheres whose centroids sit 3r/8 beyond the caps
      const double mc = density * 2.0 * kPi * r * r * h, ms = density * 4.0 / 3.0 * kPi * r * r * r;
      const double ix = mc * (r * r / 4.0 + h * h / 3.0) + ms * (0.4 * r * r + h * h + 0.75 * h * r);
      const double iz = mc * r * r / 2.0 + ms * 0.4 * r * r;
      MassProperties m;
      m.volume = 2.0 * kPi * r * r * h + 4.0 / 3.0 * kPi * r * r * r;
      m.mass = mc + ms;
      m.inertia = Vec3(ix, ix, iz).asDiagonal();
      return m;
    }
    case ShapeType::Convex: {
      std::vector<std::array<int, 3>> tris;
      for (const auto& f : s.hull.faces)
        for (std::size_t i = 1; i + 1 < f.size(); ++i) tris.push_back({f[0], f[i], f[i + 1]});
      return from_integrals(volume_integrals(s.hull.vertices, tris), density);
    }
    case ShapeType::Compound: {
      // sum of children: shift each child's inertia to the compound com (parallel axis theorem)
      MassProperties m;
      std::vector<MassProperties> parts;
      for (const CompoundChild& c : s.children) {
        MassProperties p = mass_properties(lib, c.shape, density);
        const Mat3 R = c.pose.q.toRotationMatrix();
        p.com = c.pose.apply(p.com);
        p.inertia = R * p.inertia * R.transpose();
        m.volume += p.volume;
        m.mass += p.mass;
        m.com += p.mass * p.com;
        parts.push_back(p);
      }
      m.com /= m.mass;
      for (const MassProperties& p : parts) {
        const Vec3 d = p.com - m.com;
        m.inertia += p.inertia + p.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
      }
      return m;
    }
    case ShapeType::Mesh:
      if (!s.mesh || !s.mesh->closed)
        throw std::invalid_argument("an open triangle mesh encloses no volume (a moving mesh must be closed)");
      return from_integrals(volume_integrals(s.mesh->vertices, s.mesh->triangles), density);
    case ShapeType::Plane:
      break;
  }
  throw std::invalid_argument(std::string("shape type '") + shape_type_name(s.type) + "' has no finite volume");
}

}  // namespace coulomb
