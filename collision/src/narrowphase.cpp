// Narrowphase: contact manifolds between two placed shapes.
//
// Why it is built this way:
// - One literal 7x7 table of plain functions picks the algorithm for a pair of shape types
//   (STYLE.md lesson 6, as MuJoCo's mjCOLLISIONFUNC and Box2D's s_registers). Each unordered
//   pair appears once; the dispatcher calls the mirrored entry with swapped arguments and
//   flips normals and features, so no pair function knows about symmetry.
// - Closed forms where they are exact and short (balls, segments, planes). Box-box has its own
//   separating-axis test and clipping on fixed arrays (box_box.h), by the general path's rules.
//   Every other convex pair gets its normal and depth from penetration.h (an exact
//   separating-axis test for two polytopes, libccd's GJK+EPA otherwise) and its manifold from
//   the shapes' support features
//   along that normal: the incident feature is clipped against the side planes of the
//   reference face (Sutherland & Hodgman 1974, as in Box2D's b2ClipPolygons and Bullet's
//   btPolyhedralContactClipping) and each clipped point is measured against the face plane.
// - Points are kept while the surfaces are closer than `envelope` (negative depth), which is
//   what lets a resting stack keep its contacts before the bodies touch.
// - Every loop runs in index order and nothing is keyed by address: the same input gives
//   the same points in the same order.
#include <coulomb/narrowphase.h>

#include "box_box.h"
#include "features.h"
#include "mesh_collide.h"
#include "penetration.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

namespace coulomb {
namespace {

using namespace detail;  // Placed, Penetration, features, segments, mesh pairs

constexpr std::size_t kMaxManifold = 4;
// compound child k's feature f is reported as (k + 1) * kChildStride + f
constexpr int kChildStride = 1024;
constexpr int kMaxCompoundDepth = 16;


using PairFn = void (*)(const ShapeLibrary&, const Placed&, const Placed&, double, std::vector<ContactPoint>&);
void dispatch(const ShapeLibrary& lib, const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out);
// reduce_manifold on pts[0, n): the kept points move to the front in order; returns their count
std::size_t reduce_manifold(ContactPoint* pts, std::size_t n, std::size_t max_n);



// ---- closed forms ----------------------------------------------------------------------------


// two balls: every round pair reduces to this
void ball_ball(const Vec3& ca, double ra, const Vec3& cb, double rb, double envelope, int fa, int fb,
               std::vector<ContactPoint>& out) {
  const Vec3 d = cb - ca;
  const double dist = d.norm();
  const double depth = ra + rb - dist;
  if (!keep(depth, envelope)) return;
  // concentric balls have no preferred axis; pick a fixed one for determinism
  const Vec3 n = dist > 0.0 ? Vec3(d / dist) : Vec3(Vec3::UnitZ());
  out.push_back({0.5 * ((ca + ra * n) + (cb - rb * n)), n, depth, fa, fb});
}

// a ball against a half-space; the normal points into the solid side
void ball_halfspace(const Vec3& c, double r, const Halfspace& h, double envelope, int fa,
                    std::vector<ContactPoint>& out) {
  const double height = h.n.dot(c) - h.d;  // of the centre above the plane
  const double depth = r - height;
  if (keep(depth, envelope)) out.push_back({c - 0.5 * (r + height) * h.n, -h.n, depth, fa, 0});
}

// the vertices of a polytope against a half-space (exact: the deepest points of a polytope are vertices)
void vertices_halfspace(const std::vector<Vec3>& local, const Pose& pose, const Halfspace& h, double envelope,
                        std::vector<ContactPoint>& out) {
  for (std::size_t i = 0; i < local.size(); ++i) {
    const Vec3 v = pose.apply(local[i]);
    const double height = h.n.dot(v) - h.d;
    if (keep(-height, envelope)) out.push_back({v - 0.5 * height * h.n, -h.n, -height, int(i), 0});
  }
}

void sphere_sphere(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  ball_ball(a.pose.p, a.shape.radius, b.pose.p, b.shape.radius, env, 0, 0, out);
}

void sphere_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  ball_halfspace(a.pose.p, a.shape.radius, world_halfspace(b), env, 0, out);
}

// box face id 2k + (s > 0) for the face whose outward normal is s e_k (same order as box_hull)
int box_face(const Vec3& local_dir) {
  int k = 0;
  local_dir.cwiseAbs().maxCoeff(&k);
  return 2 * k + (local_dir[k] > 0.0 ? 1 : 0);
}

// Closest box point to the centre (outside), or the nearest face (centre inside the box).
void sphere_box(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  const Vec3 c = b.pose.apply_inverse(a.pose.p);  // sphere centre in the box frame
  const Vec3& h = b.shape.half_extents;
  const double r = a.shape.radius;
  Vec3 on_box = c.cwiseMax(-h).cwiseMin(h), n;  // n: box frame, from the sphere towards the box
  double depth = r - (on_box - c).norm();
  if (on_box != c) {
    n = (on_box - c).normalized();
  } else {
    int k = 0;
    double gap = std::numeric_limits<double>::infinity(), side = 1.0;
    for (int i = 0; i < 3; ++i)
      for (double s : {-1.0, 1.0})
        if (h[i] - s * c[i] < gap) { gap = h[i] - s * c[i]; k = i; side = s; }
    n = -side * Vec3::Unit(k);
    on_box[k] = side * h[k];
    depth = r + gap;
  }
  if (!keep(depth, env)) return;
  const Vec3 on_sphere = c + r * n;
  out.push_back({b.pose.apply(0.5 * (on_box + on_sphere)), b.pose.rotate(n), depth, 0, box_face(-n)});
}

void sphere_capsule(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  double t = 0.0;
  const Vec3 q = closest_on_segment(a.pose.p, capsule_axis(b), &t);
  // capsule features: 0 side, 1 bottom cap (-z), 2 top cap (+z)
  ball_ball(a.pose.p, a.shape.radius, q, b.shape.radius, env, 0, t <= 0.0 ? 1 : (t >= 1.0 ? 2 : 0), out);
}

void capsule_capsule(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  PointPairs pairs;
  segment_pairs(capsule_axis(a), capsule_axis(b), pairs);
  for (const auto& [pa, pb] : pairs) ball_ball(pa, a.shape.radius, pb, b.shape.radius, env, 0, 0, out);
}

// the two end balls: a capsule lying on a plane gives two points
void capsule_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  const Segment axis = capsule_axis(a);
  const Halfspace h = world_halfspace(b);
  ball_halfspace(axis.p, a.shape.radius, h, env, 1, out);
  ball_halfspace(axis.q, a.shape.radius, h, env, 2, out);
}

