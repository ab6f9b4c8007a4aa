// Embedding Coulomb in a program: load a scene, step it, read body states and per-step stats.
//
//   build/bin/embed_example scenes/sliding_box.json
#include <coulomb/scene.h>
#include <coulomb/world.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SCENE\n", argv[0]);
    return 2;
  }
  try {
    coulomb::World world(coulomb::load_scene(argv[1]));
    double max_contacts = 0;
    while (world.step_count() < world.total_steps()) {
      const coulomb::StepResult r = world.step();
      if (!r.ok()) {  // step() never throws: a failure comes back as a status
        const bool invalid = r.status == coulomb::StepResult::Status::InvalidState;
        std::fprintf(stderr, "%s: %s\n", invalid ? "simulation became invalid" : "step failed", r.message.c_str());
        return invalid ? 3 : 1;
      }
      const coulomb::StepStats& s = world.last_stats();
      max_contacts = std::max(max_contacts, double(s.contacts));
    }
    std::printf("%d steps, t = %.3f s, at most %.0f contacts in a step\n", world.step_count(), world.time(), max_contacts);
    for (int i = 0; i < world.body_count(); ++i) {
      const coulomb::BodyState b = world.body(i);
      if (b.fixed) continue;
      std::printf("%-12s position (%.4f, %.4f, %.4f)  speed %.4f m/s\n", b.name.c_str(), b.position.x(),
                  b.position.y(), b.position.z(), b.velocity.norm());
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  }
}
