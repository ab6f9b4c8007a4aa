#include <coulomb/tet_mesh.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace coulomb {

double signed_volume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  return (b - a).dot((c - a).cross(d - a)) / 6.0;
}

std::vector<double> tet_volumes(const TetMesh& m) {
  std::vector<double> v(m.tets.size());
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    const auto& e = m.tets[t];
    v[t] = signed_volume(m.rest[std::size_t(e[0])], m.rest[std::size_t(e[1])], m.rest[std::size_t(e[2])],
                         m.rest[std::size_t(e[3])]);
  }
  return v;
}

std::string check_tet_mesh(const TetMesh& m, double min_volume_ratio) {
  if (m.tets.empty()) return "the mesh has no tetrahedra";
  for (std::size_t i = 0; i < m.rest.size(); ++i)
    if (!m.rest[i].allFinite()) return "vertex " + std::to_string(i) + " has a non-finite position";
  const int nv = int(m.rest.size());
  for (std::size_t t = 0; t < m.tets.size(); ++t) {
    const auto& e = m.tets[t];
    for (int i = 0; i < 4; ++i) {
      if (e[std::size_t(i)] < 0 || e[std::size_t(i)] >= nv)
        return "tet " + std::to_string(t) + " refers to vertex " + std::to_string(e[std::size_t(i)]) +
               " of " + std::to_string(nv);
      for (int j = 0; j < i; ++j)
        if (e[std::size_t(i)] == e[std::size_t(j)]) return "tet " + std::to_string(t) + " repeats a vertex";
    }
  }
  const std::vector<double> vol = tet_volumes(m);
  double mean = 0.0;
  for (double v : vol) mean += std::abs(v);
  mean /= double(vol.size());
  for (std::size_t t = 0; t < vol.size(); ++t) {
    if (vol[t] < 0.0) return "tet " + std::to_string(t) + " is inverted (volume " + std::to_string(vol[t]) + ")";
    if (vol[t] <= min_volume_ratio * mean) return "tet " + std::to_string(t) + " is degenerate (zero volume)";
  }
  return {};
}

std::vector<std::array<int, 3>> boundary_faces(const TetMesh& m) {
  // each tet face, oriented so that its normal points away from the opposite vertex
  static constexpr int kFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
  std::map<std::array<int, 3>, std::pair<std::array<int, 3>, int>> count;
  for (const auto& e : m.tets)
    for (const auto& f : kFaces) {
      std::array<int, 3> tri{e[std::size_t(f[0])], e[std::size_t(f[1])], e[std::size_t(f[2])]};
      std::array<int, 3> key = tri;
      std::sort(key.begin(), key.end());
      auto [it, inserted] = count.try_emplace(key, tri, 0);
      ++it->second.second;
    }
  std::vector<std::array<int, 3>> out;
  for (const auto& [key, val] : count)
    if (val.second == 1) out.push_back(val.first);
  return out;
}

TetMesh box_tet_mesh(const Vec3& h, const std::array<int, 3>& n) {
  // counts in 64 bits before anything is allocated: [2000, 2000, 2000] is 4.8e10 tets, and the
  // vertex ids below are ints
  if (n[0] < 1 || n[1] < 1 || n[2] < 1) throw std::invalid_argument("resolution must be at least 1 along every axis");
  const double tets = 6.0 * double(n[0]) * double(n[1]) * double(n[2]);  // exact below 2^53, no overflow above
  if (tets > double(kMaxTets)) {
    char msg[160];
    std::snprintf(msg, sizeof msg, "resolution [%d, %d, %d] makes %.6g tets, more than the limit of %lld", n[0], n[1], n[2],
                  tets, static_cast<long long>(kMaxTets));
    throw MeshTooLarge(msg);
  }
  TetMesh m;
  const auto id = [&](int i, int j, int k) { return (k * (n[1] + 1) + j) * (n[0] + 1) + i; };
  for (int k = 0; k <= n[2]; ++k)
    for (int j = 0; j <= n[1]; ++j)
      for (int i = 0; i <= n[0]; ++i)
        m.rest.push_back(Vec3(-h.x() + 2 * h.x() * i / n[0], -h.y() + 2 * h.y() * j / n[1], -h.z() + 2 * h.z() * k / n[2]));
  // Kuhn subdivision: the 6 tets along the cell's main diagonal (corner 0 to corner 7), one per
  // permutation of the axes
  static constexpr int kPerm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < n[2]; ++k)
    for (int j = 0; j < n[1]; ++j)
      for (int i = 0; i < n[0]; ++i)
        for (const auto& p : kPerm) {
          std::array<int, 3> c{i, j, k};
          std::array<int, 4> tet;
          tet[0] = id(c[0], c[1], c[2]);
          for (int s = 0; s < 3; ++s) {
            ++c[std::size_t(p[s])];
            tet[std::size_t(s + 1)] = id(c[0], c[1], c[2]);
          }
          const double v = signed_volume(m.rest[std::size_t(tet[0])], m.rest[std::size_t(tet[1])],
                                         m.rest[std::size_t(tet[2])], m.rest[std::size_t(tet[3])]);
          if (v < 0) std::swap(tet[2], tet[3]);
          m.tets.push_back(tet);
        }
  return m;
}

}  // namespace coulomb
