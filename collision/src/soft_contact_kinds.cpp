// The soft contact kinds over one body pair each (soft_contact_kinds.h). The pair tests, ranges
// and gaps are those of collision/README.md, "Soft contacts".
#include "soft_contact_kinds.h"

#include <algorithm>

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
