// Triangle meshes: validation, orientation, sharp edges and the kDOP tree (see mesh.h).
//
// Why it is built this way:
// - kDOPs (Klosowski et al. 1998, the narrowphase volume of seed 000 s.5) bound a triangle far
//   more tightly than a box along diagonal walls (a funnel) for the same cost: k/2 dot products.
//   Axes are integer vectors, so a kDOP of a point is exact and no normalisation is needed.
// - The tree is a flat array built top-down by a median split of triangle centroids along the
//   axis of largest spread; every choice is by value then by index, so it is deterministic.
// - A query walks the tree with an explicit stack (no recursion) and returns sorted indices,
//   so the narrowphase visits triangles in the same order whatever the tree shape.
#include <coulomb/mesh.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

namespace coulomb {

const std::vector<Vec3>& kdop_axes(int k) {
  static const std::vector<Vec3> k26 = {
      {1, 0, 0}, {0, 1, 0}, {0, 0, 1},                                        // faces
      {1, 1, 0}, {1, -1, 0}, {1, 0, 1}, {1, 0, -1}, {0, 1, 1}, {0, 1, -1},    // edges
      {1, 1, 1}, {1, 1, -1}, {1, -1, 1}, {-1, 1, 1}};                         // corners
  static const std::vector<Vec3> k18(k26.begin(), k26.begin() + 9);
  if (k == 18) return k18;
  if (k == 26) return k26;
  throw std::invalid_argument("a kDOP has k = 18 or 26, not " + std::to_string(k));
}

namespace {

Kdop empty_kdop() {
  Kdop d;
  d.lo.fill(std::numeric_limits<double>::infinity());
  d.hi.fill(-std::numeric_limits<double>::infinity());
  return d;
}

void grow(Kdop& d, const Vec3& p, const std::vector<Vec3>& axes) {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const double x = axes[i].dot(p);
    d.lo[i] = std::min(d.lo[i], x);
    d.hi[i] = std::max(d.hi[i], x);
  }
}

void grow(Kdop& d, const Kdop& o, int n) {
  for (int i = 0; i < n; ++i) {
    d.lo[std::size_t(i)] = std::min(d.lo[std::size_t(i)], o.lo[std::size_t(i)]);
    d.hi[std::size_t(i)] = std::max(d.hi[std::size_t(i)], o.hi[std::size_t(i)]);
  }
}

}  // namespace

Kdop kdop_of(const KdopBvh& bvh, const Vec3* points, int n) {
  const std::vector<Vec3>& axes = kdop_axes(bvh.k);
  Kdop d = empty_kdop();
  for (int i = 0; i < n; ++i) grow(d, points[i], axes);
  return d;
}

namespace {
// the axes are not unit vectors: a margin m along unit direction u is m |axis| along axis
constexpr double kLen[Kdop::kMaxAxes] = {1, 1, 1, M_SQRT2, M_SQRT2, M_SQRT2, M_SQRT2, M_SQRT2, M_SQRT2,
                                         1.7320508075688772, 1.7320508075688772, 1.7320508075688772,
                                         1.7320508075688772};
}  // namespace

bool kdop_overlap(const Kdop& a, const Kdop& b, int axes, double margin) {
  for (int i = 0; i < axes; ++i) {
    const double m = margin * kLen[i];
    if (a.lo[std::size_t(i)] > b.hi[std::size_t(i)] + m || b.lo[std::size_t(i)] > a.hi[std::size_t(i)] + m) return false;
  }
  return true;
}

KdopBvh build_bvh(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles, int k,
                  int leaf_size) {
  KdopBvh bvh;
  bvh.k = k;
  kdop_axes(k);  // validates k
  const std::size_t n = triangles.size();
  bvh.order.resize(n);
  std::iota(bvh.order.begin(), bvh.order.end(), 0);
  if (n == 0) return bvh;
  std::vector<Vec3> centroid(n);
  for (std::size_t i = 0; i < n; ++i)
    centroid[i] = (vertices[std::size_t(triangles[i][0])] + vertices[std::size_t(triangles[i][1])] +
                   vertices[std::size_t(triangles[i][2])]) / 3.0;
  struct Task { int node, first, count; };
  bvh.nodes.push_back({});
  std::vector<Task> stack{{0, 0, int(n)}};
  while (!stack.empty()) {
    const Task t = stack.back();
    stack.pop_back();
    BvhNode& node = bvh.nodes[std::size_t(t.node)];
    node.first = t.first;
    node.count = t.count;
    if (t.count <= std::max(leaf_size, 1)) continue;
    Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
    for (int i = t.first; i < t.first + t.count; ++i) {
      lo = lo.cwiseMin(centroid[std::size_t(bvh.order[std::size_t(i)])]);
      hi = hi.cwiseMax(centroid[std::size_t(bvh.order[std::size_t(i)])]);
    }
    int axis = 0;
    (hi - lo).maxCoeff(&axis);
    const int half = t.count / 2;
    auto first = bvh.order.begin() + t.first;
    std::nth_element(first, first + half, first + t.count, [&](int x, int y) {
      const double cx = centroid[std::size_t(x)][axis], cy = centroid[std::size_t(y)][axis];
      return cx < cy || (cx == cy && x < y);
    });
    const int left = int(bvh.nodes.size());
    bvh.nodes.push_back({});
    bvh.nodes.push_back({});
    bvh.nodes[std::size_t(t.node)].left = left;  // `node` may dangle after push_back
    bvh.nodes[std::size_t(t.node)].right = left + 1;
    bvh.nodes[std::size_t(t.node)].count = 0;
    stack.push_back({left + 1, t.first + half, t.count - half});
    stack.push_back({left, t.first, half});
  }
  refit(bvh, vertices, triangles);
  return bvh;
}