void box_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  // the loader fills box hulls (no hull to build per call); a hand-made box shape may not have one
  if (a.shape.hull.vertices.size() == 8) vertices_halfspace(a.shape.hull.vertices, a.pose, world_halfspace(b), env, out);
  else vertices_halfspace(box_hull(a.shape.half_extents).vertices, a.pose, world_halfspace(b), env, out);
}

void convex_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  vertices_halfspace(a.shape.hull.vertices, a.pose, world_halfspace(b), env, out);
}

// Rim samples of both caps, starting on each cap at its exact support point towards the plane
// (sample 0). A standing cylinder gives the whole bottom rim at one depth, one lying on its
// side gives the two sample-0 points; reduce_manifold then keeps at most 4 well-spread ones.
void cylinder_plane(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  const Halfspace h = world_halfspace(b);
  const Vec3 w = a.pose.rotate(Vec3::UnitZ());
  const Vec3 down = -h.n;
  Vec3 e1 = down - down.dot(w) * w, e2;  // e1: towards the lowest rim point of each cap
  if (e1.norm() > 1e-12) e1.normalize();
  else tangent_basis(w, e1, e2);  // standing upright: any rim direction
  e2 = w.cross(e1);
  for (int cap = 0; cap < 2; ++cap) {
    const Vec3 centre = a.pose.p + (cap ? 1.0 : -1.0) * a.shape.half_height * w;
    for (int k = 0; k < kRimSamples; ++k) {
      const double angle = 2.0 * kPi * k / kRimSamples;
      const Vec3 x = centre + a.shape.radius * (std::cos(angle) * e1 + std::sin(angle) * e2);
      const double height = h.n.dot(x) - h.d;
      if (keep(-height, env)) out.push_back({x - 0.5 * height * h.n, down, -height, cap * kRimSamples + k, 0});
    }
  }
}

void plane_plane(const ShapeLibrary&, const Placed&, const Placed&, double, std::vector<ContactPoint>&) {}

void convex_convex(const ShapeLibrary& lib, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  // the size of the pair (half box diagonals) scales libccd's tolerances
  const auto size = [&](const Placed& p) { const Aabb box = lib.aabb(p.shape, p.pose, 0.0); return 0.5 * (box.hi - box.lo).norm(); };
  Penetration pen;
  if (penetration(a, b, std::max(size(a) + size(b), 1e-9), env, pen)) convex_manifold(a, b, pen, env, out);
}

// ---- box-box: its own separating-axis test and clipping (box_box.h) ----

void box_box(const ShapeLibrary&, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  box_box_contact(a, b, env, out);
}

// ---- compounds: recurse into the children of b ----

