// The soft contact kinds (collision/README.md, "Soft contacts"): one plain function per kind,
// each over one candidate body pair from the broadphase, appending that pair's contacts
// (unsorted) to `out`. detect_soft_contacts (soft_contacts.cpp) sequences them. Private to
// collision/.
//
// Each function applies the exact box test of its pair first (the pair's envelope is
// envelope + both reaches, as in detect_contacts), so it gives the same contacts whether the
// pair came from the broadphase or from a list of every pair.
//
// Seed 004's further kinds join here with the same shape, one function per kind over a body
// pair: edge-edge contacts (a rigid or soft edge crossing a soft triangle with no vertex or
// corner inside) and continuous collision (vertex-triangle and edge-edge times of impact over
// the step, seed 004 s.5), plus a SoftPass value each in soft_contacts.cpp.
#pragma once
#include <coulomb/soft_contacts.h>

#include "soft_queries.h"

#include <vector>

namespace coulomb::detail {

// What every kind reads: the rigid bodies, the soft bodies and their geometry, the thickness.
struct SoftKindInput {
  const DetectInput* rigid = nullptr;                  // shapes, poses, envelope, reach
  const std::vector<Aabb>* rigid_box = nullptr;        // (nr) shape boxes grown by the margin
  const std::vector<SoftSurface>* soft = nullptr;      // (ns) current positions and topology
  const std::vector<SoftGeometry>* geometry = nullptr; // (ns) trees, normals and boxes at those positions
  const VertexBall* ball = nullptr;                    // a soft vertex as a narrowphase shape
  double thickness = 0.0;                              // >= 0 (unit: m)
};

// (a) RigidVertex: the surface vertices of soft body `s` against the shape of rigid body `r`,
// at most one contact per vertex (its deepest point over the shape's compound children).
void rigid_vertex_contacts(const SoftKindInput& in, int r, int s, QueryScratch& k, std::vector<SoftContact>& out);

// (b) RigidTriangle: the corners of rigid body `r`'s shape against the triangles of soft body
// `s`, at most one contact per corner.
void rigid_triangle_contacts(const SoftKindInput& in, int r, int s, QueryScratch& k, std::vector<SoftContact>& out);

// (c) VertexTriangle: the surface vertices of soft body `a` against the triangles of soft body
// `b` != a, at most one contact per vertex. The pair is directed: (b, a) is another call.
void vertex_triangle_contacts(const SoftKindInput& in, int a, int b, QueryScratch& k, std::vector<SoftContact>& out);
// (d) VertexTriangle within one soft body `a` (SoftDetectInput::self_contacts): each surface
// vertex against the nearest triangle of its own surface that does not contain it and is not its
// rest neighbour (SoftSurface::rest), closer than envelope + self_reach (unsigned distance: one
// body's surface near itself has no inside to test).
void self_vertex_triangle_contacts(const SoftKindInput& in, int a, QueryScratch& k, std::vector<SoftContact>& out);
// (e) EdgeEdge (SoftDetectInput::edge_edge): each surface edge of soft body `a` against the
// nearest surface edge of soft body `b`, closer than the pair envelope, with the closest points
// interior to both edges (end points are the vertex-triangle kinds' business) and the edges not
// parallel. Between bodies (a < b) the normal is the closest points' direction, flipped when a's
// edge is behind b's surface there (b's edge normal: the sum of its two faces' normals). Within
// one body (a == b, self-contact) as (d): edges sharing a vertex and rest neighbours skipped, each
// unordered pair looked at once, envelope + self_reach, and unsigned (the normal from a's edge to
// b's): every edge of a convex part lies behind the surface at every other edge.
void edge_edge_contacts(const SoftKindInput& in, int a, int b, QueryScratch& k, std::vector<SoftContact>& out);

}  // namespace coulomb::detail
