// Candidate lists (seed 004 s.5.1) and the out-of-box re-check (s.5.2).
//
// Layout: every surface's faces and vertices are numbered globally (face_first / vertex_first
// prefix sums), one KdopBvh is built over all faces (centroids at the middle of the extended
// motion) and its leaf boxes are replaced by the union of the leaves' extended triangle boxes.
// The tree walked against itself gives each overlapping leaf pair twice (as (A, B) and (B, A)),
// so keeping the triangle pairs with g < h gives each pair once. Face pairs are expanded into
// feature pairs in fixed chunks in parallel; the lists are sorted at the end, so they do not
// depend on the thread count or on the traversal order.
#include <coulomb/candidates.h>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

namespace {

Kdop empty_kdop() {
  Kdop d;
  d.lo.fill(std::numeric_limits<double>::infinity());
  d.hi.fill(-std::numeric_limits<double>::infinity());
  return d;
}

void grow(Kdop& d, const Kdop& o, int n) {
  for (int i = 0; i < n; ++i) {
    d.lo[std::size_t(i)] = std::min(d.lo[std::size_t(i)], o.lo[std::size_t(i)]);
    d.hi[std::size_t(i)] = std::max(d.hi[std::size_t(i)], o.hi[std::size_t(i)]);
  }
}

// the kDOP of points, grown by `margin` along each (non-unit) axis
Kdop kdop_grown(const KdopBvh& bvh, const Vec3* p, int n, double margin) {
  Kdop d = kdop_of(bvh, p, n);
  const std::vector<Vec3>& axes = kdop_axes(bvh.k);
  for (int i = 0; i < bvh.axes(); ++i) {
    const double m = margin * axes[std::size_t(i)].norm();
    d.lo[std::size_t(i)] -= m;
    d.hi[std::size_t(i)] += m;
  }
  return d;
}

// inner node boxes from the leaves' triangles' boxes (children come after their parent)
void refit_from_boxes(KdopBvh& bvh, const std::vector<Kdop>& tri_box) {
  for (std::size_t i = bvh.nodes.size(); i-- > 0;) {
    BvhNode& node = bvh.nodes[i];
    Kdop d = empty_kdop();
    if (node.left < 0) {
      for (int t = node.first; t < node.first + node.count; ++t)
        grow(d, tri_box[std::size_t(bvh.order[std::size_t(t)])], bvh.axes());
    } else {
      d = bvh.nodes[std::size_t(node.left)].box;
      grow(d, bvh.nodes[std::size_t(node.right)].box, bvh.axes());
    }
    node.box = d;
  }
}

// global numbering of the surfaces' faces
struct Global {
  const std::vector<CandidateSurface>* surfaces = nullptr;
  const CandidateLists* lists = nullptr;
  const CandidateOptions* opt = nullptr;
  std::vector<int> face_surface;  // (total faces)
  int surface_of(int g) const { return face_surface[std::size_t(g)]; }
  const std::array<int, 3>& face(int g) const {
    const int s = surface_of(g);
    return (*(*surfaces)[std::size_t(s)].faces)[std::size_t(g - lists->face_first[std::size_t(s)])];
  }
  const Aabb& vbox(int s, int v) const { return lists->vertex_box[std::size_t(lists->vertex_first[std::size_t(s)] + v)]; }
};

// whether a pair of surfaces may give candidates
bool surfaces_pair(const Global& G, int sa, int sb) {
  const CandidateSurface& a = (*G.surfaces)[std::size_t(sa)];
  const CandidateSurface& b = (*G.surfaces)[std::size_t(sb)];
  if (sa == sb) return a.self && a.rigid < 0 && !a.fixed;
  if (a.fixed && b.fixed) return false;
  if (a.rigid >= 0 && b.rigid >= 0 && !G.opt->rigid_rigid) return false;
  return true;
}

Aabb box_of(const Global& G, int s, const int* v, int n) {
  Aabb b;
  for (int i = 0; i < n; ++i) b.grow(G.vbox(s, v[i]));
  return b;
}

// The feature pairs of two triangles g < h whose extended boxes overlap (seed 004 s.5.1):
// vertex-face both ways and the 3 x 3 edge pairs, adjacent features culled within one surface.
void feature_pairs(const Global& G, int g, int h, std::vector<VertexFaceCandidate>& vf,
                   std::vector<EdgeEdgeCandidate>& ee) {
  const int sg = G.surface_of(g), sh = G.surface_of(h);
  const std::array<int, 3>& fg = G.face(g);
  const std::array<int, 3>& fh = G.face(h);
  const int lg = g - G.lists->face_first[std::size_t(sg)], lh = h - G.lists->face_first[std::size_t(sh)];
  const bool same = sg == sh;
  const auto contains = [](const std::array<int, 3>& f, int v) { return f[0] == v || f[1] == v || f[2] == v; };
  const Aabb bg = box_of(G, sg, fg.data(), 3), bh = box_of(G, sh, fh.data(), 3);
  // vertex-face, both ways
  for (int i = 0; i < 3; ++i) {
    const int v = fg[std::size_t(i)];
    if (!(same && contains(fh, v)) && G.vbox(sg, v).overlaps(bh)) vf.push_back({sg, v, sh, lh});
    const int w = fh[std::size_t(i)];
    if (!(same && contains(fg, w)) && G.vbox(sh, w).overlaps(bg)) vf.push_back({sh, w, sg, lg});
  }
  // edge-edge
  for (int i = 0; i < 3; ++i) {
    const int e[2] = {std::min(fg[std::size_t(i)], fg[std::size_t((i + 1) % 3)]),
                      std::max(fg[std::size_t(i)], fg[std::size_t((i + 1) % 3)])};
    const Aabb be = box_of(G, sg, e, 2);
    for (int j = 0; j < 3; ++j) {
      const int f[2] = {std::min(fh[std::size_t(j)], fh[std::size_t((j + 1) % 3)]),
                        std::max(fh[std::size_t(j)], fh[std::size_t((j + 1) % 3)])};
      if (same && (e[0] == f[0] || e[0] == f[1] || e[1] == f[0] || e[1] == f[1])) continue;  // share a vertex
      if (!be.overlaps(box_of(G, sh, f, 2))) continue;
      EdgeEdgeCandidate c{sg, e[0], e[1], sh, f[0], f[1]};
      if (std::array<int, 3>{c.bs, c.b0, c.b1} < std::array<int, 3>{c.as, c.a0, c.a1}) {
        std::swap(c.as, c.bs);
        std::swap(c.a0, c.b0);
        std::swap(c.a1, c.b1);
      }
      ee.push_back(c);
    }
  }
}

template <class T>
void sort_unique(std::vector<T>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

// feature pairs of many face pairs, in fixed chunks in parallel, appended to the lists
void expand(const Global& G, const std::vector<std::pair<int, int>>& face_pairs, std::vector<VertexFaceCandidate>& vf,
            std::vector<EdgeEdgeCandidate>& ee) {
  constexpr std::size_t kChunk = 256;
  const std::size_t chunks = (face_pairs.size() + kChunk - 1) / kChunk;
  std::vector<std::vector<VertexFaceCandidate>> vfs(chunks);
  std::vector<std::vector<EdgeEdgeCandidate>> ees(chunks);
  tbb::parallel_for(std::size_t(0), chunks, [&](std::size_t c) {
    const std::size_t end = std::min(face_pairs.size(), (c + 1) * kChunk);
    for (std::size_t i = c * kChunk; i < end; ++i) feature_pairs(G, face_pairs[i].first, face_pairs[i].second, vfs[c], ees[c]);
  });
  for (std::size_t c = 0; c < chunks; ++c) {
    vf.insert(vf.end(), vfs[c].begin(), vfs[c].end());
    ee.insert(ee.end(), ees[c].begin(), ees[c].end());
  }
  sort_unique(vf);
  sort_unique(ee);
}

Global make_global(const std::vector<CandidateSurface>& surfaces, const CandidateOptions& opt, const CandidateLists& lists) {
  Global G;
  G.surfaces = &surfaces;
  G.lists = &lists;
  G.opt = &opt;
  G.face_surface.resize(std::size_t(lists.face_first.back()));
  for (std::size_t s = 0; s < surfaces.size(); ++s)
    std::fill(G.face_surface.begin() + lists.face_first[s], G.face_surface.begin() + lists.face_first[s + 1], int(s));
  return G;
}

}  // namespace

void build_candidates(const std::vector<CandidateSurface>& surfaces, const CandidateOptions& opt, CandidateLists& out) {
  out.vf.clear();
  out.ee.clear();
  out.face_pairs = 0;
  const std::size_t ns = surfaces.size();
  out.face_first.assign(ns + 1, 0);
  out.vertex_first.assign(ns + 1, 0);
  for (std::size_t s = 0; s < ns; ++s) {
    out.face_first[s + 1] = out.face_first[s] + (surfaces[s].faces ? int(surfaces[s].faces->size()) : 0);
    out.vertex_first[s + 1] = out.vertex_first[s] + (surfaces[s].x ? int(surfaces[s].x->size()) : 0);
  }
  const int nf = out.face_first[ns];
  // extended vertex boxes: x and x + inflation dt v, grown by the margin
  out.vertex_box.assign(std::size_t(out.vertex_first[ns]), Aabb{});
  std::vector<Vec3> x0(std::size_t(out.vertex_first[ns])), x1(x0.size());  // x and x + inflation dt v
  std::vector<Vec3> mid(x0.size());  // middle of the extended motion, for the build
  std::vector<std::array<int, 3>> tris(static_cast<std::size_t>(nf));
  const double reach = opt.inflation * opt.dt;
  for (std::size_t s = 0; s < ns; ++s) {
    const CandidateSurface& S = surfaces[s];
    if (!S.x) continue;
    for (std::size_t v = 0; v < S.x->size(); ++v) {
      const Vec3& x = (*S.x)[v];
      const Vec3 xe = S.v ? Vec3(x + reach * (*S.v)[v]) : x;
      Aabb& b = out.vertex_box[std::size_t(out.vertex_first[s]) + v];
      b.lo = x.cwiseMin(xe).array() - opt.margin;
      b.hi = x.cwiseMax(xe).array() + opt.margin;
      x0[std::size_t(out.vertex_first[s]) + v] = x;
      x1[std::size_t(out.vertex_first[s]) + v] = xe;
      mid[std::size_t(out.vertex_first[s]) + v] = 0.5 * (x + xe);
    }
    if (!S.faces) continue;
    for (std::size_t f = 0; f < S.faces->size(); ++f)
      for (int c = 0; c < 3; ++c)
        tris[std::size_t(out.face_first[s]) + f][std::size_t(c)] = out.vertex_first[s] + (*S.faces)[f][std::size_t(c)];
  }
  out.bvh = build_bvh(mid, tris, opt.k);
  // extended triangle boxes: the kDOP of the 3 vertices at x and x + inflation dt v
  out.tri_box.resize(std::size_t(nf));
  tbb::parallel_for(0, nf, [&](int g) {
    Vec3 p[6];
    for (int c = 0; c < 3; ++c) {
      const std::size_t v = std::size_t(tris[std::size_t(g)][std::size_t(c)]);
      p[2 * c] = x0[v];
      p[2 * c + 1] = x1[v];
    }
    out.tri_box[std::size_t(g)] = kdop_grown(out.bvh, p, 6, opt.margin);
  });
  refit_from_boxes(out.bvh, out.tri_box);
  // triangle pairs whose extended boxes overlap
  std::vector<std::pair<int, int>> leaf_pairs, face_pairs;
  bvh_pairs(out.bvh, out.bvh, 0.0, leaf_pairs);
  const Global G = make_global(surfaces, opt, out);
  for (const auto& [g, h] : leaf_pairs) {
    if (g >= h) continue;
    if (!surfaces_pair(G, G.surface_of(g), G.surface_of(h))) continue;
    if (!kdop_overlap(out.tri_box[std::size_t(g)], out.tri_box[std::size_t(h)], out.bvh.axes())) continue;
    face_pairs.emplace_back(g, h);
  }
  out.face_pairs = int(face_pairs.size());
  expand(G, face_pairs, out.vf, out.ee);
}

RecheckResult recheck_candidates(const std::vector<CandidateSurface>& surfaces,
                                 const std::vector<const std::vector<Vec3>*>& x_now, const CandidateOptions& opt,
                                 CandidateLists& lists) {
  RecheckResult r;
  const std::size_t ns = surfaces.size();
  if (lists.face_first.size() != ns + 1 || x_now.size() != ns) return r;
  // vertices outside their extended box: grow the box and their triangles' boxes to cover them
  std::vector<int> grown;  // global faces whose boxes grew
  for (std::size_t s = 0; s < ns; ++s) {
    const CandidateSurface& S = surfaces[s];
    if (!S.faces || !x_now[s]) continue;
    std::vector<std::uint8_t> out_v(x_now[s]->size(), 0);
    bool any = false;
    for (const auto& f : *S.faces)
      for (int v : f) {
        if (out_v[std::size_t(v)]) continue;
        const Vec3& x = (*x_now[s])[std::size_t(v)];
        Aabb& b = lists.vertex_box[std::size_t(lists.vertex_first[s] + v)];
        const bool inside = (x.array() >= b.lo.array()).all() && (x.array() <= b.hi.array()).all();
        if (inside) continue;
        out_v[std::size_t(v)] = 1;
        any = true;
        ++r.vertices_out;
        b.lo = b.lo.cwiseMin(Vec3(x.array() - opt.margin));
        b.hi = b.hi.cwiseMax(Vec3(x.array() + opt.margin));
      }
    if (!any) continue;
    for (std::size_t f = 0; f < S.faces->size(); ++f) {
      const auto& t = (*S.faces)[f];
      if (!out_v[std::size_t(t[0])] && !out_v[std::size_t(t[1])] && !out_v[std::size_t(t[2])]) continue;
      const int g = lists.face_first[s] + int(f);
      Vec3 p[3];
      for (int c = 0; c < 3; ++c) p[c] = (*x_now[s])[std::size_t(t[std::size_t(c)])];
      grow(lists.tri_box[std::size_t(g)], kdop_grown(lists.bvh, p, 3, opt.margin), lists.bvh.axes());
      grown.push_back(g);
    }
  }
  if (grown.empty()) return r;
  refit_from_boxes(lists.bvh, lists.tri_box);
  // query the hierarchy again with the grown boxes (seed 004 s.5.2)
  const Global G = make_global(surfaces, opt, lists);
  std::vector<std::pair<int, int>> face_pairs;
  std::vector<int> hits;
  for (int g : grown) {
    bvh_query(lists.bvh, lists.tri_box[std::size_t(g)], 0.0, hits);
    for (int h : hits) {
      if (h == g) continue;
      const int a = std::min(g, h), b = std::max(g, h);
      if (!surfaces_pair(G, G.surface_of(a), G.surface_of(b))) continue;
      if (!kdop_overlap(lists.tri_box[std::size_t(a)], lists.tri_box[std::size_t(b)], lists.bvh.axes())) continue;
      face_pairs.emplace_back(a, b);
    }
  }
  sort_unique(face_pairs);
  std::vector<VertexFaceCandidate> vf;
  std::vector<EdgeEdgeCandidate> ee;
  expand(G, face_pairs, vf, ee);
  const std::size_t nvf = lists.vf.size(), nee = lists.ee.size();
  lists.vf.insert(lists.vf.end(), vf.begin(), vf.end());
  lists.ee.insert(lists.ee.end(), ee.begin(), ee.end());
  sort_unique(lists.vf);
  sort_unique(lists.ee);
  r.vf_added = int(lists.vf.size() - nvf);
  r.ee_added = int(lists.ee.size() - nee);
  return r;
}

void shape_triangles(const ShapeLibrary& lib, int shape, std::vector<Vec3>& vertices,
                     std::vector<std::array<int, 3>>& faces, int segments) {
  const Shape& s = lib[shape];
  const auto add_hull = [&](const ConvexHull& h, const Pose& pose) {
    const int base = int(vertices.size());
    for (const Vec3& v : h.vertices) vertices.push_back(pose.apply(v));
    for (const auto& loop : h.faces)
      for (std::size_t i = 1; i + 1 < loop.size(); ++i) faces.push_back({base + loop[0], base + loop[i], base + loop[i + 1]});
  };
  const auto add_points = [&](const std::vector<Vec3>& pts) { add_hull(make_convex_hull(pts), Pose{}); };
  const int n = std::max(segments, 4);
  const double pi = 3.14159265358979323846;
  switch (s.type) {
    case ShapeType::Box:
      add_hull(box_hull(s.half_extents), Pose{});
      break;
    case ShapeType::Convex:
      add_hull(s.hull, Pose{});
      break;
    case ShapeType::Mesh: {
      const int base = int(vertices.size());
      for (const Vec3& v : s.mesh->vertices) vertices.push_back(v);
      for (const auto& t : s.mesh->triangles) faces.push_back({base + t[0], base + t[1], base + t[2]});
      break;
    }
    case ShapeType::Sphere:
    case ShapeType::Capsule: {
      // latitude rings (the capsule's two hemispheres apart by its axis)
      std::vector<Vec3> pts;
      const double hh = s.type == ShapeType::Capsule ? s.half_height : 0.0;
      for (int i = 0; i <= n / 2; ++i) {
        const double th = pi * i / (n / 2);
        for (int j = 0; j < n; ++j) {
          const double ph = 2 * pi * j / n;
          const Vec3 p = s.radius * Vec3(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), std::cos(th));
          pts.push_back(p + Vec3(0, 0, p.z() >= 0 ? hh : -hh));
          if (hh > 0 && i == n / 4) pts.push_back(p + Vec3(0, 0, -hh));  // the equator on both ends
        }
      }
      add_points(pts);
      break;
    }
    case ShapeType::Cylinder: {
      std::vector<Vec3> pts;
      for (int j = 0; j < n; ++j) {
        const double ph = 2 * pi * j / n;
        for (double z : {-s.half_height, s.half_height}) pts.emplace_back(s.radius * std::cos(ph), s.radius * std::sin(ph), z);
      }
      add_points(pts);
      break;
    }
    case ShapeType::Compound:
      for (const CompoundChild& c : s.children) {
        std::vector<Vec3> cv;
        std::vector<std::array<int, 3>> cf;
        shape_triangles(lib, c.shape, cv, cf, segments);
        const int base = int(vertices.size());
        for (const Vec3& v : cv) vertices.push_back(c.pose.apply(v));
        for (const auto& t : cf) faces.push_back({base + t[0], base + t[1], base + t[2]});
      }
      break;
    case ShapeType::Plane:
      break;
  }
}

}  // namespace coulomb
