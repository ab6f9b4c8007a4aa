// Driving Coulomb from a program: a controller balances the cart-pole of scenes/cartpole.json
// after a shove, reading joint states and commanding the cart's motor every step (README.md).
//
//   build/bin/control_example scenes/cartpole.json
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s scenes/cartpole.json\n", argv[0]);
    return 2;
  }
  try {
    coulomb::World w(coulomb::load_scene(argv[1]));
    const int push = w.find_actuator("push"), rail = w.find_joint("rail"), hinge = w.find_joint("hinge");
    w.apply_force(w.find_body("pole"), {2, 0, 0}, coulomb::LoadDuration::NextStep);  // a shove (N, one step)
    double worst = 0.0;  // |theta| after the first second
    while (w.time() < 10.0) {
      const coulomb::JointState &x = w.joint_state(rail), &th = w.joint_state(hinge);  // m, rad (multi-turn)
      w.set_command(push, 3 * x.position + 5 * x.velocity + 60 * th.position + 15 * th.velocity);  // N
      if (const coulomb::StepResult r = w.step(); !r.ok()) {
        std::fprintf(stderr, "%s\n", r.message.c_str());
        return r.status == coulomb::StepResult::Status::InvalidState ? 3 : 1;
      }
      if (w.time() > 1.0) worst = std::max(worst, std::abs(w.joint_state(hinge).position));
    }
    const coulomb::Vec3 f = w.joint_state(hinge).force;  // what the hinge carried in the last step (N)
    std::printf("t = %.2f s: cart at %.4f m, pole %.5f rad (at most %.4f after 1 s), hinge force [%.3f %.3f %.3f] N\n",
                w.time(), w.joint_state(rail).position, w.joint_state(hinge).position, worst, f.x(), f.y(), f.z());
    return worst < 0.05 ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
}
