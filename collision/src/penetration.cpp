// Penetration axis and depth for the narrowphase's general convex path (see penetration.h).
#include "penetration.h"

#include "box_box.h"
#include "features.h"

#include <ccd/ccd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace coulomb::detail {
namespace {

// ---- general convex pairs: libccd GJK+EPA for the axis, support features for the manifold ----

// libccd object: a shape at a pose, optionally grown by a ball of radius `grow`
// (first_dir: GJK's first search direction, read from a; zero: the line of centres)
struct CcdBody {
  const Shape* shape;
  Pose pose;
  double grow;
  Vec3 first_dir = Vec3::Zero();
  // support calls left in this libccd run (counted on body a); see ccd_support_a
  mutable int budget = 0;
  mutable bool exhausted = false;
};

// libccd 2.1's EPA loop (__ccdGJKEPA) has no iteration bound: it stops only when a new support
// point no longer expands the polytope by epa_tolerance, which on deep capsule/cylinder overlaps
// never happens (ccdGJKPenetration would hang). GJK is bounded by max_iterations, so
// every support call past this budget is EPA's: we then answer with the witness itself (a on
// it, b at the origin), which nextSupport() reads as "no expansion" and EPA returns at once.
// The answer is flagged `exhausted` and the caller falls back to another estimate.
// The budget is small because EPA's cost grows faster than the square of its iterations (libccd's
// ccdPtNearest scans the whole polytope each iteration, and every new vertex, edge and face is
// malloc'ed): where the minimum overlap is reached along a whole circle of axes (a sphere and a
// cylinder with one centre) EPA never meets its tolerance and spends the whole budget, and 256
// calls cost a 26th of 1024. Random deep overlaps converge within 256 calls (sphere-cylinder
// within 256, capsule-cylinder within 128).
constexpr int kSupportBudget = 256;

Vec3 world_support(const CcdBody& body, const Vec3& d) {
  Vec3 x = body.pose.apply(support(*body.shape, body.pose.q.conjugate() * d));
  const double len = d.norm();
  if (body.grow > 0.0 && len > 0.0) x += d * (body.grow / len);  // supports add under Minkowski sums
  return x;
}

// exact overlap of the two bodies' projections on n: the depth a translation along n must undo
double overlap(const CcdBody& a, const CcdBody& b, const Vec3& n) {
  return (world_support(a, n) - world_support(b, -n)).dot(n);
}

void ccd_support(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const Vec3 x = world_support(*static_cast<const CcdBody*>(obj), Vec3(dir->v[0], dir->v[1], dir->v[2]));
  for (int k = 0; k < 3; ++k) out->v[k] = x[k];
}

// body a: counts the calls (one per GJK or EPA iteration); past the budget, the witness itself
void ccd_support_a(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  const auto& body = *static_cast<const CcdBody*>(obj);
  if (--body.budget < 0) {
    body.exhausted = true;
    *out = *dir;
    return;
  }
  ccd_support(obj, dir, out);
}

// body b: the origin once a's budget is spent, so that a - b is the witness
void ccd_support_b(const void* obj, const ccd_vec3_t* dir, ccd_vec3_t* out) {
  if (static_cast<const CcdBody*>(obj)->exhausted) {
    for (int k = 0; k < 3; ++k) out->v[k] = 0.0;
    return;
  }
  ccd_support(obj, dir, out);
}

void ccd_center(const void* obj, ccd_vec3_t* c) {
  const Vec3& p = static_cast<const CcdBody*>(obj)->pose.p;
  for (int k = 0; k < 3; ++k) c->v[k] = p[k];
}

// start GJK along the line of centres (or a given axis) instead of libccd's fixed +x
void ccd_first_dir(const void* o1, const void* o2, ccd_vec3_t* dir) {
  const auto& a = *static_cast<const CcdBody*>(o1);
  Vec3 d = a.first_dir.squaredNorm() > 0.0 ? a.first_dir : Vec3(static_cast<const CcdBody*>(o2)->pose.p - a.pose.p);
  if (d.squaredNorm() == 0.0) d = Vec3::UnitX();
  for (int k = 0; k < 3; ++k) dir->v[k] = d[k];
}

// outward face normals in the world: candidate axes when EPA needs a second opinion
void face_axes(const CcdBody& body, double sign, AxisList& axes) {
  const Shape& s = *body.shape;
  for (int k = (s.type == ShapeType::Box ? 0 : s.type == ShapeType::Cylinder ? 2 : 3); k < 3; ++k)
    for (double side : {sign, -sign}) axes.push_back(side * body.pose.rotate(Vec3::Unit(k)));
  if (s.type == ShapeType::Convex)
    for (const Vec3& n : s.hull.face_normals) axes.push_back(sign * body.pose.rotate(n));
}


ccd_t ccd_settings(double scale) {
  ccd_t ccd;
  CCD_INIT(&ccd);
  ccd.support1 = ccd_support_a;
  ccd.support2 = ccd_support_b;
  ccd.center1 = ccd_center;
  ccd.center2 = ccd_center;
  ccd.first_dir = ccd_first_dir;
  ccd.max_iterations = 256;
  // libccd's EPA stops when |w| * (support gain) or a squared distance drops below this (m^2);
  // its default (1e-4) lets shallow contacts stop far from the answer
  ccd.epa_tolerance = 1e-14 * scale * scale;
  ccd.mpr_tolerance = 1e-9 * scale;
  return ccd;
}

Vec3 to_vec(const ccd_vec3_t& v) { return {v.v[0], v.v[1], v.v[2]}; }
bool unit(const Vec3& n) { return n.allFinite() && std::abs(n.norm() - 1.0) < 1e-6; }

// How much a GJK+EPA answer can be trusted.
enum class Axis { None, Estimated, Certified };

// One GJK+EPA run; None when libccd finds the bodies disjoint or touching (EPA depth below
// `touching`: no defined axis). The EPA depth never exceeds the true one (its polytope lies
// inside the Minkowski difference), so when the exact overlap along its axis matches it, the
// axis is optimal and the answer Certified.
Axis ccd_epa(const CcdBody& a, const CcdBody& b, const ccd_t& ccd, double touching, Penetration& pen) {
  ccd_real_t depth = 0.0;
  ccd_vec3_t dir, pos;
  pen = {};
  a.budget = kSupportBudget;
  a.exhausted = b.exhausted = false;
  const int status = ccdGJKPenetration(&a, &b, &ccd, &depth, &dir, &pos);
  const bool exhausted = a.exhausted;
  a.exhausted = b.exhausted = false;
  if (exhausted) {  // EPA hit its bound: its axis is only a candidate, measured exactly below
    const Vec3 n = to_vec(dir);
    if (status == 0 && unit(n)) pen = {n.normalized(), overlap(a, b, n.normalized())};
    return Axis::Estimated;
  }
  if (status != 0 || !(depth > touching)) return Axis::None;
  const Vec3 n = to_vec(dir);
  if (!unit(n) || !std::isfinite(depth)) return Axis::Estimated;
  pen = {n.normalized(), overlap(a, b, n.normalized())};
  return pen.depth <= depth + touching ? Axis::Certified : Axis::Estimated;
}

// Penetration axis of two overlapping bodies. libccd 2.1's EPA does not remove every face a new
// vertex sees, so on deep overlaps it can stop at an interior face; then we retry GJK from the
// best of the EPA axis, the MPR axis (Snethen, XenoCollide, Game Programming Gems 7) and the
// face normals, and keep that candidate (an exact overlap, an upper bound) if EPA fails again.
Axis ccd_penetration(const CcdBody& a, const CcdBody& b, double scale, Penetration& pen) {
  const ccd_t ccd = ccd_settings(scale);
  const double touching = 1e-6 * scale;
  // The face normals bound the depth from above (exact overlaps). A "certified" EPA answer deeper
  // than one of them is wrong: with the origin on the boundary of the Minkowski difference (a
  // capsule standing on a box, grown by the envelope) EPA can return the box's -z, the ground's
  // thickness plus the capsule's length deep.
  AxisList faces;
  face_axes(a, 1.0, faces);
  face_axes(b, -1.0, faces);
  Penetration face{Vec3::Zero(), std::numeric_limits<double>::infinity()};
  for (const Vec3& n : faces)
    if (const double o = overlap(a, b, n); o < face.depth) face = {n, o};
  const auto certified = [&](const Penetration& p) { return !(face.depth < p.depth - touching); };
  const Axis first = ccd_epa(a, b, ccd, touching, pen);
  if (first == Axis::None || (first == Axis::Certified && certified(pen))) return first;
  AxisList axes;
  if (unit(pen.n)) axes.push_back(pen.n);
  ccd_real_t depth = 0.0;
  ccd_vec3_t dir, pos;
  a.budget = kSupportBudget;  // MPR is bounded by max_iterations; the budget only guards it
  const bool mpr = ccdMPRPenetration(&a, &b, &ccd, &depth, &dir, &pos) == 0 && !a.exhausted;
  a.exhausted = b.exhausted = false;
  if (mpr && unit(to_vec(dir))) axes.push_back(to_vec(dir).normalized());
  axes.insert(axes.end(), faces.begin(), faces.end());
  if (axes.empty()) return Axis::None;
  Penetration best{axes[0], overlap(a, b, axes[0])};
  for (const Vec3& n : axes)
    if (const double o = overlap(a, b, n); o < best.depth) best = {n, o};
  // a GJK run started elsewhere ends in another simplex and often lets EPA finish cleanly
  CcdBody retry = a;
  retry.first_dir = best.n;
  if (ccd_epa(retry, b, ccd, touching, pen) == Axis::Certified && certified(pen)) return Axis::Certified;
  pen = best;
  return Axis::Estimated;
}

// ---- polytope pairs: the separating axis test ----

bool is_polytope(const Shape& s) { return s.type == ShapeType::Box || s.type == ShapeType::Convex; }


// world_support of a polytope at its pose, for the many axes of one separating-axis test: a box
// maps each of its 8 corners into the world once (the same q x + p as world_support, so the same
// bits) and picks the corner by the signs of the local direction, where world_support also
// normalised the direction and rotated the corner anew for every axis.
class PolytopeSupport {
 public:
  explicit PolytopeSupport(const Placed& p) : body_{&p.shape, p.pose, 0.0}, box_(p.shape.type == ShapeType::Box) {
    if (!box_) return;
    const Vec3& h = p.shape.half_extents;
    for (int c = 0; c < 8; ++c)
      corner_[c] = p.pose.apply(Vec3(c & 1 ? h.x() : -h.x(), c & 2 ? h.y() : -h.y(), c & 4 ? h.z() : -h.z()));
  }
  Vec3 operator()(const Vec3& d) const {
    if (!box_) return world_support(body_, d);
    const Vec3 l = body_.pose.q.conjugate() * d;  // support(): the sign of each local component, 0 counting as +
    return corner_[(l.x() >= 0.0 ? 1 : 0) | (l.y() >= 0.0 ? 2 : 0) | (l.z() >= 0.0 ? 4 : 0)];
  }

