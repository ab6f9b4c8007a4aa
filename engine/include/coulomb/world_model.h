// What the World builds from a scene once (build_world_model) and what one step works on
// (StepBuffers). The model is read during a step but for the joints' drive targets, which the
// control sets from the actuators' commands at each step's detection configuration.
#pragma once
#include <coulomb/candidate_contacts.h>
#include <coulomb/contact.h>
#include <coulomb/contact_assembly.h>
#include <coulomb/contact_problem.h>
#include <coulomb/island_solve.h>
#include <coulomb/islands.h>
#include <coulomb/position_assembly.h>
#include <coulomb/position_problem.h>
#include <coulomb/rigid_bodies.h>
#include <coulomb/scene.h>
#include <coulomb/soft_contacts.h>
#include <coulomb/state.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace coulomb {

struct WorldModel {
  RigidModel rigid;
  std::vector<int> scene_order, scene_index;    // (nb) scene index -> id, id -> scene index
  std::vector<double> bound_radius;             // (nb) bounding sphere about the com (unit: m)
  std::vector<double> shape_radius;             // (nb) bounding sphere about the shape frame's origin (unit: m)
  std::vector<ContactCoefficients> pair_coeffs; // (nm x nm) material pair table
  // (a < b) pairs that do not collide, sorted: bodies joined by a joint, and collision.exclude
  std::vector<std::pair<int, int>> jointed_pairs;
  std::vector<std::uint32_t> contype, conaffinity;  // (nb) the collision filter (BodyDef)
  bool filtered = false;  // some body has no shape or a filter other than 1, 1
  std::vector<JointConstraint> joints;          // (nj) rigid joints, bound at the load pose
  std::vector<VertexAttachment> attachments;    // soft vertices glued to bodies or the world
  // the lightest moving body's weight over one step (unit: N s; 0 without gravity): the scale of
  // the solvers' absolute tolerance
  double impulse_scale = 0.0;
};

// The model of a validated scene: renumbers the scene's bodies (spatial_body_order when
// `spatial_numbering`, else the scene's order) and builds the rigid bodies at their start poses
// into `state`, the soft bodies into `soft` (each takes its mesh out of the scene), the bounding
// radii, the material pair table and the collision filter. Throws InputError naming the scene's
// pointer where a body cannot be simulated. Joints and attachments come later (bind_constraints),
// once overlaps at load are settled.
void build_world_model(SceneDef& scene, bool spatial_numbering, WorldModel& model, RigidState& state,
                       std::vector<SoftBody>& soft);
// The joints' anchors and axes, and the attachments' anchors, from the world at the current
// poses into each body's frame, so that every joint holds at these poses.
void bind_constraints(const SceneDef& scene, const RigidState& state, const std::vector<SoftBody>& soft,
                      WorldModel& model);

// The warm-start caches (State::contact_cache, joint_cache, row_cache).
struct ImpulseCache {
  std::vector<CachedContactImpulse> contacts;  // last step's contacts (body a frame point) and world impulses
  std::vector<double> joints;                  // last step's joint row impulses
  std::vector<double> rows;                    // last step's position-level row impulses
};

// Per-step arrays, kept between steps to reuse their allocations; the last step's contacts,
// problem and solution stay readable through the World's accessors.
struct StepBuffers {
  // detection
  std::vector<Contact> contacts;
  std::vector<ContactCoefficients> coeffs;       // (contacts) the material pair's coefficients
  std::vector<Pose> poses;                       // (nb) shape poses at the detection
  std::vector<std::pair<int, int>> pairs;        // the broadphase pairs (post-stabilisation)
  std::vector<double> pair_reach;                // and each one's reach at the detection
  std::vector<double> reach;                     // (nb) detection reach (DetectInput::reach)
  std::vector<Vec3> travel;                      // (nb) v dt (DetectInput::travel)
  std::vector<double> turn;                      // (nb) |w| r dt (DetectInput::turn)
  std::vector<std::uint8_t> touched_hint;        // (nb) DetectInput::touched_hint
  std::vector<std::uint8_t> still;               // (nb) fixed or sleeping, this step
  // the velocity problem
  std::vector<Vec6> u_free, dw;                  // (nb) free velocities; velocity or position changes
  std::vector<Vec6> load;                        // (nb) applied wrenches: loads + effort actuators
  std::vector<std::vector<Vec3>> vertex_load;    // (ns)(nv or empty) vertex forces
  ContactProblem problem;
  ContactSolution solution;
  Islands islands;
  IslandScratch island_scratch;                  // solve_islands' kept sub-problems
  std::vector<Vec3> contact_local;               // (contacts) points in body a's frame (warm start)
  // post-stabilisation
  std::vector<Pose> end_poses;                   // (nb) shape poses at the end of the step
  std::vector<Vec3> shift;                       // (nb) each shape's move since the detection
  std::vector<double> turned;                    // (nb) and a bound on its points' travel by rotation
  std::vector<Contact> gap_contacts;
  NormalProblem gap_problem;
  std::vector<double> gap_lambda;
  Islands gap_islands;
  // rigid CCD: body poses before the position update being swept
  std::vector<Pose> ccd_before;
  // the position-level problem
  std::vector<SoftContact> soft_contacts;
  SoftDetectCache soft_detect;                   // soft bodies' trees, refit between steps
  std::vector<double> contact_mu, soft_contact_mu;
  PositionProblem pproblem;
  CandidateContacts candidates;                  // seed 004's lists (cr-mlcp)
};

}  // namespace coulomb
