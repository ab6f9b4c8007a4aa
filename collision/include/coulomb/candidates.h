// Candidate lists of seed 004 s.5.1: one surface kDOP hierarchy (KdopBvh, mesh.h) over the
// triangles of every surface in the scene (soft bodies' boundaries, rigid bodies as triangle
// meshes), each triangle's box extended by 3 dt |v| of its vertices in the direction of their
// velocities, walked against itself once per step. Every pair of triangles whose extended
// boxes overlap gives vertex-face pairs (each vertex of one against the other, both ways) and
// edge-edge pairs (the 3 x 3 edges); each feature pair is kept when the features' own extended
// boxes overlap, duplicates dropped. Self-collision (two triangles of one surface) is included;
// adjacent features are culled: a vertex against a face that contains it, and two edges that
// share a vertex. The solver then runs CCD (ccd.h) on these lists only, and re-checks a vertex
// that has left its extended box (the out-of-box check of seed 004 s.5.2, recheck_candidates).
//
// Surfaces are identified by their index in the input vector; vertices and faces by their index
// in that surface's arrays. Lists are sorted (surface, vertex/edge ids, ...) and do not depend on
// the thread count.
#pragma once
#include <coulomb/math.h>
#include <coulomb/mesh.h>
#include <coulomb/shapes.h>

#include <array>
#include <cstdint>
#include <vector>

namespace coulomb {

// One surface at the start of the step. Positions and velocities are world-frame arrays indexed
// by `faces` (a soft body's whole vertex array: only the vertices used by faces are read).
struct CandidateSurface {
  const std::vector<Vec3>* x = nullptr;                    // (nv) positions at the start of the step (unit: m)
  const std::vector<Vec3>* v = nullptr;                    // (nv) velocities (unit: m/s), null: at rest
  const std::vector<std::array<int, 3>>* faces = nullptr;  // (nf) triangles
  int soft = -1;   // the soft body this surface is, or -1
  int rigid = -1;  // the rigid body this surface is, or -1
  // true: this surface never moves (a static rigid body); pairs of two fixed surfaces are skipped
  bool fixed = false;
  // false: no self-collision pairs within this surface (rigid surfaces never get them)
  bool self = true;
};

struct CandidateOptions {
  double dt = 0.0;          // step (unit: s)
  double inflation = 3.0;   // boxes extended by inflation * dt * v of their vertices (seed 004 s.5.1: 3)
  double margin = 0.0;      // extra growth of every feature's box, e.g. 2 thickness + envelope (unit: m)
  int k = 18;               // kDOP of the surface hierarchy (18 or 26)
  bool rigid_rigid = false; // pairs between two rigid surfaces (the rigid pipeline has them already)
};

struct VertexFaceCandidate {
  int vs = -1, v = -1;  // surface and vertex of the vertex
  int fs = -1, f = -1;  // surface and face of the triangle
  friend bool operator<(const VertexFaceCandidate& a, const VertexFaceCandidate& b) {
    return std::array<int, 4>{a.vs, a.v, a.fs, a.f} < std::array<int, 4>{b.vs, b.v, b.fs, b.f};
  }
  friend bool operator==(const VertexFaceCandidate& a, const VertexFaceCandidate& b) {
    return a.vs == b.vs && a.v == b.v && a.fs == b.fs && a.f == b.f;
  }
};

// An edge is (surface, lower vertex, higher vertex). In a pair, edge a < edge b lexicographically.
struct EdgeEdgeCandidate {
  int as = -1, a0 = -1, a1 = -1;  // surface and vertices (a0 < a1) of edge a
  int bs = -1, b0 = -1, b1 = -1;  // surface and vertices (b0 < b1) of edge b
  friend bool operator<(const EdgeEdgeCandidate& a, const EdgeEdgeCandidate& b) {
    return std::array<int, 6>{a.as, a.a0, a.a1, a.bs, a.b0, a.b1} < std::array<int, 6>{b.as, b.a0, b.a1, b.bs, b.b0, b.b1};
  }
  friend bool operator==(const EdgeEdgeCandidate& a, const EdgeEdgeCandidate& b) {
    return a.as == b.as && a.a0 == b.a0 && a.a1 == b.a1 && a.bs == b.bs && a.b0 == b.b0 && a.b1 == b.b1;
  }
};

// The lists and what the out-of-box re-check needs, kept by the caller for the step.
struct CandidateLists {
  std::vector<VertexFaceCandidate> vf;  // sorted, unique
  std::vector<EdgeEdgeCandidate> ee;    // sorted, unique
  // the surface hierarchy: global triangle g = face_first[s] + f of surface s
  KdopBvh bvh;
  std::vector<int> face_first;          // (ns + 1) prefix sums of the surfaces' face counts
  std::vector<Kdop> tri_box;            // (total faces) extended box of each triangle
  std::vector<int> vertex_first;        // (ns + 1) prefix sums of the surfaces' vertex counts
  std::vector<Aabb> vertex_box;         // (total vertices) extended box of each vertex (x and x + inflation dt v, grown by margin)
  int face_pairs = 0;                   // triangle pairs whose extended boxes overlap
};

// Builds the lists for this step (seed 004 s.5.1, Algorithm 1 line 5). Surfaces with no faces
// are allowed (they give nothing).
void build_candidates(const std::vector<CandidateSurface>& surfaces, const CandidateOptions& opt, CandidateLists& out);

// Out-of-box re-check (seed 004 s.5.2): the vertices whose position `x_now` (per surface, same
// indexing as CandidateSurface::x) lies outside their extended box. For each, the boxes of its
// triangles are extended to also cover x_now, the hierarchy is queried again with them, and the
// new vertex-face and edge-edge pairs are merged into the lists (kept sorted and unique).
// Returns the number of vertices found outside their box; `added` (optional) the new pairs.
struct RecheckResult {
  int vertices_out = 0;
  int vf_added = 0, ee_added = 0;
};
RecheckResult recheck_candidates(const std::vector<CandidateSurface>& surfaces,
                                 const std::vector<const std::vector<Vec3>*>& x_now, const CandidateOptions& opt,
                                 CandidateLists& lists);

// The triangles of a rigid shape's surface in its own frame (box: 12, convex hull: its faces fanned,
// mesh: its triangles, compound: its children's in the compound frame; sphere, capsule and
// cylinder: tessellated with `segments` around; planes: none). For rigid surfaces in the lists.
void shape_triangles(const ShapeLibrary& lib, int shape, std::vector<Vec3>& vertices,
                     std::vector<std::array<int, 3>>& faces, int segments = 12);

}  // namespace coulomb