 private:
  CcdBody body_;
  bool box_;
  std::array<Vec3, 8> corner_;
};

// Minimum-overlap axis of two convex polytopes over the face normals of both and the cross
// products of their edges (Gottschalk 1996; Ericson 2005 s.4.4.1): exact and bounded, where
// EPA may wander on the exactly aligned faces of a stack. Face axes win ties within `tol`, and
// edge axes near the best face axis must beat it by the face preference (features.h,
// edge_axis_bias), so stacked faces get their face normal. A negative depth is the separation
// along the best axis, exact for face-vertex and edge-edge closest features.
// Stops at the first axis that separates them by more than `envelope` (the best depth only
// decreases: the pair is dropped either way).
// The loop of the test over world axes: a's face normals, b's (pointing from a to b), then the
// cross products of the edge directions, each measured by overlap(n).
template <class Faces, class Edges, class Overlap>
Penetration separating_axes(const Faces& faces_a, const Faces& faces_b, const Edges& edges_a, const Edges& edges_b,
                            const Vec3& centres, double scale, double envelope, Overlap&& overlap) {
  const double tol = 1e-9 * scale;
  Penetration best{Vec3::Zero(), std::numeric_limits<double>::infinity()};
  auto consider = [&](const Vec3& n, double bias) {
    const double o = overlap(n);
    if (o + bias < best.depth) best = {n, o};
    return !keep(best.depth, envelope);
  };
  for (const Vec3& n : faces_a)
    if (consider(n, 0.0)) return best;
  for (const Vec3& n : faces_b)
    if (consider(n, 0.0)) return best;
  const Vec3 face = best.n;
  for (const Vec3& e1 : edges_a)
    for (const Vec3& e2 : edges_b) {
      Vec3 n = e1.cross(e2);
      if (n.norm() < 1e-6) continue;  // parallel edges: covered by the face axes
      n.normalize();
      if (n.dot(centres) < 0.0) n = -n;
      const double s = n.cross(face).norm();  // sin of the angle to the best face axis
      if (consider(n, edge_axis_bias(s, tol, [scale] { return scale; }))) return best;
    }
  return best;
}

Penetration polytope_sat(const Placed& a, const Placed& b, double scale, double envelope) {
  const PolytopeSupport sa(a), sb(b);
  AxisList fa, ea, fb, eb;
  polytope_axes(a.shape, fa, ea);
  polytope_axes(b.shape, fb, eb);
  // in the world, each direction rotated once
  for (Vec3& n : fa) n = a.pose.rotate(n);
  for (Vec3& n : fb) n = -b.pose.rotate(n);
  for (Vec3& e : ea) e = a.pose.rotate(e);
  for (Vec3& e : eb) e = b.pose.rotate(e);
  return separating_axes(fa, fb, ea, eb, b.pose.p - a.pose.p, scale, envelope,
                         [&](const Vec3& n) { return (sa(n) - sb(-n)).dot(n); });  // overlap(): the same bits
}

// Contact axis and depth (from libccd). EPA has no axis for touching shapes (libccd calls
// |w|^2 < DBL_EPSILON touching), and libccd 2.1 has no GJK distance for disjoint shapes
// (ccdGJKSeparate needs an overlap). Both are handled by growing b by a ball of radius e:
// pen(A, B + ball(e)) = e - dist(A, B) along the same axis (support functions add under
// Minkowski sums), exact whenever dist(A, B) < e.
}  // namespace

