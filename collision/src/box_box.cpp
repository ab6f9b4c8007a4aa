// Box-box contact (see box_box.h).
//
// Why it is written for boxes: a box pair is the common pair of stacks, walls and piles, and the
// general path (penetration.cpp's test, then features.cpp's support features and clipping on
// small vectors) works on general polytopes, where a box's axes, corners and faces are known in
// closed form. Not Bullet's btBoxBoxDetector (the ODE detector): it reports penetrating points
// only, so separated neighbours a few mm apart (the Wall's) would need the general path as well.
// This file follows the general path's rules one for one, so a
// box pair gets the manifold the general path gives, rounded differently.
#include "box_box.h"

#include "features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>
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
  // the outward normal of face f (box_hull's numbering: 2k + (sign > 0) along axis k)
  Vec3 normal(int f) const { return f & 1 ? Vec3(R.col(f / 2)) : Vec3(-R.col(f / 2)); }
  // half the diagonal of its world bounding box (convex_convex's size of a shape)
  double size() const { return (R.cwiseAbs() * h).norm(); }
};

// Two boxes and what relates them: R(i, j) = A_i . B_j holds b's axes in a's frame (its
// columns) and a's in b's (its rows); ca, cb are b's centre minus a's in a's and in b's frame.
struct BoxPair {
  WorldBox a, b;
  Mat3 R;
  Vec3 ca, cb;
  BoxPair(const Placed& pa, const Placed& pb)
      : a(pa), b(pb), R(a.R.transpose() * b.R), ca(a.R.transpose() * (b.p - a.p)), cb(b.R.transpose() * (b.p - a.p)) {}
};

// The test in a's frame, where a's axes are the unit vectors, b's are the columns of R and an
// edge axis e_i x R.col(j) is a permutation of R's entries: only the chosen axis is turned into
// the world. n_a: the axis in a's frame.
Penetration sat(const BoxPair& pair, double scale, double envelope, Vec3& n_a) {
  const WorldBox &a = pair.a, &b = pair.b;
  const Mat3& R = pair.R;
  const Mat3 absR = R.cwiseAbs();
  const Vec3 &ca = pair.ca, &cb = pair.cb;
  const double tol = 1e-9 * scale;
  Vec3 best_n = Vec3::Zero();  // in a's frame
  double best = std::numeric_limits<double>::infinity();
  // true once the pair is apart by more than the envelope: it is dropped whatever comes next
  const auto consider = [&](const Vec3& n, double overlap, double bias) {
    if (overlap + bias < best) best = overlap, best_n = n;
    return !keep(best, envelope);
  };
  const auto result = [&] {
    n_a = best_n;
    return Penetration{a.R * best_n, best};
  };
  // a's faces +A_i, -A_i: overlap(n) = -c.n + sum_k ha_k |A_k.n| + sum_k hb_k |B_k.n|
  for (int i = 0; i < 3; ++i) {
    const double r = a.h[i] + b.h.dot(absR.row(i).transpose());
    if (consider(Vec3::Unit(i), r - ca[i], 0.0) || consider(-Vec3::Unit(i), r + ca[i], 0.0)) return result();
  }
  // b's faces, pointing from a to b: -B_j, +B_j
  for (int j = 0; j < 3; ++j) {
    const double r = b.h[j] + a.h.dot(absR.col(j));
    if (consider(-R.col(j), r + cb[j], 0.0) || consider(R.col(j), r - cb[j], 0.0)) return result();
  }
  // edge axes A_i x B_j towards b; with i1, i2 (j1, j2) the other axes in cyclic order,
  // |A_i1.(A_i x B_j)| = |R(i2, j)|, |A_i2.(A_i x B_j)| = |R(i1, j)|, and likewise for b
  // |e_i x R.col(j)|^2 = R(i1, j)^2 + R(i2, j)^2, and the nine inverse lengths at once (the
  // square roots and divisions one by one, each waiting on the last, would be most of the test)
  Eigen::Array33d len2;
  for (int i = 0; i < 3; ++i) len2.row(i) = R.row((i + 1) % 3).array().square() + R.row((i + 2) % 3).array().square();
  const Eigen::Array33d inv_len = len2.sqrt().inverse();
  const Vec3 face = best_n;
  // one edge of a against b's three; i is a constant, so that n = e_i x B_j (n_i = 0,
  // n_i1 = -R(i2, j), n_i2 = R(i1, j)) stays in registers (a vector built entry by entry through
  // memory stalled the loads that followed)
  const auto edges_of = [&](auto axis) {
    constexpr int i = decltype(axis)::value, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) {
      if (len2(i, j) < 1e-12) continue;  // parallel edges (|A_i x B_j| < 1e-6): covered by the face axes
      const double inv = inv_len(i, j);
      double n1 = -R(i2, j), n2 = R(i1, j);
      double d = (ca[i1] * n1 + ca[i2] * n2) * inv;
      if (d < 0.0) n1 = -n1, n2 = -n2, d = -d;
      const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const double ra = a.h[i1] * absR(i2, j) + a.h[i2] * absR(i1, j);
      const double rb = b.h[j1] * absR(i, j2) + b.h[j2] * absR(i, j1);
      const double dn = (face[i1] * n1 + face[i2] * n2) * inv;
      const double s2 = std::max(0.0, 1.0 - dn * dn);  // sin^2 of the angle to the best face axis
      const double s = s2 <= kFeatureSin * kFeatureSin ? std::sqrt(s2) : 1.0;
      const double overlap = (ra + rb) * inv - d;
      if (overlap + edge_axis_bias(s, tol, [scale] { return scale; }) < best) {
        best = overlap;
        best_n[i] = 0.0;
        best_n[i1] = n1 * inv;
        best_n[i2] = n2 * inv;
      }
      if (!keep(best, envelope)) return true;
    }
    return false;
  };
  // each stops the rest once the pair is apart
  (void)(edges_of(std::integral_constant<int, 0>{}) || edges_of(std::integral_constant<int, 1>{}) ||
         edges_of(std::integral_constant<int, 2>{}));
  return result();
}