void refit(KdopBvh& bvh, const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles) {
  // each vertex is projected on the axes once (a closed surface's vertex is in about 6 triangles)
  const std::vector<Vec3>& axes = kdop_axes(bvh.k);
  const std::size_t na = axes.size();
  std::vector<double> proj(vertices.size() * na);
  for (std::size_t v = 0; v < vertices.size(); ++v)
    for (std::size_t i = 0; i < na; ++i) proj[v * na + i] = axes[i].dot(vertices[v]);
  // children always come after their parent, so a reverse sweep is bottom up
  for (std::size_t i = bvh.nodes.size(); i-- > 0;) {
    BvhNode& node = bvh.nodes[i];
    if (node.left < 0) {
      Kdop d = empty_kdop();  // a local, so that the loop keeps it in registers
      for (int t = node.first; t < node.first + node.count; ++t)
        for (int c : triangles[std::size_t(bvh.order[std::size_t(t)])]) {
          const double* p = &proj[std::size_t(c) * na];
          for (std::size_t a = 0; a < na; ++a) {  // std::min/max, written so that they compile to minsd/maxsd
            d.lo[a] = p[a] < d.lo[a] ? p[a] : d.lo[a];
            d.hi[a] = d.hi[a] < p[a] ? p[a] : d.hi[a];
          }
        }
      node.box = d;
    } else {
      node.box = bvh.nodes[std::size_t(node.left)].box;
      grow(node.box, bvh.nodes[std::size_t(node.right)].box, bvh.axes());
    }
  }
}

void bvh_query(const KdopBvh& bvh, const Kdop& box, double margin, std::vector<int>& triangles) {
  triangles.clear();
  if (bvh.nodes.empty()) return;
  int stack[64];
  int top = 0;
  stack[top++] = 0;
  while (top > 0) {
    const BvhNode& node = bvh.nodes[std::size_t(stack[--top])];
    if (!kdop_overlap(node.box, box, bvh.axes(), margin)) continue;
    if (node.left < 0) {
      triangles.insert(triangles.end(), bvh.order.begin() + node.first, bvh.order.begin() + node.first + node.count);
    } else if (top + 2 <= 64) {
      stack[top++] = node.right;
      stack[top++] = node.left;
    }
  }
  std::sort(triangles.begin(), triangles.end());
}

void bvh_pairs(const KdopBvh& a, const KdopBvh& b, double margin, std::vector<std::pair<int, int>>& pairs) {
  const auto size = [](const Kdop& d) { return (d.hi[0] - d.lo[0]) + (d.hi[1] - d.lo[1]) + (d.hi[2] - d.lo[2]); };
  pairs.clear();
  if (a.nodes.empty() || b.nodes.empty() || a.k != b.k) return;
  std::vector<std::pair<int, int>> stack{{0, 0}};
  while (!stack.empty()) {
    const auto [ia, ib] = stack.back();
    stack.pop_back();
    const BvhNode &na = a.nodes[std::size_t(ia)], &nb = b.nodes[std::size_t(ib)];
    if (!kdop_overlap(na.box, nb.box, a.axes(), margin)) continue;
    const bool leaf_a = na.left < 0, leaf_b = nb.left < 0;
    if (leaf_a && leaf_b) {
      for (int i = na.first; i < na.first + na.count; ++i)
        for (int j = nb.first; j < nb.first + nb.count; ++j)
          pairs.emplace_back(a.order[std::size_t(i)], b.order[std::size_t(j)]);
    } else if (leaf_b || (!leaf_a && size(na.box) >= size(nb.box))) {
      // descend into the larger box (into a when b is a leaf)
      stack.emplace_back(na.right, ib);
      stack.emplace_back(na.left, ib);
    } else {
      stack.emplace_back(ia, nb.right);
      stack.emplace_back(ia, nb.left);
    }
  }
}

