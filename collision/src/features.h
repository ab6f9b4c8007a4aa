// Contact manifolds from a contact axis: the shapes' support features along the axis, the
// incident feature clipped against the reference face, edge-edge closest pairs; and the segment
// helpers the closed forms share. Private to collision/ (narrowphase.cpp, mesh_collide.cpp).
#pragma once
#include <coulomb/narrowphase.h>

#include "penetration.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace coulomb::detail {

inline constexpr int kRimSamples = 16;  // cylinder caps are sampled as 16-gons
inline constexpr double kPi = 3.14159265358979323846;
// a feature within 3 degrees of the normal counts as flat (a face) or as a line (an edge)
inline constexpr double kFeatureCos = 0.99862953475457383;  // cos(3 deg)
inline constexpr double kFeatureSin = 0.05233595624294383;  // sin(3 deg)
// An edge axis within 3 degrees (kFeatureSin) of the best face axis is that face's contact seen
// slightly tilted: rotating an axis by an angle with sine s changes the overlap by at most about
// 2 s times the pair's size, so such an edge axis replaces the face only if it overlaps less by
// more than min(2 s, kFacePreference) times the size. Without it, stacked faces tilted by a few
// mrad lose to an edge axis a few 1e-5 m shallower, whose manifold is a single point (the Tower's
// crossed blocks, whose overlap shares a corner and two sides with both). The face's deepest
// point may then lie up to that bound below the minimum overlap. Both separating-axis tests use
// it: penetration.cpp's on shapes, mesh_collide.cpp's on world triangles (the same blocks with the
// lower one a mesh keep 4 points along the face normal).
inline constexpr double kFacePreference = 5e-3;
// The bias an edge axis at sine `s` from the best face axis must beat (on top of the ties'
// `tol`); `size` is the pair's size, computed only when the axis is that close.
template <class Size>
double edge_axis_bias(double s, double tol, Size&& size) {
  return s <= kFeatureSin ? tol + size() * std::min(2.0 * s, kFacePreference) : tol;
}
// a reference face must match the contact normal up to EPA round-off (4.5e-5 rad)
inline constexpr double kReferenceCos = 1.0 - 1e-9;
// never a polygon: asks support_feature for an edge or a vertex
inline constexpr double kNoFace = 2.0;

// world half-space n . x <= d of a plane shape
struct Halfspace { Vec3 n; double d; };
Halfspace world_halfspace(const Placed& p);

struct Segment { Vec3 p, q; };
Segment capsule_axis(const Placed& c);
Vec3 closest_on_segment(const Vec3& x, const Segment& s, double* t_out = nullptr);
// Parameters of the closest points of two segments: Ericson, Real-Time Collision Detection
// (2005), s.5.1.9 ClosestPtSegmentSegment. Zero-length segments are points.
void closest_segments(const Segment& a, const Segment& b, double& s, double& t);
// Point pairs (on a, on b) for two segments: the closest pair, and when the segments are nearly
// parallel also the pairs at both ends of their overlap (a line contact needs two points).
void segment_pairs(const Segment& a, const Segment& b, PointPairs& pairs);

// The part of a shape that supports it along a direction u, in the world: one point, a segment
// (2 points) or a face polygon (>= 3 points, ccw seen from outside, with its outward normal and
// align = normal . u).
struct Feature { PointList pts; Vec3 normal = Vec3::Zero(); double align = -1.0; int id = -1; };
// Faces count when their normal is within acos(face_cos) of u.
Feature support_feature(const Placed& p, const Vec3& u_world, double face_cos);

// Incident feature clipped to the prism over the reference face; depths are measured along the
// reference normal (the contact normal, from the reference shape to the incident one).
void face_contact(const Feature& ref, const Feature& inc, double envelope, std::vector<ContactPoint>& out);

// Edges and vertices (a segment may be a point, p == q): the closest pairs of the two, two pairs
// for near-parallel edges; a single pair gets the axis' depth, a line contact each pair's own.
void segment_contact(const Segment& a, int id_a, const Segment& b, int id_b, const Penetration& pen, double envelope,
                     std::vector<ContactPoint>& out);

// Contact points of two convex shapes along a known axis `pen` (from a to b): the reference face
// of a or b that lies along the axis with the other's incident feature clipped to it, else the
// closest pairs of the two edges/vertices. Points are kept while closer than `envelope`.
void convex_manifold(const Placed& a, const Placed& b, const Penetration& pen, double envelope,
                     std::vector<ContactPoint>& out);

// Area and perimeter of a 2D hull (reduce_manifold's measure of spread).
struct HullMeasure { double area = 0.0, perimeter = 0.0; };

// reduce_manifold's choice (narrowphase.h) among n points with plane coordinates xy and depths:
// the deepest, then one by one the point that adds the most hull area (and a millionth of the
// set's size times the perimeter) to those chosen, never a shadowed one. `hull(chosen, m, i)`
// measures the hull of chosen[0, m) (in the order chosen) and point i: the general path builds
// it, a convex polygon's points in order are their own hull (box_box.cpp). Writes the chosen
// indices in increasing order; returns their count (at most max_n <= 8).
template <class Hull>
int choose_spread(const Eigen::Vector2d* xy, const double* depth, int n, int max_n, Hull&& hull,
                  std::array<int, 8>& chosen) {
  if (n <= 0 || max_n <= 0) return 0;
  int deepest = 0;
  for (int i = 1; i < n; ++i)
    if (depth[i] > depth[deepest]) deepest = i;
  double size = 0.0;  // of the point set, for relative tolerances
  for (int i = 0; i < n; ++i) size = std::max(size, (xy[i] - xy[deepest]).norm());
  // A point with a deeper one below it (within 45 degrees of the normal) is shadowed: the
  // surfaces meet there first, and only a rotation of more than 45 degrees could bring the
  // shallow one into play. Once the envelope is larger than a body (a 1 cm cube, a 2 mm rod with
  // the default 1 cm envelope), its far vertices come as speculative points with the same
  // footprint as the near ones, and as they spread the area just as well they would take the
  // near ones' places: the cube would stand on one real corner and three speculative ones, tip and
  // sink. Shadowed points are not candidates.
  boost::container::small_vector<char, 32> out(std::size_t(n), 0);  // shadowed, then also chosen
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n && !out[std::size_t(i)]; ++j)
      out[std::size_t(i)] = depth[j] > depth[i] && (xy[i] - xy[j]).norm() < depth[j] - depth[i];
  int m = 0;
  chosen[std::size_t(m++)] = deepest;
  out[std::size_t(deepest)] = 1;
  HullMeasure current;
  while (m < std::min(max_n, 8)) {
    int pick = -1;
    double best = 1e-12 * size * size;  // below this nothing adds spread
    for (int i = 0; i < n; ++i) {
      if (out[std::size_t(i)]) continue;
      const HullMeasure h = hull(chosen, m, i);
      const double gain = (h.area - current.area) + 1e-6 * size * (h.perimeter - current.perimeter);
      if (gain > best) best = gain, pick = i;
    }
    if (pick < 0) break;
    current = hull(chosen, m, pick);
    chosen[std::size_t(m++)] = pick;
    out[std::size_t(pick)] = 1;
  }
  std::sort(chosen.begin(), chosen.begin() + m);
  return m;
}

// turns points computed for (b, a) into points for (a, b)
void flip(std::vector<ContactPoint>& pts, std::size_t from);

}  // namespace coulomb::detail
