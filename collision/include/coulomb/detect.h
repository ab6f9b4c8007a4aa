// Collision detection stage (DESIGN.md stage 2): bodies' shapes and poses in, sorted contacts out.
#pragma once
#include <coulomb/broadphase.h>
#include <coulomb/contact.h>
#include <coulomb/shapes.h>

#include <cstdint>
#include <vector>

namespace coulomb {

struct DetectInput {
  const ShapeLibrary* shapes = nullptr;
  const std::vector<int>* body_shape = nullptr;          // (nb) -1: no shape, collides with nothing
  const std::vector<Pose>* shape_pose = nullptr;         // (nb) world pose of each body's shape
  const std::vector<std::uint8_t>* is_static = nullptr;  // (nb) static pairs are skipped
  double envelope = 0.01;  // contacts are reported below this separation (unit: m)
  double margin = 0.0;     // extra growth of the bounding boxes (unit: m)
  // (nb) how far each body may move before the next detection (unit: m), or null for none:
  // a pair's envelope grows by the sum of its two bodies' reach, so that a fast body meets its
  // contact as a speculative one before it overlaps instead of after
  const std::vector<double>* reach = nullptr;
  // Speculative contacts by relative motion (as Box2D v3 and Jolt): with `travel` set, a pair's
  // narrowphase envelope is `envelope` plus what the pair can close in the step,
  //   |travel_a - travel_b| + turn_a + turn_b + accel_reach,
  // instead of the sum of both reaches, so that neighbours falling side by side get no contacts.
  // A body with a contact that can close may stop within the step: its pairs use
  // max(|travel_a - travel_b|, |travel_a|, |travel_b|) for it (detect.cpp). The broadphase
  // boxes still grow by `reach`. A fast pair still gets its whole closing distance, so it
  // cannot tunnel.
  const std::vector<Vec3>* travel = nullptr;  // (nb) linear displacement over the step, v dt (unit: m)
  const std::vector<double>* turn = nullptr;  // (nb) bound on a surface point's travel by rotation, |w| r dt (unit: m)
  // (nb) bodies taken as touched (may stop within the step) from the start, or null: the
  // touched bodies are found in passes over the contacts, and a pair whose body becomes touched
  // runs the narrowphase again with the larger reach; bodies a contact pushed in the previous
  // step are likely to be touched again, and their pairs then run once (the funnel's landing:
  // 1.8 narrowphase calls per pair and 9 passes per step without the hint)
  const std::vector<std::uint8_t>* touched_hint = nullptr;
  double accel_reach = 0.0;  // what an acceleration (gravity, a contact) can close in the step, |g| dt^2 (unit: m)
  BroadphaseType broadphase = BroadphaseType::Grid;  // same pairs either way (collision/README.md)
  // pairs (a < b, sorted) that never collide, or null: left out after the broadphase, before any
  // narrowphase (bodies joined by a joint: a ragdoll's limbs overlap at every joint)
  const std::vector<std::pair<int, int>>* excluded_pairs = nullptr;
  // (nb) MuJoCo's collision filter, or null (everything collides): bodies a and b may collide iff
  // (contype_a & conaffinity_b) != 0 or (contype_b & conaffinity_a) != 0
  const std::vector<std::uint32_t>* contype = nullptr;
  const std::vector<std::uint32_t>* conaffinity = nullptr;
};

// Whether bodies a and b may collide: both have a shape and the collision filter lets them.
inline bool may_collide(const DetectInput& in, int a, int b) {
  const auto i = std::size_t(a), j = std::size_t(b);
  if ((*in.body_shape)[i] < 0 || (*in.body_shape)[j] < 0) return false;
  if (!in.contype || !in.conaffinity) return true;
  return ((*in.contype)[i] & (*in.conaffinity)[j]) != 0 || ((*in.contype)[j] & (*in.conaffinity)[i]) != 0;
}

struct DetectStats {
  int pairs = 0;     // broadphase candidate pairs
  int contacts = 0;  // contact points
};

// Broadphase + narrowphase; `out` is sorted with contact_less and has body_a < body_b.
// Runs in parallel in the caller's task arena; the output does not depend on the thread count.
// `pairs`, when given, receives the broadphase's candidate pairs (a < b, sorted), and `reach`,
// when given, each pair's reach: the distance beyond in.envelope within which the pair has no
// contact but those in `out` (its narrowphase envelope less in.envelope; a pair whose boxes are
// farther apart than it is not run).
DetectStats detect_contacts(const DetectInput& in, std::vector<Contact>& out,
                            std::vector<std::pair<int, int>>* pairs = nullptr, std::vector<double>* reach = nullptr);

// How far the bodies moved since a detection, and what that detection covered: for
// detect_uncovered_pairs. A pair whose surface points moved apart or together by no more than its
// reach at the detection cannot have come within the envelope without a contact then.
struct CoveredMotion {
  const std::vector<double>* pair_reach = nullptr;  // (pairs) detect_contacts' `reach`
  const std::vector<Vec3>* shift = nullptr;         // (nb) displacement of each shape frame's origin (unit: m)
  const std::vector<double>* turn = nullptr;        // (nb) bound on a surface point's travel by rotation about it (unit: m)
};

// The narrowphase over those of `pairs` (a < b) that have no contact in `covered` (sorted with
// contact_less) and whose shapes' boxes, grown by in.envelope, overlap at in.shape_pose: their
// contacts within in.envelope (no reach) are appended to `out`, unsorted. Post-stabilisation
// runs it at q^{t+1} over the step's candidate pairs, for the pairs that came together during
// the step without a contact (a body deflected by a collision); the rest reuse their contacts
// (refresh_contacts). With `deflected` (nb flags) given, only the pairs with a deflected body
// are run: a pair whose bodies both moved as detection predicted stayed apart by more than the
// envelope, since detection found no contact within its reach. With `motion` given, a pair is run
// only if its bodies' relative motion since the detection, |shift_a - shift_b| + turn_a + turn_b,
// exceeds half its reach then (detect.cpp). Parallel; the output does not depend on the thread
// count.
void detect_uncovered_pairs(const DetectInput& in, const std::vector<std::pair<int, int>>& pairs,
                            const std::vector<Contact>& covered, std::vector<Contact>& out,
                            const std::vector<std::uint8_t>* deflected = nullptr, const CoveredMotion* motion = nullptr);

// The contacts `in`, found at the shape poses `before`, carried to the poses `after` without a
// new detection (as Bullet's btPersistentManifold::refreshContactPoints): each contact's two
// surface points, point +- depth n / 2, move with their bodies, the normal turns with body_a,
// and the depth is their separation along it. Post-stabilisation reuses the step's contacts
// this way (seed 000 s.4.4). Same order as `in`; `out` may not alias `in`.
void refresh_contacts(const std::vector<Contact>& in, const std::vector<Pose>& before, const std::vector<Pose>& after,
                      std::vector<Contact>& out);

}  // namespace coulomb
