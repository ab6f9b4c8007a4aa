// The test seams of world.h (World befriends WorldTestAccess), shared by the engine tests.
#pragma once
#include <coulomb/world.h>

namespace coulomb {

struct WorldTestAccess {
  // a function called at the start of every step, inside the arena
  static void set_stage_fault(World& w, void (*fault)(int step)) { w.stage_fault_ = fault; }
  // moves the health check's energy reference (coulomb/health.h) by dE, as a solver that added
  // -dE would
  static void shift_energy_reference(World& w, double dE) { w.energy_ref_.energy += dE; }
};

}  // namespace coulomb