void compound_any(const ShapeLibrary& lib, const Placed& a, const Placed& b, double env, std::vector<ContactPoint>& out) {
  if (b.depth >= kMaxCompoundDepth) return;  // only a cycle in bad input gets here
  const int nshapes = int(lib.shapes.size());
  const Aabb box_a = lib.aabb(a.shape, a.pose, env);
  for (std::size_t k = 0; k < b.shape.children.size(); ++k) {
    const CompoundChild& c = b.shape.children[k];
    if (c.shape < 0 || c.shape >= nshapes) continue;
    const Placed child{c.shape, lib[c.shape], b.pose * c.pose, b.depth + 1};
    if (!box_a.overlaps(lib.aabb(c.shape, child.pose, 0.0))) continue;  // cheap cull per child
    const std::size_t start = out.size();
    dispatch(lib, a, child, env, out);
    for (std::size_t i = start; i < out.size(); ++i) out[i].feature_b += (int(k) + 1) * kChildStride;
  }
}

// ---- the table: row = type of a, column = type of b; each unordered pair appears once ----

constexpr PairFn kPairs[kShapeTypeCount][kShapeTypeCount] = {
    //            Sphere          Box        Capsule          Cylinder       Plane           Convex         Compound      Mesh
    /*Sphere*/   {sphere_sphere,  sphere_box, sphere_capsule,  convex_convex, sphere_plane,   convex_convex, compound_any, nullptr},
    /*Box*/      {nullptr,        box_box,    convex_convex,   convex_convex, box_plane,      convex_convex, compound_any, nullptr},
    /*Capsule*/  {nullptr,        nullptr,    capsule_capsule, convex_convex, capsule_plane,  convex_convex, compound_any, nullptr},
    /*Cylinder*/ {nullptr,        nullptr,    nullptr,         convex_convex, cylinder_plane, convex_convex, compound_any, nullptr},
    /*Plane*/    {nullptr,        nullptr,    nullptr,         nullptr,       plane_plane,    nullptr,       compound_any, nullptr},
    /*Convex*/   {nullptr,        nullptr,    nullptr,         nullptr,       convex_plane,   convex_convex, compound_any, nullptr},
    /*Compound*/ {nullptr,        nullptr,    nullptr,         nullptr,       nullptr,        nullptr,       compound_any, nullptr},
    /*Mesh*/     {mesh_convex,    mesh_convex, mesh_convex,    mesh_convex,   mesh_plane,     mesh_convex,   compound_any, mesh_mesh},
};

// a canonical order for two shapes of one type, so that (a, b) and (b, a) mirror each other exactly
bool precedes(const Placed& x, const Placed& y) {
  return std::tie(x.index, x.pose.p.x(), x.pose.p.y(), x.pose.p.z()) <
         std::tie(y.index, y.pose.p.x(), y.pose.p.y(), y.pose.p.z());
}

void dispatch(const ShapeLibrary& lib, const Placed& a, const Placed& b, double envelope, std::vector<ContactPoint>& out) {
  const int ta = int(a.shape.type), tb = int(b.shape.type);
  const std::size_t start = out.size();
  if (kPairs[ta][tb] && !(ta == tb && precedes(b, a))) {
    kPairs[ta][tb](lib, a, b, envelope, out);
  } else {
    kPairs[tb][ta](lib, b, a, envelope, out);
    flip(out, start);
  }
  // one convex pair is one manifold of at most 4 points; compounds hold one per child pair and
  // meshes reduce their own (one manifold per normal direction)
  const auto many = [](int t) { return t == int(ShapeType::Compound) || t == int(ShapeType::Mesh); };
  if (many(ta) || many(tb) || out.size() - start <= kMaxManifold) return;
  out.resize(start + reduce_manifold(out.data() + start, out.size() - start, kMaxManifold));
}

// ---- manifold reduction ----

