// Contact detection for tetrahedral soft bodies (seed 002 s.5): soft surfaces against rigid
// bodies and against each other, for a position-based solver that re-evaluates each contact's
// gap at every iteration from the current positions of its two sides.
//
// A contact joins two sides, each a point the solver can move: a point fixed on a rigid body,
// or a point on a soft surface given by barycentric weights over 1 or 3 vertices, so that an
// impulse on a triangle point is spread over its vertices with the same weights (seed 002 s.5).
// The gap the solver drives to >= 0 is
//
//   g = n . (p_b - p_a) - offset,   p_a, p_b: the sides' current points,
//
// with the normal n frozen at detection. Three kinds (collision/README.md, "Soft contacts"):
//   RigidVertex:    a = rigid body (point on its surface), b = soft surface vertex
//   RigidTriangle:  a = rigid body (a corner/vertex of its shape), b = soft surface triangle
//   VertexTriangle: a = surface vertex of soft body i, b = surface triangle of soft body j != i
//                   (or j == i with `self_contacts`: a triangle not containing the vertex)
//   EdgeEdge:       a = surface edge of soft body i (2 vertices, weights (1 - s, s, 0)),
//                   b = surface edge of soft body j (j == i allowed with `self_contacts`, the
//                   edges sharing no vertex); only with `edge_edge` (seed 004 s.5)
// Soft surfaces are thickened by `thickness`: offset = thickness per soft side (0, 1 or 2 of
// them: RigidVertex and RigidTriangle have 1, VertexTriangle and EdgeEdge have 2).
#pragma once
#include <coulomb/detect.h>
#include <coulomb/math.h>
#include <coulomb/mesh.h>

#include <array>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

