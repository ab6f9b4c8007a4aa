// Sleeping islands (the scene's `sleep`, off by default): an island whose bodies have all stayed
// slow for a while stops being integrated and solved until something touches it. After Box2D v3
// (island.c / solver_set.c: a per-body sleep time, an island sleeps when its slowest-to-settle
// body has rested for b2_timeToSleep = 0.5 s; a contact that begins between an awake and a
// sleeping body wakes the sleeping island) and Jolt (BodyManager / IslandBuilder: per-body
// "time before sleep" against a velocity threshold, bodies deactivated island by island with their
// velocities zeroed).
//
// These are stages over plain data; the World decides when to call them (engine/src/world.cpp):
//   detect -> wake_touched (contacts and joints that reach a sleeping body wake its island) ->
//   drop the contacts between resting bodies -> assemble/solve/integrate with sleeping bodies
//   held like fixed ones -> update_sleep (timers, islands that fall asleep).
#pragma once
#include <coulomb/islands.h>
#include <coulomb/rigid_bodies.h>

#include <cstdint>
#include <vector>

namespace coulomb {

// The scene's `sleep` settings (SCENE_FORMAT.md "Sleeping"). A body is slow while every point of
// it moves slower than `linear` (|v| + r |w| with r its bounding radius about the centre of mass:
// Box2D v3's sleep velocity, Jolt's point velocities) and it turns slower than `angular`.
struct SleepSettings {
  bool enabled = false;
  double time = 0.5;      // an island sleeps once every body has been slow this long (unit: s)
  double linear = 0.05;   // bound on the speed of the body's points (unit: m/s)
  double angular = 1.0;   // bound on |w| (unit: rad/s)
};

// What sleeping carries from step to step (a part of the World's State). Empty vectors mean
// "everybody awake, every timer 0" (sleep off, or a State from before sleeping existed).
struct SleepState {
  std::vector<double> timer;  // (nb) how long each body has been slow (unit: s)
  // (nb) -1: awake; otherwise the island the body sleeps with, named by its smallest body id
  std::vector<int> island;

  bool asleep(int body) const { return !island.empty() && island[std::size_t(body)] >= 0; }
  int sleeping_count() const;
  void resize(int nb);  // to nb bodies, all awake
};

// still[i] = 1 for bodies that do not move this step: fixed ones and sleeping ones. The
// integrators, the island builder and the assembly treat a still body as fixed.
void still_bodies(const std::vector<std::uint8_t>& fixed, const SleepState& s, std::vector<std::uint8_t>& still);

// Wakes every sleeping island that a contact (body_a[k], body_b[k]) or a joint (joint_a[j],
// joint_b[j], -1 = the world) couples, directly or through other sleeping islands, to an awake
// moving body: the connected components of contacts + joints + "sleeps with" links that hold an
// awake moving body become awake (timers 0). Returns the number of bodies woken.
int wake_touched(const std::vector<std::uint8_t>& fixed, const std::vector<int>& body_a, const std::vector<int>& body_b,
                 const std::vector<int>& joint_a, const std::vector<int>& joint_b, SleepState& s);

// Wakes the sleeping island of `body` (nothing if it is awake). Returns the number woken.
int wake_island(int body, SleepState& s);

// After a step's integration: every awake moving body's timer grows by dt while it is slow
// (|v| + radius |w| < linear and |w| < angular; radius (nb): bounding radii about the centres of
// mass) and restarts at 0 otherwise; an island of `islands` (built with the still
// bodies as fixed, so it holds awake bodies only) whose bodies' smallest timer reaches `time`
// falls asleep with its velocities zeroed, and so does an awake body without contacts or joints.
// Returns the number of bodies that fell asleep.
int update_sleep(const std::vector<std::uint8_t>& still, const std::vector<double>& radius, const Islands& islands,
                 const SleepSettings& settings, double dt, RigidState& state, SleepState& s);

}  // namespace coulomb
