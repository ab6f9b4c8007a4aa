// Box-box contact (see box_box.h).
//
// Why it is written for boxes: a box pair is the common pair of stacks, walls and piles, and the
// general path (penetration.cpp's test, then features.cpp's support features and clipping on
// small vectors) took about 1 us a pair on the Wall, where a box's axes, corners and faces are
// known in closed form. Bullet's btBoxBoxDetector (the ODE detector) was used before: it reports
// penetrating points only, so the Wall's side neighbours, apart by a few mm, took both it and
// the general path (1.3 us a pair). This file follows the general path's rules one for one, so a
// box pair gets the manifold the general path gives, rounded differently.
#include "box_box.h"

#include "features.h"

#include <array>
#include <cmath>
#include <limits>
#include <utility>

namespace coulomb::detail {
namespace {

// A box in the world: its centre, its axes (the columns of R) and its half extents.
struct WorldBox {
  Vec3 p;
  Mat3 R;
  Vec3 h;
  explicit WorldBox(const Placed& b) : p(b.pose.p), R(b.pose.q.toRotationMatrix()), h(b.shape.half_extents) {}
  // corner i of box_hull's numbering (shapes.h), in the box's frame and in the world
  Vec3 local(int i) const { return {i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z()}; }
  Vec3 corner(int i) const { return p + R * local(i); }
  // half the diagonal of its world bounding box (convex_convex's size of a shape)
  double size() const { return (R.cwiseAbs() * h).norm(); }
};

Penetration sat(const WorldBox& a, const WorldBox& b, double scale, double envelope) {
  const Mat3 R = a.R.transpose() * b.R;  // R(i, j) = A_i . B_j
  const Mat3 absR = R.cwiseAbs();
  const Vec3 c = b.p - a.p;
  const Vec3 ca = a.R.transpose() * c, cb = b.R.transpose() * c;
  const double tol = 1e-9 * scale;
  Penetration best{Vec3::Zero(), std::numeric_limits<double>::infinity()};
  // true once the pair is apart by more than the envelope: it is dropped whatever comes next
  const auto consider = [&](const Vec3& n, double overlap, double bias) {
    if (overlap + bias < best.depth) best = {n, overlap};
    return !keep(best.depth, envelope);
  };
  // a's faces +A_i, -A_i: overlap(n) = -c.n + sum_k ha_k |A_k.n| + sum_k hb_k |B_k.n|
  for (int i = 0; i < 3; ++i) {
    const double r = a.h[i] + b.h.dot(absR.row(i).transpose());
    if (consider(a.R.col(i), r - ca[i], 0.0) || consider(-a.R.col(i), r + ca[i], 0.0)) return best;
  }
  // b's faces, pointing from a to b: -B_j, +B_j
  for (int j = 0; j < 3; ++j) {
    const double r = b.h[j] + a.h.dot(absR.col(j));
    if (consider(-b.R.col(j), r + cb[j], 0.0) || consider(b.R.col(j), r - cb[j], 0.0)) return best;
  }
  // edge axes A_i x B_j towards b; with i1, i2 (j1, j2) the other axes in cyclic order,
  // |A_i1.(A_i x B_j)| = |R(i2, j)|, |A_i2.(A_i x B_j)| = |R(i1, j)|, and likewise for b
  const Vec3 face = best.n;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      Vec3 n = a.R.col(i).cross(b.R.col(j));
      const double len = n.norm();
      if (len < 1e-6) continue;  // parallel edges: covered by the face axes
      n /= len;
      double d = c.dot(n);
      if (d < 0.0) n = -n, d = -d;
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double ra = a.h[i1] * absR(i2, j) + a.h[i2] * absR(i1, j);
      const double rb = b.h[j1] * absR(i, j2) + b.h[j2] * absR(i, j1);
      const double dn = n.dot(face);
      const double s2 = std::max(0.0, 1.0 - dn * dn);  // sin^2 of the angle to the best face axis
      const double s = s2 <= kFeatureSin * kFeatureSin ? std::sqrt(s2) : 1.0;
      if (consider(n, (ra + rb) / len - d, edge_axis_bias(s, tol, [scale] { return scale; }))) return best;
    }
  return best;
}

// polytope_feature (features.cpp) for a box: the face most aligned with u (box_hull's order, the
// first of equals) when within acos(face_cos) of it, else the support corner with its neighbour
// when that edge lies across u. Ids: face f, or 6 + corner.
struct BoxFeature {
  std::array<Vec3, 4> pts;
  int n = 0;
  Vec3 normal = Vec3::Zero();
  double align = -1.0;
  int id = -1;
};

BoxFeature box_feature(const WorldBox& b, const Vec3& u_world, double face_cos) {
  const Vec3 u = b.R.transpose() * u_world;
  BoxFeature f;
  int face = 0;
  double best = -u[0];
  for (int k = 1; k < 6; ++k)
    if (const double d = k & 1 ? u[k / 2] : -u[k / 2]; d > best) best = d, face = k;
  if (best >= face_cos) {
    for (int v : kBoxFaceLoops[face]) f.pts[std::size_t(f.n++)] = b.corner(v);
    f.normal = face & 1 ? Vec3(b.R.col(face / 2)) : Vec3(-b.R.col(face / 2));
    f.align = best;
    f.id = face;
    return f;
  }
  int top = 0;
  for (int i = 1; i < 8; ++i)
    if (b.local(i).dot(u) > b.local(top).dot(u)) top = i;
  int next = -1;
  for (const auto& loop : kBoxFaceLoops)
    for (int i = 0; i < 4; ++i) {
      if (loop[i] != top) continue;
      for (int nb : {loop[(i + 1) % 4], loop[(i + 3) % 4]})
        if (next < 0 || b.local(nb).dot(u) > b.local(next).dot(u)) next = nb;
    }
  f.id = 6 + top;
  f.pts[std::size_t(f.n++)] = b.corner(top);
  const Vec3 edge = b.local(top) - b.local(next);
  if (edge.dot(u) <= kFeatureSin * edge.norm()) f.pts[std::size_t(f.n++)] = b.corner(next);
  return f;
}

// A point, a segment (an open chain) or a polygon, on the stack. Clipping a convex polygon by a
// plane adds at most one point; round-off can bend it, so a full buffer drops further points
// rather than overflow (never seen: 4 points clipped 4 times make at most 8).
struct Polygon {
  std::array<Vec3, 16> pts;
  int n = 0;
  void add(const Vec3& x) {
    if (n < int(pts.size())) pts[std::size_t(n++)] = x;
  }
};

// clip_halfspace (features.cpp): keeps the part with m . x <= d, one Sutherland-Hodgman pass
void clip(const Polygon& in, const Vec3& m, double d, Polygon& out) {
  out.n = 0;
  for (int i = 0; i < in.n; ++i) {
    const Vec3& e = in.pts[std::size_t(i)];
    const double he = m.dot(e) - d;
    if (in.n >= 3 || i > 0) {  // the edge s -> e crosses the plane: keep the crossing
      const Vec3& s = in.pts[std::size_t((i + in.n - 1) % in.n)];
      const double hs = m.dot(s) - d;
      if ((hs > 0.0) != (he > 0.0)) out.add(s + (e - s) * (hs / (hs - he)));
    }
    if (he <= 0.0) out.add(e);
  }
}

// face_contact (features.cpp): inc clipped to the prism over ref, depths along ref's normal
void face_contact(const BoxFeature& ref, const BoxFeature& inc, double envelope, std::vector<ContactPoint>& out) {
  const Vec3& m = ref.normal;
  std::array<Polygon, 2> buf;
  for (int k = 0; k < inc.n; ++k) buf[0].add(inc.pts[std::size_t(k)]);
  int cur = 0;
  double offset = 0.0;
  for (std::size_t i = 0; i < 4 && buf[std::size_t(cur)].n > 0; ++i) {
    const Vec3& r0 = ref.pts[i];
    const Vec3 side = (ref.pts[(i + 1) % 4] - r0).cross(m);  // outward for a ccw loop
    clip(buf[std::size_t(cur)], side, side.dot(r0), buf[std::size_t(1 - cur)]);
    cur = 1 - cur;
    offset += m.dot(r0) / 4.0;
  }
  const Polygon& kept = buf[std::size_t(cur)];
  for (int k = 0; k < kept.n; ++k) {
    const Vec3& p = kept.pts[std::size_t(k)];
    const double depth = offset - m.dot(p);
    if (keep(depth, envelope)) out.push_back({p + 0.5 * depth * m, m, depth, ref.id, inc.id});
  }
}

}  // namespace

