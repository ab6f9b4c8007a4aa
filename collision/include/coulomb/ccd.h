// Continuous collision detection (seed 004 s.5.2): vertex-face and edge-edge pairs moving along
// linear trajectories over one step, and swept convex casts for fast rigid bodies.
//
// Feature pairs. Each of the 4 vertices moves linearly from its start position x0 to its end
// position x1 over the step, x(t) = (1 - t) x0 + t x1 with t in [0, 1] the fraction of the step.
// A pair collides when the distance between its two features drops to the thickness eta >= 0.
// The time of impact (toi) is the earliest such t. Found in three ways, earliest wins:
//   - touching at t = 0 (distance <= eta at the start);
//   - the roots in [0, 1] of the cubic coplanarity equation
//       (x1(t) - x0(t)) x (x2(t) - x0(t)) . (x3(t) - x0(t)) = 0        (seed 004 s.5.2, Provot 1997)
//     bracketed on the monotone pieces between the roots of its derivative and refined with
//     Boost.Math's toms748 (a bracketing solver, never leaves its bracket), each root kept when
//     the features are within eta at that time (the barycentric test, with a tolerance);
//   - for eta > 0, conservative advancement on the distance (it finds grazing passes within eta
//     that never become coplanar): t += (d(t) - eta) / L, L a bound on how fast d can change.
// Degenerate motions are covered by the same code: zero-length motion (the cubic is constant,
// the start distance decides), parallel and coplanar motion (the cubic vanishes identically:
// the distance advancement decides, and with eta = 0 an exactly coplanar crossing is found by the
// 2-D in-plane test on the sampled advancement), touching at t = 0.
//
// Result at the toi: the closest points of the two features, their barycentric weights and the
// contact normal n (unit, from feature b to feature a: the direction in which a must move to
// separate). When the features touch exactly (distance ~ 0, e.g. a coplanar crossing with
// eta = 0), n is the triangle normal (vertex-face) or the normalised cross product of the edges
// (edge-edge), oriented to the side a was on at t = 0.
#pragma once
#include <coulomb/math.h>
#include <coulomb/shapes.h>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace coulomb {

struct CcdOptions {
  double thickness = 0.0;  // eta: a pair collides when its distance drops to this (unit: m), >= 0
  // time tolerance (fraction of the step): toi is within this of the exact first time of
  // contact (earlier, never later, except for the coplanar roots, which toms748 brackets to it)
  double time_tolerance = 1e-6;
  // relative tolerance of the barycentric test at a coplanarity root (a fraction of the
  // features' size): a crossing this close outside an edge still counts (no tunnelling
  // between two adjacent triangles through their shared edge)
  double feature_tolerance = 1e-9;
  int max_iterations = 10000;  // conservative advancement steps; at the cap, the last t is reported as a hit
};

struct CcdHit {
  double toi = 0.0;                  // fraction of the step in [0, 1]
  Vec3 normal = Vec3::UnitZ();       // unit, from feature b towards feature a at toi
  std::array<double, 3> wa{1, 0, 0};  // feature a's barycentric weights (vertex: {1}; edge: {1 - s, s})
  std::array<double, 3> wb{1, 0, 0};  // feature b's (triangle: 3 weights; edge: {1 - u, u})
  Vec3 pa = Vec3::Zero(), pb = Vec3::Zero();  // the closest points at toi (unit: m)
  double distance = 0.0;             // |pa - pb| at toi (unit: m)
};

// Vertex-face: feature a is the vertex p, feature b the triangle (t0, t1, t2).
// Start and end positions: p0/p1, the triangle's a0/a1, b0/b1, c0/c1.
std::optional<CcdHit> ccd_vertex_face(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                                      const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                      const CcdOptions& opt = {});

// Edge-edge: feature a is the edge (p, q), feature b the edge (r, s); start and end positions.
std::optional<CcdHit> ccd_edge_edge(const Vec3& p0, const Vec3& q0, const Vec3& r0, const Vec3& s0,
                                    const Vec3& p1, const Vec3& q1, const Vec3& r1, const Vec3& s1,
                                    const CcdOptions& opt = {});

// Static proximity queries used by the CCD (and by its tests as oracles): the closest points of
// a point and a triangle / of two segments, with their barycentric weights.
struct Closest {
  double distance = 0.0;
  std::array<double, 3> wa{1, 0, 0}, wb{1, 0, 0};
  Vec3 pa = Vec3::Zero(), pb = Vec3::Zero();
};
Closest closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c);
Closest closest_segment_segment(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s);

// ---------------------------------------------------------------------------------------------
// Rigid CCD: swept convex casts for rigid bodies that move more than their own size in
// one step, so that a small fast body cannot pass through a thin wall between two detections.
//
// Stage function, called by the World after the velocities of the step are known and before the
// positions are integrated (engine/src/world_ccd.cpp, `collision.ccd: true`). For each dynamic body
// whose translation over the step exceeds `size_fraction` times its smallest half extent, every
// other body whose box meets its swept box is cast against with Bullet's
// btContinuousConvexCollision (a conservative-advancement cast of two convex shapes, rotation
// included; compound children one by one; a mesh triangle by triangle; a plane as a big box),
// and the earliest time of impact is returned. The World clamps the body's motion to that time
// (collision/README.md, "Rigid CCD").
struct RigidCcdInput {
  const ShapeLibrary* shapes = nullptr;
  const std::vector<int>* body_shape = nullptr;          // (nb) -1: no shape, never swept or hit
  const std::vector<Pose>* pose0 = nullptr;              // (nb) world pose of each body's shape at the start of the step
  const std::vector<Pose>* pose1 = nullptr;              // (nb) ... at the end of the step if nothing stops it
  const std::vector<std::uint8_t>* is_static = nullptr;  // (nb) static bodies are never swept, only hit
  double size_fraction = 0.5;  // a body is swept when it moves more than this times its smallest half extent
  // the collision filter (DetectInput::contype, conaffinity) and pairs (a < b, sorted) that never
  // collide, or null
  const std::vector<std::uint32_t>* contype = nullptr;
  const std::vector<std::uint32_t>* conaffinity = nullptr;
  const std::vector<std::pair<int, int>>* excluded_pairs = nullptr;
};

struct RigidCcdHit {
  int body = -1;           // the swept body
  int other = -1;          // the body it hits first
  double toi = 1.0;        // fraction of the step at first contact, in [0, 1)
  Vec3 normal = Vec3::UnitZ();  // unit, from `other` towards `body` at the toi
  Vec3 point = Vec3::Zero();    // contact point on `other` at the toi (unit: m)
};

struct RigidCcdStats {
  int swept = 0;  // bodies that were fast enough to be swept
  int casts = 0;  // convex casts run
  int hits = 0;   // bodies with a time of impact < 1
};

// One hit per swept body that hits something in the step (the earliest), sorted by body.
// Deterministic and independent of the thread count.
RigidCcdStats rigid_ccd(const RigidCcdInput& in, std::vector<RigidCcdHit>& out);

}  // namespace coulomb