// Area and perimeter of the 2D convex hull (Andrew's monotone chain, 1979); a segment's
// perimeter is twice its length, so collinear sets are measured by their spread too.
// The reduction measures a hull of at most max_n points for every candidate of every round
// (18 hulls for 8 points to 4), so the points are sorted and chained in fixed arrays.
using Points2 = boost::container::small_vector<Eigen::Vector2d, 8>;
constexpr std::size_t kHullPoints = 8;  // the most points hull_measure takes (max_n <= kHullPoints)
HullMeasure hull_measure(const Points2& in) {
  const std::size_t n = std::min(in.size(), kHullPoints);
  if (n == 0) return {};
  // two and three points in closed form (a segment; a triangle, whose sides sum to twice its
  // extent when it is flat), which is what the chain below computes, rounded differently
  if (n == 2) return {0.0, 2.0 * (in[1] - in[0]).norm()};
  if (n == 3) {
    const Eigen::Vector2d u = in[1] - in[0], v = in[2] - in[0];
    return {0.5 * std::abs(u.x() * v.y() - u.y() * v.x()), u.norm() + (in[2] - in[1]).norm() + v.norm()};
  }
  std::array<Eigen::Vector2d, kHullPoints> p;
  for (std::size_t i = 0; i < n; ++i) {  // insertion sort by (x, y)
    std::size_t j = i;
    for (; j > 0 && std::tie(in[i].x(), in[i].y()) < std::tie(p[j - 1].x(), p[j - 1].y()); --j) p[j] = p[j - 1];
    p[j] = in[i];
  }
  const auto turn = [](const auto& o, const auto& a, const auto& b) { return (a - o).x() * (b - o).y() - (a - o).y() * (b - o).x(); };
  std::array<Eigen::Vector2d, 2 * kHullPoints> h;  // lower chain, then upper chain (each drops its last point)
  std::size_t hn = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const std::size_t base = hn;
    for (std::size_t k = 0; k < n; ++k) {
      const Eigen::Vector2d& x = p[pass == 0 ? k : n - 1 - k];
      while (hn >= base + 2 && turn(h[hn - 2], h[hn - 1], x) <= 0.0) --hn;
      h[hn++] = x;
    }
    --hn;
  }
  HullMeasure m;
  for (std::size_t i = 0; i < hn; ++i) {
    const Eigen::Vector2d &x = h[i], &y = h[(i + 1) % hn];
    m.area += 0.5 * (x.x() * y.y() - x.y() * y.x());
    m.perimeter += (y - x).norm();
  }
  return m;
}

}  // namespace

int collide(const ShapeLibrary& lib, int a, const Pose& pa, int b, const Pose& pb, double envelope,
            std::vector<ContactPoint>& out) {
  const int n = int(lib.shapes.size());
  if (a < 0 || a >= n || b < 0 || b >= n) return 0;
  const std::size_t start = out.size();
  dispatch(lib, Placed{a, lib[a], pa}, Placed{b, lib[b], pb}, envelope, out);
  return int(out.size() - start);
}

int collide(const ShapeLibrary& lib, int a, const Pose& pa, const Shape& b, int b_id, const Pose& pb,
            double envelope, std::vector<ContactPoint>& out) {
  const int n = int(lib.shapes.size());
  if (a < 0 || a >= n || b_id < n) return 0;
  const std::size_t start = out.size();
  dispatch(lib, Placed{a, lib[a], pa}, Placed{b_id, b, pb}, envelope, out);
  return int(out.size() - start);
}

// Greedy: the deepest point, then repeatedly the point that grows the spanned area the most
// (the perimeter breaks ties, so collinear sets keep their ends), as in Bullet's
// sortCachedPoints and Jolt's PruneContactPoints. Works in the plane normal to the deepest
// point's normal.
void reduce_manifold(std::vector<ContactPoint>& pts, int max_points) {
  pts.resize(reduce_manifold(pts.data(), pts.size(), std::size_t(std::max(max_points, 0))));
}

namespace {

std::size_t reduce_manifold(ContactPoint* pts, std::size_t n, std::size_t max_n) {
  if (n <= max_n) return n;
  std::size_t deepest = 0;
  for (std::size_t i = 1; i < n; ++i)
    if (pts[i].depth > pts[deepest].depth) deepest = i;
  const double len = pts[deepest].normal.norm();
  Vec3 t, s;
  tangent_basis(len > 0.0 ? Vec3(pts[deepest].normal / len) : Vec3(Vec3::UnitZ()), t, s);
  thread_local std::vector<Eigen::Vector2d> xy;  // kept between calls: no allocation in steady state
  thread_local std::vector<double> depth;
  xy.resize(n);
  depth.resize(n);
  for (std::size_t i = 0; i < n; ++i) xy[i] = {pts[i].point.dot(t), pts[i].point.dot(s)}, depth[i] = pts[i].depth;
  std::array<int, 8> chosen;
  const int m = choose_spread(xy.data(), depth.data(), int(n), int(std::min(max_n, kHullPoints)),
                              [&](const std::array<int, 8>& c, int k, int i) {
                                Points2 set;
                                for (int j = 0; j < k; ++j) set.push_back(xy[std::size_t(c[std::size_t(j)])]);
                                set.push_back(xy[std::size_t(i)]);
                                return hull_measure(set);
                              },
                              chosen);
  // chosen is increasing and chosen[k] >= k: moving them to the front in order overwrites
  // nothing still to be read
  for (int k = 0; k < m; ++k) pts[k] = pts[std::size_t(chosen[std::size_t(k)])];
  return std::size_t(m);
}

}  // namespace

}  // namespace coulomb
