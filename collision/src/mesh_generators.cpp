// Parametric closed surfaces (see mesh_generators.h).
#include <coulomb/mesh_generators.h>
#include <numbers>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

namespace coulomb {

Surface box_surface(const Vec3& h) {
  return Surface{
      {{-h.x(), -h.y(), -h.z()}, {h.x(), -h.y(), -h.z()}, {h.x(), h.y(), -h.z()}, {-h.x(), h.y(), -h.z()},
       {-h.x(), -h.y(), h.z()}, {h.x(), -h.y(), h.z()}, {h.x(), h.y(), h.z()}, {-h.x(), h.y(), h.z()}},
      {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
       {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}}};
}

Surface voxel_surface(const std::vector<std::array<int, 3>>& cells, double cell) {
  const std::set<std::array<int, 3>> filled(cells.begin(), cells.end());
  Surface s;
  std::map<std::array<int, 3>, int> index;  // lattice point -> vertex
  const auto vertex = [&](const std::array<int, 3>& p) {
    auto [it, added] = index.emplace(p, int(s.vertices.size()));
    if (added) s.vertices.emplace_back(cell * (p[0] - 0.5), cell * (p[1] - 0.5), cell * (p[2] - 0.5));
    return it->second;
  };
  for (const auto& c : filled)
    for (int axis = 0; axis < 3; ++axis)
      for (int side : {-1, 1}) {
        std::array<int, 3> nb = c;
        nb[std::size_t(axis)] += side;
        if (filled.count(nb)) continue;
        // the face's 4 corners, counter-clockwise seen from outside (along axis * side)
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        std::array<int, 3> base = c;
        if (side > 0) base[std::size_t(axis)] += 1;
        std::array<std::array<int, 3>, 4> q{base, base, base, base};
        q[1][std::size_t(u)] += 1;
        q[2][std::size_t(u)] += 1, q[2][std::size_t(v)] += 1;
        q[3][std::size_t(v)] += 1;
        std::array<int, 4> id{vertex(q[0]), vertex(q[1]), vertex(q[2]), vertex(q[3])};
        if (side > 0) {
          s.triangles.push_back({id[0], id[1], id[2]});
          s.triangles.push_back({id[0], id[2], id[3]});
        } else {
          s.triangles.push_back({id[0], id[2], id[1]});
          s.triangles.push_back({id[0], id[3], id[2]});
        }
      }
  return s;
}

Surface jack_surface(double arm, int length) {
  if (length < 1) throw std::invalid_argument("a jack needs arms of at least one cell");
  std::vector<std::array<int, 3>> cells{{0, 0, 0}};
  for (int axis = 0; axis < 3; ++axis)
    for (int side : {-1, 1})
      for (int k = 1; k <= length; ++k) {
        std::array<int, 3> c{0, 0, 0};
        c[std::size_t(axis)] = side * k;
        cells.push_back(c);
      }
  return voxel_surface(cells, arm);
}

Surface funnel_surface(double r_top, double r_bottom, double height, double spout, double thickness, int segments) {
  if (!(r_top > r_bottom && r_bottom > 0.0 && height > 0.0 && spout >= 0.0 && thickness > 0.0 && segments >= 3))
    throw std::invalid_argument("funnel: need r_top > r_bottom > 0, height > 0, spout >= 0, thickness > 0, segments >= 3");
  // profile (radius, z) of the inner wall from the top rim down, then the outer wall back up
  std::vector<std::pair<double, double>> profile{{r_top, height}, {r_bottom, 0.0}};
  if (spout > 0.0) profile.push_back({r_bottom, -spout});
  const std::size_t inner = profile.size();
  for (std::size_t i = inner; i-- > 0;) profile.push_back({profile[i].first + thickness, profile[i].second});
  // the profile is a closed loop (inner down, outer up); revolve it
  Surface s;
  const int m = int(profile.size());
  for (int k = 0; k < segments; ++k) {
    const double a = 2.0 * M_PI * k / segments;
    for (const auto& [r, z] : profile) s.vertices.emplace_back(r * std::cos(a), r * std::sin(a), z);
  }
  for (int k = 0; k < segments; ++k) {
    const int k1 = (k + 1) % segments;
    for (int i = 0; i < m; ++i) {
      const int i1 = (i + 1) % m;
      const int a = k * m + i, b = k * m + i1, c = k1 * m + i1, d = k1 * m + i;
      // the loop runs inner-down, outer-up: this winding faces away from the wall's material
      s.triangles.push_back({a, c, b});
      s.triangles.push_back({a, d, c});
    }
  }
  return s;
}

Surface torus_surface(double major, double minor, int segments, int sides) {
  if (!(major > minor && minor > 0.0) || segments < 3 || sides < 3)
    throw std::invalid_argument("a torus needs major > minor > 0 and at least 3 segments and sides");
  Surface s;
  const double two_pi = 2.0 * std::numbers::pi;
  for (int i = 0; i < segments; ++i) {
    const double u = two_pi * i / segments;
    for (int j = 0; j < sides; ++j) {
      const double v = two_pi * j / sides;
      const double r = major + minor * std::cos(v);
      s.vertices.emplace_back(r * std::cos(u), r * std::sin(u), minor * std::sin(v));
    }
  }
  const auto id = [&](int i, int j) { return (i % segments) * sides + (j % sides); };
  for (int i = 0; i < segments; ++i)
    for (int j = 0; j < sides; ++j) {
      // outward: (d/du) x (d/dv) points away from the tube's centre line
      s.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
      s.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
    }
  return s;
}

Surface icosphere_surface(double radius, int subdivisions) {
  if (!(radius > 0.0) || subdivisions < 0 || subdivisions > 7)
    throw std::invalid_argument("an icosphere needs radius > 0 and 0..7 subdivisions");
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  Surface s;
  s.vertices = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  s.triangles = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
                 {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6}, {3, 6, 8},
                 {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
  for (Vec3& v : s.vertices) v.normalize();
  for (int level = 0; level < subdivisions; ++level) {
    std::map<std::pair<int, int>, int> mid;
    const auto middle = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto [it, fresh] = mid.emplace(key, int(s.vertices.size()));
      if (fresh) s.vertices.push_back((s.vertices[std::size_t(a)] + s.vertices[std::size_t(b)]).normalized());
      return it->second;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& f : s.triangles) {
      const int ab = middle(f[0], f[1]), bc = middle(f[1], f[2]), ca = middle(f[2], f[0]);
      next.push_back({f[0], ab, ca});
      next.push_back({f[1], bc, ab});
      next.push_back({f[2], ca, bc});
      next.push_back({ab, bc, ca});
    }
    s.triangles = std::move(next);
  }
  for (Vec3& v : s.vertices) v *= radius;
  return s;
}

}  // namespace coulomb
