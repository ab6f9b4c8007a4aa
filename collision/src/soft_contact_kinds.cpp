// The soft contact kinds over one body pair each (soft_contact_kinds.h). The pair tests, ranges
// and gaps are those of collision/README.md, "Soft contacts".
#include "soft_contact_kinds.h"

#include <coulomb/ccd.h>

#include <algorithm>
#include <tuple>

namespace coulomb::detail {
namespace {

bool inside(const Aabb& box, const Vec3& p) {
  return (p.array() >= box.lo.array()).all() && (p.array() <= box.hi.array()).all();
}

Aabb grown(Aabb box, double by) {
  box.lo.array() -= by;
  box.hi.array() += by;
  return box;
}

bool usable(const SoftSurface& s) { return s.x && s.faces && s.surface_vertices; }

double rigid_reach(const DetectInput& rg, int r) { return rg.reach ? (*rg.reach)[std::size_t(r)] : 0.0; }

SurfaceRef surface_of(const SoftSurface& s, const SoftGeometry& g) {
  return {*s.x, *s.faces, g.normals, g.bvh, std::max(g.scale, 1e-9)};
}

ContactSide soft_triangle(int body, const SoftSurface& s, const SurfaceHit& h) {
  ContactSide side;
  side.soft = body;
  side.vertex = (*s.faces)[std::size_t(h.tri)];
  side.weight = h.w;
  side.point = h.q;
  side.feature = h.tri;
  return side;
}

}  // namespace

void rigid_vertex_contacts(const SoftKindInput& in, int r, int s, QueryScratch& k, std::vector<SoftContact>& out) {
  const DetectInput& rg = *in.rigid;
  const SoftSurface& soft = (*in.soft)[std::size_t(s)];
  const SoftGeometry& geo = (*in.geometry)[std::size_t(s)];
  if (!usable(soft)) return;
  const double thick = in.thickness;
  const double env = rg.envelope + rigid_reach(rg, r) + soft.reach;
  const Aabb rbox = grown((*in.rigid_box)[std::size_t(r)], env + thick);
  if (!rbox.overlaps(geo.box)) return;
  const int shape = (*rg.body_shape)[std::size_t(r)];
  const Pose& pose = (*rg.shape_pose)[std::size_t(r)];
  // each surface vertex near the body, its deepest point against the shape
  for (int v : *soft.surface_vertices) {
    const Vec3& x = (*soft.x)[std::size_t(v)];
    if (!inside(rbox, x)) continue;
    ShapeHit best;
    point_vs_shape(*in.ball, shape, pose, x, env + thick, k, best);
    const double gap = best.dist - thick;
    if (!(gap < env) || !best.on.allFinite() || !best.n.allFinite()) continue;
    SoftContact c;
    c.kind = SoftContactKind::RigidVertex;
    c.a.rigid = r;
    c.a.point = best.on;
    c.a.feature = best.child;
    c.b.soft = s;
    c.b.vertex = {v, -1, -1};
    c.b.weight = Vec3(1, 0, 0);
    c.b.point = x;
    c.normal = best.n;
    c.offset = thick;
    c.depth = -gap;
    out.push_back(c);
  }
}

void rigid_triangle_contacts(const SoftKindInput& in, int r, int s, QueryScratch& k, std::vector<SoftContact>& out) {
  const DetectInput& rg = *in.rigid;
  const SoftSurface& soft = (*in.soft)[std::size_t(s)];
  const SoftGeometry& geo = (*in.geometry)[std::size_t(s)];
  if (!usable(soft) || soft.faces->empty()) return;  // a vertex cloud has no triangles to meet
  const double thick = in.thickness;
  const double env = rg.envelope + rigid_reach(rg, r) + soft.reach;
  if (!grown((*in.rigid_box)[std::size_t(r)], env + thick).overlaps(geo.box)) return;
  // the shape's corners against the soft surface
  shape_corners(*rg.shapes, (*rg.body_shape)[std::size_t(r)], (*rg.shape_pose)[std::size_t(r)], k.corners);
  const Aabb sbox = grown(geo.box, env + thick);
  const SurfaceRef ref = surface_of(soft, geo);
  for (const auto& [p, id] : k.corners) {
    if (!inside(sbox, p)) continue;
    SurfaceHit h;
    if (!surface_query(ref, p, env + thick, env + geo.bound, k, h)) continue;
    const double gap = h.dist - thick;
    if (!(gap < env)) continue;
    SoftContact c;
    c.kind = SoftContactKind::RigidTriangle;
    c.a.rigid = r;
    c.a.point = p;
    c.a.feature = id;
    c.b = soft_triangle(s, soft, h);
    c.normal = -h.n;
    c.offset = thick;
    c.depth = -gap;
    out.push_back(c);
  }
}

void vertex_triangle_contacts(const SoftKindInput& in, int a, int b, QueryScratch& k, std::vector<SoftContact>& out) {
  const DetectInput& rg = *in.rigid;
  const SoftSurface& sa = (*in.soft)[std::size_t(a)];
  const SoftSurface& sb = (*in.soft)[std::size_t(b)];
  const SoftGeometry& ga = (*in.geometry)[std::size_t(a)];
  const SoftGeometry& gb = (*in.geometry)[std::size_t(b)];
  if (a == b || !usable(sa) || !usable(sb) || sb.faces->empty()) return;
  const double thick = in.thickness;
  const double env = rg.envelope + sa.reach + sb.reach;
  const Aabb bbox = grown(gb.box, env + 2.0 * thick);
  if (!bbox.overlaps(ga.box)) return;
  const SurfaceRef ref = surface_of(sb, gb);
  // a's surface vertices against b's triangles
  for (int v : *sa.surface_vertices) {
    const Vec3& x = (*sa.x)[std::size_t(v)];
    if (!inside(bbox, x)) continue;
    SurfaceHit h;
    if (!surface_query(ref, x, env + 2.0 * thick, env + gb.bound, k, h)) continue;
    const double gap = h.dist - 2.0 * thick;
    if (!(gap < env)) continue;
    SoftContact c;
    c.kind = SoftContactKind::VertexTriangle;
    c.a.soft = a;
    c.a.vertex = {v, -1, -1};
    c.a.weight = Vec3(1, 0, 0);
    c.a.point = x;
    c.b = soft_triangle(b, sb, h);
    c.normal = -h.n;
    c.offset = 2.0 * thick;
    c.depth = -gap;
    out.push_back(c);
  }
}

}  // namespace coulomb::detail

