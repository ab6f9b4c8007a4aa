// The step's health check (World::check_health, engine/src/world_health.cpp): after every step
// the World checks that the state it produced is physically sound, not only finite. A solver's
// "converged" says its tolerance was met on the problem it was given; the health check says
// whether the result makes sense:
//  - energy: the total energy (kinetic + gravitational + elastic) rose, over steps without external
//    work, by more than `energy_gain` of the run's energy scale (below);
//  - inverted / collapsed: a soft body's tetrahedron has a volume ratio V/V0 <= 0, or below
//    `collapse_ratio`;
//  - rotation: a soft body of the linear model has an element turned by more than
//    `linear_rotation`: linear strain reads a finite rotation as strain (det(I + W) = 1 + |w|^2
//    grows the volume at no energy), so the model no longer describes the body;
//  - joint: a joint is torn: its anchors apart by more than `joint_tear` of the larger body's
//    bounding radius, or its axes by more than `joint_tear_angle`;
//  - below_plane / inside_shape: a moving body's centre of mass (a soft body's centroid) lies
//    behind a fixed plane, or inside a fixed box or convex body, by more than `depth` of its
//    bounding radius; the whole body is then at least that deep (the centre of mass lies in the
//    body's convex hull).
// Speeds and non-finite values are the state check's (World::check_state, --max-speed).
//
// The energy scale is the largest kinetic + elastic energy seen since the reference plus the
// work gravity does moving each body by its bounding radius, so that a resting body's noise is
// far below it and a body thrown up by a solver is far above it. External work resets the
// reference to the end of the step that did it: applied loads, actuators and joint drives, and
// moving kinematic bodies; so does World::set_state. The energy check thus covers the passive
// stretches of a run, which are most of most scenes.
#pragma once
#include <string>
#include <vector>

namespace coulomb {

enum class HealthAction {
  Off,   // no check
  Warn,  // findings are reported (StepStats::health, stderr) and the step is not converged
  Stop,  // as Warn, and the step ends the run as an invalid state (the CLI exits 3)
};

struct HealthLimits {
  HealthAction action = HealthAction::Stop;
  double energy_gain = 0.1;        // of the energy scale
  double collapse_ratio = 0.01;    // smallest tetrahedron volume ratio V/V0 that is not collapsed
  double linear_rotation = 0.3;    // largest element rotation of a linear-model soft body (unit: rad)
  double joint_tear = 1.0;         // anchors' distance, over the larger body's bounding radius
  double joint_tear_angle = 0.5;   // (unit: rad)
  double depth = 0.05;             // centre of mass inside a fixed shape, over the bounding radius
};

// One finding of a step's health check.
struct HealthFinding {
  std::string check;    // energy, inverted, collapsed, rotation, joint, below_plane, inside_shape
  std::string subject;  // the body, soft body or joint it concerns ("" for the energy)
  double value = 0.0;   // what was seen (J, V/V0, m or rad, m)
  double limit = 0.0;   // the limit it broke, in the same unit
  std::string message;  // a sentence naming the step, the subject and both numbers
};

}  // namespace coulomb