// polytope_feature (features.cpp) for a box: the face most aligned with u (box_hull's order, the
// first of equals) when within acos(face_cos) of it, else the support corner with its neighbour
// when that edge lies across u. Ids: face f, or 6 + corner. Its points are read when needed.
struct BoxFeature {
  int face = -1;            // a face, or
  int top = -1, next = -1;  // a corner, or an edge from it (next >= 0)
  double align = -1.0;      // the face's normal . u
  int id = -1;
  bool is_face() const { return face >= 0; }
};

BoxFeature box_feature(const WorldBox& b, const Vec3& u, double face_cos) {  // u in b's frame
  BoxFeature f;
  int face = 0;
  double best = -u[0];
  for (int k = 1; k < 6; ++k)
    if (const double d = k & 1 ? u[k / 2] : -u[k / 2]; d > best) best = d, face = k;
  if (best >= face_cos) {
    f.face = f.id = face;
    f.align = best;
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
  f.top = top;
  const Vec3 edge = b.local(top) - b.local(next);
  if (edge.dot(u) <= kFeatureSin * edge.norm()) f.next = next;
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

// The feature's corners (box_hull's numbers), 1, 2 or 4 of them.
int corner_ids(const BoxFeature& f, std::array<int, 4>& ids) {
  if (f.is_face()) {
    for (int k = 0; k < 4; ++k) ids[std::size_t(k)] = kBoxFaceLoops[f.face][k];
    return 4;
  }
  ids[0] = f.top;
  ids[1] = f.next;
  return f.next >= 0 ? 2 : 1;
}

// clip_halfspace (features.cpp) in the reference box's frame, against its side plane
// sign * x[axis] <= h[axis]: one Sutherland-Hodgman pass
void clip(const Polygon& in, int axis, double sign, double h, Polygon& out) {
  out.n = 0;
  for (int i = 0; i < in.n; ++i) {
    const Vec3& e = in.pts[std::size_t(i)];
    const double he = sign * e[axis] - h;
    if (in.n >= 3 || i > 0) {  // the edge s -> e crosses the plane: keep the crossing
      const Vec3& s = in.pts[std::size_t((i + in.n - 1) % in.n)];
      const double hs = sign * s[axis] - h;
      if ((hs > 0.0) != (he > 0.0)) out.add(s + (e - s) * (hs / (hs - he)));
    }
    if (he <= 0.0) out.add(e);
  }
}

// reduce_manifold's choice (choose_spread, features.h) for the points of a convex polygon in its
// order, measured in the plane of axes t1, t2 (the reference face's). The hull of points of a
// convex polygon is those points in the polygon's order, so no hull is sorted and chained for
// every candidate (a clipped face gives up to 8 points, and the general reduction is costly on a wall of boxes): the
// same choice up to round-off. Writes the chosen indices in increasing order; returns their count.
int reduce_convex(const Polygon& poly, const std::array<double, 16>& depth, int t1, int t2,
                  std::array<int, 8>& chosen) {
  if (poly.n <= 4) {
    for (int i = 0; i < poly.n; ++i) chosen[std::size_t(i)] = i;
    return poly.n;
  }
  std::array<Eigen::Vector2d, 16> xy;
  for (int i = 0; i < poly.n; ++i) xy[std::size_t(i)] = {poly.pts[std::size_t(i)][t1], poly.pts[std::size_t(i)][t2]};
  const auto hull = [&](const std::array<int, 8>& c, int m, int i) {
    std::array<int, 8> set = c;  // c[0, m) and i in the polygon's order
    set[std::size_t(m)] = i;
    std::sort(set.begin(), set.begin() + m + 1);
    HullMeasure h;
    for (int e = 0; e <= m; ++e) {
      const Eigen::Vector2d &p = xy[std::size_t(set[std::size_t(e)])],
                            &q = xy[std::size_t(set[std::size_t((e + 1) % (m + 1))])];
      h.area += 0.5 * (p.x() * q.y() - p.y() * q.x());
      h.perimeter += (q - p).norm();
    }
    h.area = std::abs(h.area);
    return h;
  };
  return choose_spread(xy.data(), depth.data(), poly.n, 4, hull, chosen);
}

// face_contact (features.cpp): the incident feature clipped to the prism over the reference
// face, depths along its normal; in the reference box's frame (`inc`: the incident points there),
// where the face is x_k = +-h_k and its sides are x_t = +-h_t.
void face_contact(const WorldBox& rb, const BoxFeature& ref, const Polygon& inc, int inc_id, double envelope,
                  std::vector<ContactPoint>& out) {
  const int k = ref.face / 2;
  const double side = ref.face & 1 ? 1.0 : -1.0;
  std::array<Polygon, 2> buf;
  buf[0] = inc;
  // the sides in the face loop's order, as face_contact clips them: the side through corners
  // v0 -> v1 bounds the axis along which they agree, on their side
  int cur = 0;
  const auto& loop = kBoxFaceLoops[ref.face];
  for (int i = 0; i < 4 && buf[std::size_t(cur)].n > 0; ++i) {
    const int v0 = loop[i], v1 = loop[(i + 1) % 4];
    const int t = (v0 ^ v1) == 1 << ((k + 1) % 3) ? (k + 2) % 3 : (k + 1) % 3;  // corners differ in one bit
    clip(buf[std::size_t(cur)], t, v0 & (1 << t) ? 1.0 : -1.0, rb.h[t], buf[std::size_t(1 - cur)]);
    cur = 1 - cur;
  }
  const Vec3 m = rb.normal(ref.face);
  const Polygon& clipped = buf[std::size_t(cur)];
  Polygon kept;  // the points within the envelope, still in the polygon's order
  std::array<double, 16> depth;
  for (int i = 0; i < clipped.n; ++i) {
    const Vec3& x = clipped.pts[std::size_t(i)];
    const double d = rb.h[k] - side * x[k];
    if (!keep(d, envelope)) continue;
    depth[std::size_t(kept.n)] = d;
    kept.add(x);
  }
  std::array<int, 8> chosen;
  const int n = reduce_convex(kept, depth, (k + 1) % 3, (k + 2) % 3, chosen);
  for (int c = 0; c < n; ++c) {
    const auto i = std::size_t(chosen[std::size_t(c)]);
    out.push_back({rb.p + rb.R * kept.pts[i] + 0.5 * depth[i] * m, m, depth[i], ref.id, inc_id});
  }
}

}  // namespace

Penetration box_sat(const Placed& a, const Placed& b, double scale, double envelope) {
  const BoxPair pair(a, b);
  Vec3 n_a;
  return sat(pair, scale, envelope, n_a);
}

void box_box_contact(const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out) {
  const BoxPair P(a, b);
  const WorldBox &A = P.a, &B = P.b;
  Vec3 n_a;
  const Penetration pen = sat(P, std::max(A.size() + B.size(), 1e-9), envelope, n_a);
  if (!keep(pen.depth, envelope)) return;
  const Vec3 n_b = P.R.transpose() * n_a;  // the axis in b's frame
  // convex_manifold (features.cpp): the reference face lies along the axis; the incident feature
  // is the other box's support along minus its normal, and its corners are taken into the
  // reference box's frame through R (x_a = ca + R x_b, x_b = R^T x_a - cb)
  const BoxFeature fa = box_feature(A, n_a, kReferenceCos);
  const BoxFeature fb = box_feature(B, -n_b, kReferenceCos);
  const bool a_ref = fa.is_face() && (!fb.is_face() || fa.align >= fb.align);
  const std::size_t start = out.size();
  std::array<int, 4> ids;
  Polygon inc;
  if (a_ref) {
    const double sign = fa.face & 1 ? 1.0 : -1.0;  // A's face normal in b's frame: sign R.row(k)
    const BoxFeature fi = box_feature(B, -sign * P.R.row(fa.face / 2).transpose(), kFeatureCos);
    for (int k = 0, n = corner_ids(fi, ids); k < n; ++k) inc.add(P.ca + P.R * B.local(ids[std::size_t(k)]));
    face_contact(A, fa, inc, fi.id, envelope, out);
  } else if (fb.is_face()) {
    const double sign = fb.face & 1 ? 1.0 : -1.0;  // B's face normal in a's frame: sign R.col(k)
    const BoxFeature fi = box_feature(A, -sign * P.R.col(fb.face / 2), kFeatureCos);
    for (int k = 0, n = corner_ids(fi, ids); k < n; ++k) inc.add(P.R.transpose() * A.local(ids[std::size_t(k)]) - P.cb);
    face_contact(B, fb, inc, fi.id, envelope, out);
    flip(out, start);
  }
  if (out.size() > start) return;
  // no face along the axis (edge-edge, vertex) or nothing left after clipping
  const BoxFeature ea = box_feature(A, n_a, kNoFace), eb = box_feature(B, -n_b, kNoFace);
  const auto segment = [&](const WorldBox& box, const BoxFeature& f) {
    const int n = corner_ids(f, ids);
    return Segment{box.corner(ids[0]), box.corner(ids[std::size_t(n - 1)])};
  };
  segment_contact(segment(A, ea), ea.id, segment(B, eb), eb.id, pen, envelope, out);
}

}  // namespace coulomb::detail
