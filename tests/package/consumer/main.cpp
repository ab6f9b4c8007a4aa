// A consumer of the installed package: runs a scene with the public API and writes its final
// state as `coulomb run` does (final_state.json), so the test can compare the two byte for byte.
#include <coulomb/build_info.h>
#include <coulomb/output.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>

#include <cstdio>
#include <fstream>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SCENE FINAL_STATE_JSON\n", argv[0]);
    return 2;
  }
  try {
    coulomb::World world(coulomb::load_scene(argv[1]));
    while (world.step_count() < world.total_steps())
      if (const coulomb::StepResult r = world.step(); !r.ok()) {
        std::fprintf(stderr, "step failed: %s\n", r.message.c_str());
        return 3;
      }
    std::ofstream(argv[2]) << coulomb::final_state_json(world).dump(2) << '\n';
    std::printf("coulomb %s: %d steps, %d bodies, t = %g s\n", coulomb::build_info().version.c_str(),
                world.step_count(), world.body_count(), world.time());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