void polytope_axes(const Shape& s, AxisList& faces, AxisList& edges) {
  if (s.type == ShapeType::Box) {
    for (int k = 0; k < 3; ++k)
      faces.push_back(Vec3::Unit(k)), faces.push_back(-Vec3::Unit(k)), edges.push_back(Vec3::Unit(k));
    return;
  }
  faces.assign(s.hull.face_normals.begin(), s.hull.face_normals.end());
  for (const auto& f : s.hull.faces)
    for (std::size_t i = 0; i < f.size(); ++i) {
      const Vec3 e =
          (s.hull.vertices[std::size_t(f[(i + 1) % f.size()])] - s.hull.vertices[std::size_t(f[i])]).normalized();
      bool seen = false;
      for (const Vec3& o : edges) seen = seen || std::abs(o.dot(e)) > 1.0 - 1e-12;
      if (!seen && e.allFinite()) edges.push_back(e);
    }
}

bool penetration(const Placed& a, const Placed& b, double scale, double envelope, Penetration& pen) {
  if (a.shape.type == ShapeType::Box && b.shape.type == ShapeType::Box) {
    pen = box_sat(a, b, scale, envelope);
    return keep(pen.depth, envelope);
  }
  if (is_polytope(a.shape) && is_polytope(b.shape)) {
    pen = polytope_sat(a, b, scale, envelope);
    return keep(pen.depth, envelope);
  }
  CcdBody body_a{&a.shape, a.pose, 0.0}, body_b{&b.shape, b.pose, 0.0};
  const Axis direct = ccd_penetration(body_a, body_b, scale, pen);
  if (direct == Axis::Certified) return true;
  // disjoint, touching or uncertain: growing b puts the origin deeper inside the Minkowski
  // difference; of two answers keep the smaller exact overlap (both bound the depth from above)
  body_b.grow = std::max(envelope, 1e-5 * scale);
  Penetration grown;
  if (ccd_penetration(body_a, body_b, scale, grown) != Axis::None) {
    grown.depth -= body_b.grow;
    if (direct == Axis::None || grown.depth < pen.depth) pen = grown;
  } else if (direct == Axis::None) {
    return false;
  }
  return keep(pen.depth, envelope);
}

// The part of a shape that supports it along a direction u, in the world: one point, a segment
// (2 points) or a face polygon (>= 3 points, ccw seen from outside, with its outward normal).

}  // namespace coulomb::detail
