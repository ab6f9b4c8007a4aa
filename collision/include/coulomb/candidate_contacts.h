// New contacts along seed 004's candidate lists (Algorithm 1 lines 5 and 25): the object builds
// the lists over the soft and rigid surfaces once a step, and at each of the solver's
// convergences runs CCD over them from the start of the step to the solver's end positions.
// It owns what the search needs for the step: the rigid surfaces' triangles (body frame and
// start), the lists, and how often each feature pair was handed over.
//
// Surfaces: soft body i is surface i, then one surface per rigid body with triangles
// (shape_triangles; planes and bodies without a shape have none), in body order.
//
// A pair that CCD still finds colliding at a later convergence slid past its contact (fixed
// weights and normal: an edge sliding along an edge, a vertex leaving its triangle), so it is
// handed over again, with the weights and normal of the new hit, up to kMaxReturns times.
#pragma once
#include <coulomb/candidates.h>
#include <coulomb/math.h>
#include <coulomb/shapes.h>

#include <array>
#include <map>
#include <vector>

namespace coulomb {

// A soft surface at the start of the step: its vertex arrays (read during the step, not copied)
// and where its vertices start in the solver's particle array.
struct CandidateSoftSurface {
  const std::vector<Vec3>* x = nullptr;                    // (nv) positions (unit: m)
  const std::vector<Vec3>* v = nullptr;                    // (nv) velocities (unit: m/s)
  const std::vector<std::array<int, 3>>* faces = nullptr;  // (nf) triangles
  int first_particle = 0;                                  // its vertex 0 in the particle array
};

// A rigid body at the start of the step.
struct CandidateRigidBody {
  int shape = -1;          // in the shape library; -1: no shape, no surface
  Pose shape_pose;         // the shape frame in the world
  Vec3 com = Vec3::Zero(); // centre of mass (unit: m)
  Vec3 v = Vec3::Zero();   // linear velocity of the centre of mass (unit: m/s)
  Vec3 w = Vec3::Zero();   // angular velocity (unit: rad/s)
  bool fixed = false;      // never moves
};

// One side of a hit: up to three vertices of a surface with barycentric weights, and the point
// they make at the start of the step.
struct CandidateSide {
  int surface = -1;
  std::array<int, 3> vertex{-1, -1, -1};
  std::array<double, 3> weight{0.0, 0.0, 0.0};
  int count = 0;                    // vertices used (1 vertex, 2 edge, 3 triangle)
  Vec3 start = Vec3::Zero();        // sum of weight * start position (unit: m)
};

// A CCD hit along the lists: a is the triangle (vertex-face) or edge b (edge-edge), b the
// vertex or edge a; the normal points from a to b.
struct CandidateHit {
  CandidateSide a, b;
  Vec3 normal = Vec3::UnitZ();
};

class CandidateContacts {
 public:
  static constexpr int kMaxReturns = 4;

  // The lists of this step (Algorithm 1 line 5), over the soft surfaces and rigid bodies.
  void begin(const ShapeLibrary& shapes, const std::vector<CandidateSoftSurface>& soft,
             const std::vector<CandidateRigidBody>& rigid, double dt);
  bool active() const { return active_; }
  void clear();  // the step is over: no lists, nothing handed over

  int soft_count() const { return ns_; }
  // the rigid body of surface s >= soft_count()
  int rigid_body(int s) const { return rigid_body_[std::size_t(s - ns_)]; }

  // CCD from the start of the step to the end positions (line 25): the soft surfaces' vertices
  // at particles[first_particle + v], the rigid bodies' shapes at shape_end[body]. Appends the
  // hits to hand over to `out` and returns their count; min_toi() is then the earliest time of
  // impact of any hit, handed over or not (1 if none).
  int find(const Vec3* particles, const std::vector<Pose>& shape_end, std::vector<CandidateHit>& out);
  double min_toi() const { return min_toi_; }

 private:
  CandidateSide side(int s, std::array<int, 3> v, const std::array<double, 3>& w, int n) const;

  bool active_ = false;
  int ns_ = 0;
  std::vector<CandidateSurface> surfaces_;
  CandidateOptions options_;
  CandidateLists lists_;
  std::vector<int> rigid_body_;                 // rigid surface -> body
  std::vector<std::vector<Vec3>> rigid_local_;  // its vertices in the shape frame
  std::vector<std::vector<Vec3>> rigid_x0_, rigid_v_;  // at the start of the step
  std::vector<std::vector<std::array<int, 3>>> rigid_faces_;
  std::vector<int> first_particle_;             // (soft surfaces)
  std::vector<std::vector<Vec3>> x_now_;        // every surface's end positions (scratch)
  std::map<std::array<int, 7>, int> returned_;  // feature pair -> times handed over this step
  double min_toi_ = 1.0;
};

}  // namespace coulomb