Penetration box_sat(const Placed& a, const Placed& b, double scale, double envelope) {
  return sat(WorldBox(a), WorldBox(b), scale, envelope);
}

void box_box_contact(const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out) {
  const WorldBox A(a), B(b);
  const Penetration pen = sat(A, B, std::max(A.size() + B.size(), 1e-9), envelope);
  if (!keep(pen.depth, envelope)) return;
  // convex_manifold (features.cpp): the reference face lies along the axis
  const BoxFeature fa = box_feature(A, pen.n, kReferenceCos);
  const BoxFeature fb = box_feature(B, -pen.n, kReferenceCos);
  const bool a_ref = fa.n >= 3 && (fb.n < 3 || fa.align >= fb.align);
  const std::size_t start = out.size();
  if (a_ref) {
    face_contact(fa, box_feature(B, -fa.normal, kFeatureCos), envelope, out);
  } else if (fb.n >= 3) {
    face_contact(fb, box_feature(A, -fb.normal, kFeatureCos), envelope, out);
    flip(out, start);
  }
  if (out.size() > start) return;
  // no face along the axis (edge-edge, vertex) or nothing left after clipping
  const BoxFeature ea = box_feature(A, pen.n, kNoFace), eb = box_feature(B, -pen.n, kNoFace);
  segment_contact({ea.pts[0], ea.pts[std::size_t(ea.n - 1)]}, ea.id, {eb.pts[0], eb.pts[std::size_t(eb.n - 1)]}, eb.id,
                  pen, envelope, out);
}

}  // namespace coulomb::detail