namespace coulomb::detail {
namespace {

// the surface edges of a face list: (lower vertex, higher vertex) and their (up to 2) faces,
// sorted by vertices
struct SurfaceEdge {
  int v0 = -1, v1 = -1, f0 = -1, f1 = -1;
};
std::vector<SurfaceEdge> surface_edges(const std::vector<std::array<int, 3>>& faces) {
  std::vector<SurfaceEdge> e;
  e.reserve(faces.size() * 3);
  for (std::size_t f = 0; f < faces.size(); ++f)
    for (int i = 0; i < 3; ++i) {
      const int a = faces[f][std::size_t(i)], b = faces[f][std::size_t((i + 1) % 3)];
      e.push_back({std::min(a, b), std::max(a, b), int(f), -1});
    }
  std::sort(e.begin(), e.end(), [](const SurfaceEdge& x, const SurfaceEdge& y) {
    return std::tie(x.v0, x.v1, x.f0) < std::tie(y.v0, y.v1, y.f0);
  });
  std::vector<SurfaceEdge> out;
  for (const SurfaceEdge& x : e) {
    if (!out.empty() && out.back().v0 == x.v0 && out.back().v1 == x.v1) {
      if (out.back().f1 < 0) out.back().f1 = x.f0;
    } else {
      out.push_back(x);
    }
  }
  return out;
}

bool contains(const std::array<int, 3>& f, int v) { return f[0] == v || f[1] == v || f[2] == v; }

// Rest neighbours within one body (SoftSurface::rest): features closer than `range` in the rest
// shape, vertex v and triangle f, or edges (a0, a1) and (b0, b1). Without rest positions none.
// The range carries a relative 1e-9, so that rounding never makes a contact of features exactly
// `range` apart at rest (a grid's vertices one cell from a triangle, the envelope one cell).
bool rest_neighbours(const SoftSurface& s, int v, const std::array<int, 3>& f, double range) {
  if (!s.rest) return false;
  const std::vector<Vec3>& r = *s.rest;
  Vec3 w;
  const Vec3 q = closest_on_triangle(r[std::size_t(v)], r[std::size_t(f[0])], r[std::size_t(f[1])], r[std::size_t(f[2])], w);
  return (q - r[std::size_t(v)]).norm() < range * (1.0 + 1e-9);
}
bool rest_neighbours(const SoftSurface& s, int a0, int a1, int b0, int b1, double range) {
  if (!s.rest) return false;
  const std::vector<Vec3>& r = *s.rest;
  return closest_segment_segment(r[std::size_t(a0)], r[std::size_t(a1)], r[std::size_t(b0)], r[std::size_t(b1)]).distance <
         range * (1.0 + 1e-9);
}

}  // namespace

void self_vertex_triangle_contacts(const SoftKindInput& in, int a, QueryScratch& k, std::vector<SoftContact>& out) {
  const DetectInput& rg = *in.rigid;
  const SoftSurface& sa = (*in.soft)[std::size_t(a)];
  const SoftGeometry& ga = (*in.geometry)[std::size_t(a)];
  if (!usable(sa) || sa.faces->empty() || ga.bvh.nodes.empty()) return;
  const double thick = in.thickness;
  // only the body's deformation brings its own features together, not its motion as a whole
  const double env = rg.envelope + sa.self_reach;
  const double range = env + 2.0 * thick, rest_range = rg.envelope + 2.0 * thick;
  for (int v : *sa.surface_vertices) {
    const Vec3& x = (*sa.x)[std::size_t(v)];
    bvh_query(ga.bvh, kdop_of(ga.bvh, &x, 1), range, k.tris);
    int best = -1;
    double best_d = range;
    Vec3 best_q = Vec3::Zero(), best_w = Vec3::Zero();
    for (int t : k.tris) {  // ascending: ties go to the lower index
      const auto& f = (*sa.faces)[std::size_t(t)];
      if (contains(f, v)) continue;  // adjacent
      Vec3 w;
      const Vec3 q = closest_on_triangle(x, (*sa.x)[std::size_t(f[0])], (*sa.x)[std::size_t(f[1])], (*sa.x)[std::size_t(f[2])], w);
      const double d = (q - x).norm();
      if (d < best_d && !rest_neighbours(sa, v, f, rest_range)) {
        best = t;
        best_d = d;
        best_q = q;
        best_w = w;
      }
    }
    if (best < 0) continue;
    const double gap = best_d - 2.0 * thick;
    if (!(gap < env)) continue;
    // n from the vertex to the triangle; at zero distance, against the triangle's normal
    const Vec3 nf = ga.normals[std::size_t(best)];
    const Vec3 n = best_d > 1e-12 * std::max(ga.scale, 1e-9) ? Vec3((best_q - x) / best_d) : Vec3(-nf);
    SoftContact c;
    c.kind = SoftContactKind::VertexTriangle;
    c.a.soft = a;
    c.a.vertex = {v, -1, -1};
    c.a.weight = Vec3(1, 0, 0);
    c.a.point = x;
    c.b.soft = a;
    c.b.vertex = (*sa.faces)[std::size_t(best)];
    c.b.weight = best_w;
    c.b.point = best_q;
    c.b.feature = best;
    c.normal = n;
    c.offset = 2.0 * thick;
    c.depth = -gap;
    out.push_back(c);
  }
}

void edge_edge_contacts(const SoftKindInput& in, int a, int b, QueryScratch& k, std::vector<SoftContact>& out) {
  const DetectInput& rg = *in.rigid;
  const SoftSurface& sa = (*in.soft)[std::size_t(a)];
  const SoftSurface& sb = (*in.soft)[std::size_t(b)];
  const SoftGeometry& ga = (*in.geometry)[std::size_t(a)];
  const SoftGeometry& gb = (*in.geometry)[std::size_t(b)];
  if (!usable(sa) || !usable(sb) || sa.faces->empty() || sb.faces->empty() || gb.bvh.nodes.empty()) return;
  const bool self = a == b;
  const double thick = in.thickness;
  // within one body only its deformation brings its edges together (as self VertexTriangle)
  const double env = rg.envelope + (self ? sa.self_reach : sa.reach + sb.reach);
  const double range = env + 2.0 * thick, rest_range = rg.envelope + 2.0 * thick;
  if (!self && !grown(gb.box, range).overlaps(ga.box)) return;
  const std::vector<SurfaceEdge> ea = surface_edges(*sa.faces);
  const std::vector<SurfaceEdge> eb = self ? ea : surface_edges(*sb.faces);
  const auto edge_id = [&eb](int v0, int v1) {  // index of edge (v0 < v1) in eb
    const auto it = std::lower_bound(eb.begin(), eb.end(), std::make_pair(v0, v1), [](const SurfaceEdge& e, const std::pair<int, int>& key) {
      return std::tie(e.v0, e.v1) < std::tie(key.first, key.second);
    });
    return int(it - eb.begin());
  };
  const auto& xa = *sa.x;
  const auto& xb = *sb.x;
  std::vector<int> cand;
  for (std::size_t i = 0; i < ea.size(); ++i) {
    const SurfaceEdge& e = ea[i];
    const Vec3 &p = xa[std::size_t(e.v0)], &q = xa[std::size_t(e.v1)];
    const Vec3 pts[2] = {p, q};
    bvh_query(gb.bvh, kdop_of(gb.bvh, pts, 2), range, k.tris);
    cand.clear();
    for (int t : k.tris)
      for (int c = 0; c < 3; ++c) {
        const auto& f = (*sb.faces)[std::size_t(t)];
        cand.push_back(edge_id(std::min(f[std::size_t(c)], f[std::size_t((c + 1) % 3)]), std::max(f[std::size_t(c)], f[std::size_t((c + 1) % 3)])));
      }
    std::sort(cand.begin(), cand.end());
    cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
    int best = -1;
    double best_d = range;
    Closest best_c;
    for (int j : cand) {
      const SurfaceEdge& g = eb[std::size_t(j)];
      if (self && (j <= int(i) || g.v0 == e.v0 || g.v0 == e.v1 || g.v1 == e.v0 || g.v1 == e.v1)) continue;
      const Vec3 &r = xb[std::size_t(g.v0)], &s = xb[std::size_t(g.v1)];
      const Vec3 cr = (q - p).cross(s - r);
      if (!(cr.squaredNorm() > 1e-12 * (q - p).squaredNorm() * (s - r).squaredNorm())) continue;  // parallel
      const Closest c = closest_segment_segment(p, q, r, s);
      constexpr double kInterior = 1e-6;
      if (!(c.wa[1] > kInterior && c.wa[1] < 1 - kInterior && c.wb[1] > kInterior && c.wb[1] < 1 - kInterior)) continue;
      if (c.distance < best_d && !(self && rest_neighbours(sa, e.v0, e.v1, g.v0, g.v1, rest_range))) {
        best = j;
        best_d = c.distance;
        best_c = c;
      }
    }
    if (best < 0) continue;
    const SurfaceEdge& g = eb[std::size_t(best)];
    Vec3 nb = gb.normals[std::size_t(g.f0)] + (g.f1 >= 0 ? gb.normals[std::size_t(g.f1)] : Vec3::Zero());
    const Vec3 d = best_c.pb - best_c.pa;  // from a's point to b's
    Vec3 n;
    double sep;
    if (best_d > 1e-12 * std::max(gb.scale, 1e-9)) {
      // a's point on the inner side of b's edge: inside body b. Not within one body: there every
      // edge of a convex part lies behind every other (unsigned, as self VertexTriangle)
      const bool behind = !self && d.dot(nb) > 0;
      n = behind ? Vec3(-d / best_d) : Vec3(d / best_d);
      sep = behind ? -best_d : best_d;
    } else {
      n = nb.norm() > 0 ? Vec3(-nb.normalized()) : Vec3((q - p).cross(xb[std::size_t(g.v1)] - xb[std::size_t(g.v0)]).normalized());
      sep = 0.0;
    }
    if (sep < 0 && -sep > env + gb.bound) continue;  // passing through, not a contact (as the signed queries)
    const double gap = sep - 2.0 * thick;
    if (!(gap < env)) continue;
    SoftContact c;
    c.kind = SoftContactKind::EdgeEdge;
    c.a.soft = a;
    c.a.vertex = {e.v0, e.v1, -1};
    c.a.weight = Vec3(best_c.wa[0], best_c.wa[1], 0);
    c.a.point = best_c.pa;
    c.b.soft = b;
    c.b.vertex = {g.v0, g.v1, -1};
    c.b.weight = Vec3(best_c.wb[0], best_c.wb[1], 0);
    c.b.point = best_c.pb;
    c.normal = n;
    c.offset = 2.0 * thick;
    c.depth = -gap;
    out.push_back(c);
  }
}

}  // namespace coulomb::detail
