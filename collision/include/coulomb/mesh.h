// Triangle meshes as rigid collision shapes, and their kDOP bounding volume hierarchy.
//
// A TriMesh is built once at load time (make_tri_mesh) and shared read-only by every body that
// uses it; it lives in the shape's own frame. Its BVH never changes for a rigid mesh: a query
// brings the other object into the mesh frame instead (a convex shape's exact kDOP from its
// support mapping; another mesh by refitting a copy of its tree to its vertices moved into
// this frame). Soft bodies' trees are refit every step (soft_contacts.h, SoftDetectCache).
//
// Orientation is the contract: a triangle's front side is the side its counter-clockwise
// winding's normal points to. Contacts push objects out of the front side only, so that a thin
// wall never pushes an object through itself. Closed meshes (every edge shared by exactly two
// triangles in opposite directions) are oriented outwards at build time; open meshes keep the
// file's winding and may only be static.
#pragma once
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

namespace coulomb {

// k-discrete-orientation polytope: the interval of a set along k/2 fixed directions
// (k = 18: the 3 axes and the 6 edge diagonals; k = 26: also the 4 corner diagonals).
struct Kdop {
  static constexpr int kMaxAxes = 13;
  std::array<double, kMaxAxes> lo, hi;
};

// Directions of a k-DOP (k = 18 or 26), unnormalised (integer components).
const std::vector<Vec3>& kdop_axes(int k);

struct BvhNode {
  Kdop box;
  int left = -1, right = -1;  // children (internal node) or -1 (leaf)
  int first = 0, count = 0;   // leaf: items order[first, first + count)
};

// A binary kDOP tree over triangles, built top-down by median split of the triangle centroids
// along the axis of largest spread (deterministic: ties broken by index).
struct KdopBvh {
  int k = 18;
  std::vector<BvhNode> nodes;   // nodes[0] is the root
  std::vector<int> order;       // triangle indices, grouped by leaf
  int axes() const { return k / 2; }
};

// Builds the tree of `triangles` over `vertices`. `k` must be 18 or 26.
KdopBvh build_bvh(const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles, int k,
                  int leaf_size = 4);
// Recomputes every node's box for moved vertices (same topology), bottom up.
void refit(KdopBvh& bvh, const std::vector<Vec3>& vertices, const std::vector<std::array<int, 3>>& triangles);
// kDOP of a point set along the tree's axes.
Kdop kdop_of(const KdopBvh& bvh, const Vec3* points, int n);
bool kdop_overlap(const Kdop& a, const Kdop& b, int axes, double margin = 0.0);
// Triangles whose leaf boxes overlap `box` grown by `margin` (sorted, unique).
void bvh_query(const KdopBvh& bvh, const Kdop& box, double margin, std::vector<int>& triangles);
// Triangle pairs (i of a, j of b) whose leaf boxes overlap; both trees in the same frame and
// with the same k, in traversal order (a function of the trees only: deterministic).
void bvh_pairs(const KdopBvh& a, const KdopBvh& b, double margin, std::vector<std::pair<int, int>>& pairs);
// The same walk with b's tree left in its own frame and placed in a's at `b_in_a`, without a
// copy: a node of b is bounded by the box of its x, y, z slabs, and that box turned into a's
// frame is measured along a's axes (exact for the box, so conservative for the node). A
// superset of the pairs of the refitted copy; callers cull leaf pairs by the triangles.
// `scratch` is the caller's (no allocation once it has grown).
struct BvhWalkScratch {
  std::vector<std::pair<int, int>> stack;
  std::vector<double> slabs;          // per node of b: its placed box's interval along each of a's axes
  std::vector<std::uint8_t> placed;   // whether a node's slabs are computed in this walk
};
void bvh_pairs(const KdopBvh& a, const KdopBvh& b, const Pose& b_in_a, double margin,
               std::vector<std::pair<int, int>>& pairs, BvhWalkScratch& scratch);

struct TriMesh {
  std::vector<Vec3> vertices;                 // (unit: m)
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from the front
  std::vector<Vec3> normals;                  // (per triangle) unit front normal
  // (per triangle) bit e (0..2) set when edge (v_e, v_{e+1}) is sharp: a boundary edge or a
  // convex edge whose dihedral angle exceeds kSharpEdgeAngle. A contact on a flat or concave
  // edge takes the face normal instead (no bumps where a body slides across a smooth surface).
  std::vector<std::uint8_t> sharp_edges;
  bool closed = false;                        // every edge shared by two oppositely wound triangles
  double volume = 0.0;                        // enclosed volume when closed (unit: m^3)
  KdopBvh bvh;
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();  // local bounding box
};

inline constexpr double kSharpEdgeAngle = 0.0873;  // 5 degrees (unit: rad)

// Validates and builds a mesh. Throws std::invalid_argument (with a message naming the first
// offending triangle or edge) for: no triangles, an index out of range, a non-finite vertex, a
// degenerate (zero-area) triangle, an edge shared by more than two triangles, or a closed mesh
// that encloses no volume. A closed mesh wound inwards is flipped to face outwards.
std::shared_ptr<const TriMesh> make_tri_mesh(std::vector<Vec3> vertices, std::vector<std::array<int, 3>> triangles,
                                             int k = 18);

}  // namespace coulomb