void bvh_pairs(const KdopBvh& a, const KdopBvh& b, const Pose& b_in_a, double margin,
               std::vector<std::pair<int, int>>& pairs, BvhWalkScratch& scratch) {
  const auto size = [](const Kdop& d) { return (d.hi[0] - d.lo[0]) + (d.hi[1] - d.lo[1]) + (d.hi[2] - d.lo[2]); };
  pairs.clear();
  std::vector<std::pair<int, int>>& stack = scratch.stack;
  stack.clear();
  if (a.nodes.empty() || b.nodes.empty()) return;
  const std::vector<Vec3>& axes = kdop_axes(a.k);
  const int na = a.axes();
  // |axis_i . R e_k|: the reach along a's axis i of b's unit box axis k
  const Mat3 R = b_in_a.q.toRotationMatrix();
  double reach[Kdop::kMaxAxes][3];
  double at[Kdop::kMaxAxes];
  for (int i = 0; i < na; ++i) {
    for (int k = 0; k < 3; ++k) reach[i][k] = std::abs(axes[std::size_t(i)].dot(R.col(k)));
    at[i] = axes[std::size_t(i)].dot(b_in_a.p);
  }
  // b's node placed in a's frame: the box of its first three axes, turned, measured along a's
  // axes (its interval along axis i: [lo, hi] = mid -+ r, hi grown by the margin), once per
  // node and walk (a node of b meets several of a's; the jacks' walks visit each about ten times)
  const std::size_t stride = 2 * std::size_t(na);
  scratch.slabs.resize(b.nodes.size() * stride);
  scratch.placed.assign(b.nodes.size(), 0);
  const auto slabs = [&](int ib) -> const double* {
    double* s = scratch.slabs.data() + std::size_t(ib) * stride;
    if (scratch.placed[std::size_t(ib)]) return s;
    scratch.placed[std::size_t(ib)] = 1;
    const Kdop& d = b.nodes[std::size_t(ib)].box;
    const Vec3 c(0.5 * (d.lo[0] + d.hi[0]), 0.5 * (d.lo[1] + d.hi[1]), 0.5 * (d.lo[2] + d.hi[2]));
    const Vec3 h(0.5 * (d.hi[0] - d.lo[0]), 0.5 * (d.hi[1] - d.lo[1]), 0.5 * (d.hi[2] - d.lo[2]));
    const Vec3 rc = R * c;
    for (int i = 0; i < na; ++i) {
      const double mid = at[i] + axes[std::size_t(i)].dot(rc);
      const double r = reach[i][0] * h[0] + reach[i][1] * h[1] + reach[i][2] * h[2];
      s[2 * i] = mid - r;
      s[2 * i + 1] = (mid + r) + margin * kLen[i];
    }
    return s;
  };
  // whether a's node meets b's, one axis at a time: most pairs part on the first few axes
  const auto overlaps = [&](const Kdop& da, int ib) {
    const double* s = slabs(ib);
    for (int i = 0; i < na; ++i)
      if (da.lo[std::size_t(i)] > s[2 * i + 1] || s[2 * i] > da.hi[std::size_t(i)] + margin * kLen[i]) return false;
    return true;
  };
  stack.emplace_back(0, 0);
  while (!stack.empty()) {
    const auto [ia, ib] = stack.back();
    stack.pop_back();
    const BvhNode &nda = a.nodes[std::size_t(ia)], &ndb = b.nodes[std::size_t(ib)];
    if (!overlaps(nda.box, ib)) continue;
    const bool leaf_a = nda.left < 0, leaf_b = ndb.left < 0;
    if (leaf_a && leaf_b) {
      for (int i = nda.first; i < nda.first + nda.count; ++i)
        for (int j = ndb.first; j < ndb.first + ndb.count; ++j)
          pairs.emplace_back(a.order[std::size_t(i)], b.order[std::size_t(j)]);
    } else if (leaf_b || (!leaf_a && size(nda.box) >= size(ndb.box))) {
      stack.emplace_back(nda.right, ib);
      stack.emplace_back(nda.left, ib);
    } else {
      stack.emplace_back(ia, ndb.right);
      stack.emplace_back(ia, ndb.left);
    }
  }
}

