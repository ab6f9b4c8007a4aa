// Support features and manifolds along a contact axis (see features.h).
#include "features.h"

#include <algorithm>
#include <cmath>

namespace coulomb::detail {

Halfspace world_halfspace(const Placed& p) {
  const double len = p.shape.normal.norm();
  const Vec3 n = p.pose.rotate(p.shape.normal / len);
  return {n, p.shape.offset / len + n.dot(p.pose.p)};
}

Segment capsule_axis(const Placed& c) {
  const Vec3 half = c.pose.rotate(Vec3(0.0, 0.0, c.shape.half_height));
  return {c.pose.p - half, c.pose.p + half};
}

Vec3 closest_on_segment(const Vec3& x, const Segment& s, double* t_out) {
  const Vec3 d = s.q - s.p;
  const double len2 = d.squaredNorm();
  const double t = len2 > 0.0 ? std::clamp(d.dot(x - s.p) / len2, 0.0, 1.0) : 0.0;
  if (t_out) *t_out = t;
  return s.p + t * d;
}

void closest_segments(const Segment& a, const Segment& b, double& s, double& t) {
  const Vec3 d1 = a.q - a.p, d2 = b.q - b.p, r = a.p - b.p;
  const double aa = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  s = t = 0.0;
  if (aa <= 0.0 && e <= 0.0) return;
  if (aa <= 0.0) { t = std::clamp(f / e, 0.0, 1.0); return; }
  const double c = d1.dot(r);
  if (e <= 0.0) { s = std::clamp(-c / aa, 0.0, 1.0); return; }
  const double bb = d1.dot(d2), denom = aa * e - bb * bb;
  s = denom > 0.0 ? std::clamp((bb * f - c * e) / denom, 0.0, 1.0) : 0.0;
  t = (bb * s + f) / e;
  if (t < 0.0) { t = 0.0; s = std::clamp(-c / aa, 0.0, 1.0); }
  else if (t > 1.0) { t = 1.0; s = std::clamp((bb - c) / aa, 0.0, 1.0); }
}

void segment_pairs(const Segment& a, const Segment& b, PointPairs& pairs) {
  pairs.clear();
  double s = 0.0, t = 0.0;
  closest_segments(a, b, s, t);
  const Vec3 da = a.q - a.p, db = b.q - b.p;
  const double la2 = da.squaredNorm(), lb2 = db.squaredNorm();
  bool closest_is_end = false;
  if (la2 > 0.0 && lb2 > 0.0 && da.cross(db).squaredNorm() <= kFeatureSin * kFeatureSin * la2 * lb2) {
    double s0 = da.dot(b.p - a.p) / la2, s1 = da.dot(b.q - a.p) / la2;
    if (s0 > s1) std::swap(s0, s1);
    s0 = std::max(s0, 0.0);
    s1 = std::min(s1, 1.0);
    if (s1 > s0) {
      for (double u : {s0, s1}) {
        const Vec3 x = a.p + u * da;
        pairs.emplace_back(x, closest_on_segment(x, b));
      }
      closest_is_end = std::abs(s - s0) <= 1e-9 || std::abs(s - s1) <= 1e-9;
    }
  }
  if (!closest_is_end) pairs.emplace_back(a.p + s * da, b.p + t * db);
}

void flip(std::vector<ContactPoint>& pts, std::size_t from) {
  for (std::size_t i = from; i < pts.size(); ++i) {
    pts[i].normal = -pts[i].normal;
    std::swap(pts[i].feature_a, pts[i].feature_b);
  }
}

namespace {


// Capsules: the side line when the axis lies across u, else one point on a cap (ids 0, 1/2).
void capsule_feature(const Shape& s, const Vec3& u, Feature& f) {
  const Vec3 radial(u.x(), u.y(), 0.0), axis(0.0, 0.0, s.half_height);
  const double rho = radial.norm();
  if (std::abs(u.z()) <= kFeatureSin && rho > 0.0) {
    f.pts = {s.radius * radial / rho - axis, s.radius * radial / rho + axis};
    f.id = 0;
  } else {
    f.pts = {support(s, u)};
    f.id = u.z() >= 0.0 ? 2 : 1;
  }
}

// Caps are 16-gons (an approximation of the disc, inscribed, 1.9% of r short at worst) starting at
// the rim point in the radial direction of u, so that the exact support point is always a sample.
void cylinder_feature(const Shape& s, const Vec3& u, double face_cos, Feature& f) {
  const double side = u.z() >= 0.0 ? 1.0 : -1.0;
  const Vec3 radial(u.x(), u.y(), 0.0);
  const double rho = radial.norm();
  const Vec3 e1 = rho > 1e-12 ? Vec3(radial / rho) : Vec3(Vec3::UnitX());
  const Vec3 e2 = side * Vec3::UnitZ().cross(e1);  // ccw about the cap's outward normal
  const Vec3 axis(0.0, 0.0, s.half_height);
  f.id = side > 0.0 ? 2 : 1;  // 0 side, 1 bottom cap, 2 top cap
  if (std::abs(u.z()) >= face_cos) {
    for (int k = 0; k < kRimSamples; ++k) {
      const double angle = 2.0 * kPi * k / kRimSamples;
      f.pts.push_back(side * axis + s.radius * (std::cos(angle) * e1 + std::sin(angle) * e2));
    }
    f.normal = side * Vec3::UnitZ();
    f.align = std::abs(u.z());
  } else if (std::abs(u.z()) <= kFeatureSin && rho > 0.0) {
    f.pts = {s.radius * e1 - axis, s.radius * e1 + axis};
    f.id = 0;
  } else {
    f.pts = {support(s, u)};
  }
}

// Polytope features: the face most aligned with u, else the support vertex together with its
// neighbour when that edge lies across u. Ids: face f, or (face count + vertex) for edges/vertices.
void polytope_feature(const ConvexHull& h, const Vec3& u, double face_cos, Feature& f) {
  if (h.vertices.empty() || h.faces.empty()) { f.pts = {Vec3::Zero()}; return; }
  std::size_t face = 0;
  for (std::size_t i = 1; i < h.faces.size(); ++i)
    if (h.face_normals[i].dot(u) > h.face_normals[face].dot(u)) face = i;
  if (h.face_normals[face].dot(u) >= face_cos) {
    for (int v : h.faces[face]) f.pts.push_back(h.vertices[std::size_t(v)]);
    f.normal = h.face_normals[face];
    f.align = f.normal.dot(u);
    f.id = int(face);
    return;
  }
  int top = 0;
  for (std::size_t i = 1; i < h.vertices.size(); ++i)
    if (h.vertices[i].dot(u) > h.vertices[std::size_t(top)].dot(u)) top = int(i);
  int next = -1;
  for (const auto& loop : h.faces)
    for (std::size_t i = 0; i < loop.size(); ++i) {
      if (loop[i] != top) continue;
      for (int nb : {loop[(i + 1) % loop.size()], loop[(i + loop.size() - 1) % loop.size()]})
        if (next < 0 || h.vertices[std::size_t(nb)].dot(u) > h.vertices[std::size_t(next)].dot(u)) next = nb;
    }
  f.id = int(h.faces.size()) + top;
  f.pts = {h.vertices[std::size_t(top)]};
  if (next >= 0) {
    const Vec3 edge = h.vertices[std::size_t(top)] - h.vertices[std::size_t(next)];
    if (edge.dot(u) <= kFeatureSin * edge.norm()) f.pts.push_back(h.vertices[std::size_t(next)]);
  }
}

// Keeps the part of a point, segment or closed polygon (>= 3 points) with n . x <= d: one
// Sutherland-Hodgman pass; a segment is an open chain (no edge from its end back to its start).
void clip_halfspace(PointList& pts, const Vec3& n, double d) {
  const std::size_t m = pts.size();
  PointList kept;
  for (std::size_t i = 0; i < m; ++i) {
    const Vec3& e = pts[i];
    const double he = n.dot(e) - d;
    if (m >= 3 || i > 0) {  // the edge s -> e crosses the plane: keep the crossing
      const Vec3& s = pts[(i + m - 1) % m];
      const double hs = n.dot(s) - d;
      if ((hs > 0.0) != (he > 0.0)) kept.push_back(s + (e - s) * (hs / (hs - he)));
    }
    if (he <= 0.0) kept.push_back(e);
  }
  pts = std::move(kept);
}


void edge_contact(const Feature& fa, const Feature& fb, const Penetration& pen, double envelope,
                  std::vector<ContactPoint>& out) {
  segment_contact({fa.pts.front(), fa.pts.back()}, fa.id, {fb.pts.front(), fb.pts.back()}, fb.id, pen, envelope, out);
}

}  // namespace

void segment_contact(const Segment& a, int id_a, const Segment& b, int id_b, const Penetration& pen, double envelope,
                     std::vector<ContactPoint>& out) {
  PointPairs pairs;
  segment_pairs(a, b, pairs);
  for (const auto& [pa, pb] : pairs) {
    // a single pair is the EPA contact itself; line contacts are measured pair by pair
    const double depth = pairs.size() == 1 ? pen.depth : (pa - pb).dot(pen.n);
    if (keep(depth, envelope)) out.push_back({0.5 * (pa + pb), pen.n, depth, id_a, id_b});
  }
}

void face_contact(const Feature& ref, const Feature& inc, double envelope, std::vector<ContactPoint>& out) {
  const Vec3& m = ref.normal;
  const std::size_t nr = ref.pts.size();
  PointList pts = inc.pts;
  double offset = 0.0;
  for (std::size_t i = 0; i < nr && !pts.empty(); ++i) {
    const Vec3& r0 = ref.pts[i];
    const Vec3 side = (ref.pts[(i + 1) % nr] - r0).cross(m);  // outward for a ccw loop
    clip_halfspace(pts, side, side.dot(r0));
    offset += m.dot(r0) / double(nr);
  }
  for (const Vec3& p : pts) {
    const double depth = offset - m.dot(p);
    if (keep(depth, envelope)) out.push_back({p + 0.5 * depth * m, m, depth, ref.id, inc.id});
  }
}

Feature support_feature(const Placed& p, const Vec3& u_world, double face_cos) {
  const Vec3 u = p.pose.q.conjugate() * u_world;
  const Shape& s = p.shape;
  Feature f;
  switch (s.type) {
    case ShapeType::Sphere: f.pts = {support(s, u)}, f.id = 0; break;
    case ShapeType::Capsule: capsule_feature(s, u, f); break;
    case ShapeType::Cylinder: cylinder_feature(s, u, face_cos, f); break;
    case ShapeType::Box:
      // the loader fills box hulls; a hand-made box shape may not have one
      if (s.hull.faces.size() == 6) polytope_feature(s.hull, u, face_cos, f);
      else polytope_feature(box_hull(s.half_extents), u, face_cos, f);
      break;
    case ShapeType::Convex: polytope_feature(s.hull, u, face_cos, f); break;
    default: f.pts = {Vec3::Zero()}; break;  // planes and compounds never reach the convex path
  }
  for (Vec3& x : f.pts) x = p.pose.apply(x);
  f.normal = p.pose.rotate(f.normal);
  return f;
}

void convex_manifold(const Placed& a, const Placed& b, const Penetration& pen, double env, std::vector<ContactPoint>& out) {
  // the reference face is a face of a or b that the EPA axis lies along (it then is the normal)
  const Feature fa = support_feature(a, pen.n, kReferenceCos);
  const Feature fb = support_feature(b, -pen.n, kReferenceCos);
  const bool a_ref = fa.pts.size() >= 3 && (fb.pts.size() < 3 || fa.align >= fb.align);
  const std::size_t start = out.size();
  if (a_ref) {
    face_contact(fa, support_feature(b, -fa.normal, kFeatureCos), env, out);
  } else if (fb.pts.size() >= 3) {
    face_contact(fb, support_feature(a, -fb.normal, kFeatureCos), env, out);
    flip(out, start);
  }
  // no face along the axis (edge-edge, vertex, curved contact) or nothing left after clipping
  if (out.size() == start) edge_contact(support_feature(a, pen.n, kNoFace), support_feature(b, -pen.n, kNoFace), pen, env, out);
}


}  // namespace coulomb::detail