namespace coulomb {

enum class SoftContactKind : std::uint8_t { RigidVertex = 0, RigidTriangle = 1, VertexTriangle = 2, EdgeEdge = 3 };

// One side of a contact: a point fixed on a rigid body, or a point on a soft body's surface
// given by 1 vertex (weights (1,0,0)), an edge's 2 vertices (weights (1 - s, s, 0), vertex[2] = -1)
// or a triangle's 3 vertices with barycentric weights. Consumers loop over the vertices != -1.
struct ContactSide {
  int rigid = -1;                         // rigid body index, -1 if the side is soft
  int soft = -1;                          // soft body index, -1 if the side is rigid
  std::array<int, 3> vertex{-1, -1, -1};  // soft: indices into that soft body's vertex array
  Vec3 weight = Vec3::Zero();             // soft: barycentric weights, each >= 0, summing to 1
  Vec3 point = Vec3::Zero();              // world position of this side's contact point at detection (unit: m)
  // rigid: which point of the shape (RigidTriangle: the corner/vertex id, compound child k's
  // point f as (k + 1) * 1024 + f; RigidVertex: the compound child, -1 for a plain shape);
  // soft: the surface triangle index into SoftSurface::faces, -1 for a vertex or edge side
  int feature = -1;
};

struct SoftContact {
  SoftContactKind kind = SoftContactKind::RigidVertex;
  ContactSide a, b;
  Vec3 normal = Vec3::UnitZ();  // unit, from side a towards side b
  double offset = 0.0;          // the solver's gap is n . (p_b - p_a) - offset (soft sides' thickness) (unit: m)
  double depth = 0.0;           // penetration at detection (> 0 overlapping): -(n . (b.point - a.point) - offset) (unit: m)
};

// Deterministic order: kind, then the sides' bodies, vertices and features, then the points.
inline bool soft_contact_less(const SoftContact& x, const SoftContact& y) {
  const auto key = [](const SoftContact& c) {
    return std::tie(c.kind, c.a.rigid, c.a.soft, c.b.rigid, c.b.soft, c.a.vertex, c.b.vertex, c.a.feature,
                    c.b.feature);
  };
  if (key(x) != key(y)) return key(x) < key(y);
  return std::tie(x.a.point.x(), x.a.point.y(), x.a.point.z(), x.b.point.x(), x.b.point.y(), x.b.point.z()) <
         std::tie(y.a.point.x(), y.a.point.y(), y.a.point.z(), y.b.point.x(), y.b.point.y(), y.b.point.z());
}

struct SoftSurface {                                        // one soft body at its current positions
  const std::vector<Vec3>* x = nullptr;                     // (nv) world positions of all its vertices
  const std::vector<std::array<int, 3>>* faces = nullptr;   // (nf) outward boundary triangles (closed surface)
  const std::vector<int>* surface_vertices = nullptr;       // sorted vertices on the boundary
  double reach = 0.0;  // largest distance any vertex may travel before the next detection (unit: m)
  // Self-contact only (SoftDetectInput::self_contacts). `rest`: (nv) the rest positions, or none;
  // a pair of the body's own features closer than envelope + 2 thickness at rest is never a
  // self-contact (neighbours across a thin part or on a fine mesh: the body's own structure).
  // `self_reach`: largest distance two of its vertices may close on each other before the next
  // detection (unit: m): the body's motion as a whole brings none of its features together.
  const std::vector<Vec3>* rest = nullptr;
  double self_reach = 0.0;
};

struct SoftDetectInput {
  DetectInput rigid;  // the rigid bodies, as for detect_contacts (envelope, margin and reach included)
  std::vector<SoftSurface> soft;
  double thickness = 0.0;  // radius given to soft vertices and surfaces (unit: m), >= 0
  bool soft_soft = true;   // detect VertexTriangle contacts between different soft bodies
  // VertexTriangle contacts within one soft body (a vertex against a non-adjacent triangle of its
  // own surface, closer than the envelope + self_reach and not rest neighbours, unsigned; off by
  // default: scene key `collision.self_contacts`)
  bool self_contacts = false;
  // EdgeEdge contacts between soft surfaces (different bodies, and within one body with
  // self_contacts, as its VertexTriangle ones): two non-adjacent edges closer than the envelope
  // whose closest points are interior to both (off by default: scene key `collision.edge_edge`)
  bool edge_edge = false;
  // Deepest penetration of a point behind a soft surface that is still reported (RigidTriangle
  // and VertexTriangle), beyond the pair envelope (unit: m). Negative: a quarter of the smallest
  // extent of that soft body's bounding box. A deeper point is a body passing through, not a contact.
  double max_depth = -1.0;
  int k = 18;  // kDOP of the soft bodies' trees (18 or 26)
  // Test oracle: every (rigid, soft) and (soft, soft) body pair, no broadphase. Same contacts.
  bool all_pairs = false;
};

struct SoftDetectStats {
  int rigid_vertex = 0, rigid_triangle = 0, vertex_triangle = 0;  // contacts of each kind
  int edge_edge = 0, self_vertex_triangle = 0;  // EdgeEdge contacts; VertexTriangle ones within one body (also in vertex_triangle)
  int pairs = 0;  // candidate (rigid, soft) and (soft, soft) body pairs from the broadphase
};

// One soft body's detection geometry at the positions of the last call. Kept between calls in a
// SoftDetectCache: the tree is built once for the body's topology and then refit (node bounds
// recomputed bottom up over the fixed tree) to the moved vertices at each call.
struct SoftGeometry {
  std::vector<std::array<int, 3>> faces;  // the topology `bvh` was built for
  int k = 0;                              // and its kDOP (0: no tree yet)
  KdopBvh bvh;                            // over `faces`, bounds at the current positions
  std::vector<Vec3> normals;              // (nf) unit outward triangle normals (zero when degenerate)
  Aabb box;                               // of the surface vertices and the faces' vertices
  double scale = 0.0;                     // box diagonal (unit: m), for relative tolerances
  double bound = 0.0;                     // deepest point reported behind the surface beyond the envelope (unit: m)
};

// What detect_soft_contacts keeps between calls, owned by the caller (the World holds one): the
// soft bodies' trees and reused scratch. It never changes the result: a fresh cache gives the
// same contacts, because a refit tree and a rebuilt one find the same triangles within a query's
// range (every triangle's own bounds are exact in both). A body's tree is rebuilt only when its
// faces (or k) differ from the ones it was built for.
struct SoftDetectCache {
  std::vector<SoftGeometry> bodies;  // (ns) by soft body index
  long long builds = 0;              // trees built since the cache was made
  long long refits = 0;              // trees refit since the cache was made
  // scratch, kept to reuse allocations
  std::vector<Aabb> rigid_box;                   // (nr) shape boxes grown by the margin
  std::vector<Aabb> boxes;                       // broadphase boxes: rigid bodies, then soft ones
  std::vector<std::uint8_t> is_static;
  std::vector<int> soft_of_box;                  // soft body of each broadphase box after the rigid ones
  std::vector<std::pair<int, int>> pairs;
};

// Appends every soft contact to `out`, the appended range sorted with soft_contact_less.
// Candidate body pairs come from the broadphase (rigid boxes as in detect_contacts, soft boxes
// from the current vertex bounds grown by reach, thickness and envelope); the per-kind passes run
// in parallel in the caller's task arena; the result does not depend on the thread count.
SoftDetectStats detect_soft_contacts(const SoftDetectInput& in, SoftDetectCache& cache, std::vector<SoftContact>& out);
// The same with a fresh cache (every tree built for this call).
SoftDetectStats detect_soft_contacts(const SoftDetectInput& in, std::vector<SoftContact>& out);

}  // namespace coulomb