std::shared_ptr<const TriMesh> make_tri_mesh(std::vector<Vec3> vertices, std::vector<std::array<int, 3>> triangles,
                                             int k) {
  auto m = std::make_shared<TriMesh>();
  if (triangles.empty()) throw std::invalid_argument("the mesh has no triangles");
  const int nv = int(vertices.size());
  for (std::size_t i = 0; i < vertices.size(); ++i)
    if (!vertices[i].allFinite()) throw std::invalid_argument("vertex " + std::to_string(i) + " is not finite");
  double extent = 0.0;
  m->lo = m->hi = vertices.empty() ? Vec3::Zero() : vertices[0];
  for (const Vec3& v : vertices) m->lo = m->lo.cwiseMin(v), m->hi = m->hi.cwiseMax(v);
  extent = (m->hi - m->lo).norm();
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    for (int c : triangles[t])
      if (c < 0 || c >= nv) throw std::invalid_argument("triangle " + std::to_string(t) + " refers to vertex " +
                                                        std::to_string(c) + " of " + std::to_string(nv));
    const auto& [a, b, c] = triangles[t];
    const Vec3 n = (vertices[std::size_t(b)] - vertices[std::size_t(a)]).cross(vertices[std::size_t(c)] - vertices[std::size_t(a)]);
    if (!(n.norm() > 1e-12 * extent * extent))
      throw std::invalid_argument("triangle " + std::to_string(t) + " is degenerate (zero area)");
  }

  // edges: (min, max) vertex pair -> the triangles using it and in which direction
  struct Use { int tri, edge; bool forward; };
  std::map<std::pair<int, int>, std::vector<Use>> edges;
  const auto find_edges = [&] {
    edges.clear();
    for (std::size_t t = 0; t < triangles.size(); ++t)
      for (int e = 0; e < 3; ++e) {
        const int u = triangles[t][std::size_t(e)], v = triangles[t][std::size_t((e + 1) % 3)];
        edges[{std::min(u, v), std::max(u, v)}].push_back({int(t), e, u < v});
      }
  };
  find_edges();
  bool closed = true;
  for (const auto& [key, uses] : edges) {
    if (uses.size() > 2)
      throw std::invalid_argument("edge (" + std::to_string(key.first) + ", " + std::to_string(key.second) +
                                  ") is shared by " + std::to_string(uses.size()) + " triangles (not a manifold)");
    if (uses.size() == 1 || uses[0].forward == uses[1].forward) closed = false;
  }
  m->closed = closed;
  if (closed) {
    // divergence theorem: V = 1/6 sum a . (b x c); a closed surface wound inwards has V < 0
    double six_v = 0.0;
    for (const auto& [a, b, c] : triangles)
      six_v += vertices[std::size_t(a)].dot(vertices[std::size_t(b)].cross(vertices[std::size_t(c)]));
    if (!(std::abs(six_v) > 1e-12 * extent * extent * extent))
      throw std::invalid_argument("the closed mesh encloses no volume");
    if (six_v < 0.0) {
      for (auto& t : triangles) std::swap(t[1], t[2]);
      find_edges();
    }
    m->volume = std::abs(six_v) / 6.0;
  }
  m->normals.resize(triangles.size());
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const auto& [a, b, c] = triangles[t];
    m->normals[t] = (vertices[std::size_t(b)] - vertices[std::size_t(a)]).cross(vertices[std::size_t(c)] - vertices[std::size_t(a)]).normalized();
  }
  // sharp edges: boundary, or convex with a dihedral angle above the threshold. Edge e of
  // triangle t is convex when the neighbour's far vertex lies behind t's plane.
  m->sharp_edges.assign(triangles.size(), 0);
  const double cos_sharp = std::cos(kSharpEdgeAngle);
  for (const auto& [key, uses] : edges) {
    if (uses.size() == 1) {
      m->sharp_edges[std::size_t(uses[0].tri)] |= std::uint8_t(1u << uses[0].edge);
      continue;
    }
    const std::size_t t0 = std::size_t(uses[0].tri), t1 = std::size_t(uses[1].tri);
    const int far1 = triangles[t1][std::size_t((uses[1].edge + 2) % 3)];
    const bool convex = m->normals[t0].dot(vertices[std::size_t(far1)] - vertices[std::size_t(key.first)]) < 0.0;
    if (convex && m->normals[t0].dot(m->normals[t1]) < cos_sharp) {
      m->sharp_edges[t0] |= std::uint8_t(1u << uses[0].edge);
      m->sharp_edges[t1] |= std::uint8_t(1u << uses[1].edge);
    }
  }
  m->bvh = build_bvh(vertices, triangles, k);
  m->vertices = std::move(vertices);
  m->triangles = std::move(triangles);
  return m;
}

}  // namespace coulomb
