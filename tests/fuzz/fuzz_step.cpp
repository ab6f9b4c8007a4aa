// libFuzzer: steps of small generated scenes. The input's bytes choose 1-4 bodies (sphere, box,
// capsule, cylinder, convex hull) over a plane or a box ground, their sizes, poses and
// velocities, the solver and dt; the scene goes through the same loader as a file, then the
// World takes up to 3 steps. Oracle: no crash or sanitizer report, no step over 1 s
// (libFuzzer's -timeout), and either an InputError, a failed StepResult with a message, or a
// state whose every number is finite.
#include <coulomb/error.h>
#include <coulomb/scene.h>
#include <coulomb/world.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

double pick(FuzzedDataProvider& in, double lo, double hi) { return in.ConsumeFloatingPointInRange(lo, hi); }

json vec(FuzzedDataProvider& in, double lo, double hi) { return {pick(in, lo, hi), pick(in, lo, hi), pick(in, lo, hi)}; }

// sizes over four decades: the 1 mm .. 10 m range the engine promises (issue 11)
double size(FuzzedDataProvider& in) { return std::pow(10.0, pick(in, -3.0, 1.0)); }

json shape(FuzzedDataProvider& in) {
  const double s = size(in);
  switch (in.ConsumeIntegralInRange(0, 4)) {
    case 0: return {{"type", "sphere"}, {"radius", s}};
    case 1: return {{"type", "box"}, {"half_extents", {s, s * pick(in, 0.01, 1.0), s * pick(in, 0.01, 1.0)}}};
    case 2: return {{"type", "capsule"}, {"radius", s * pick(in, 0.01, 1.0)}, {"half_height", s}};
    case 3: return {{"type", "cylinder"}, {"radius", s * pick(in, 0.01, 1.0)}, {"half_height", s}};
    default: {
      json pts = json::array();
      const int n = in.ConsumeIntegralInRange(4, 10);
      for (int i = 0; i < n; ++i) pts.push_back(vec(in, -s, s));
      return {{"type", "convex"}, {"vertices", pts}};
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size_bytes) {
  using namespace coulomb;
  FuzzedDataProvider in(data, size_bytes);
  static const char* const kSolvers[] = {"prox-gs", "prox-jacobi", "pgs", "xpbd-jacobi", "newton-pcr"};
  json shapes = json::object();
  shapes["ground"] = in.ConsumeBool() ? json{{"type", "plane"}, {"normal", {0, 0, 1}}, {"offset", 0}}
                                      : json{{"type", "box"}, {"half_extents", {5, 5, 0.5}}};
  json bodies = json::array({{{"name", "ground"}, {"shape", "ground"}, {"fixed", true}}});
  const int n = in.ConsumeIntegralInRange(1, 4);
  for (int i = 0; i < n; ++i) {
    const std::string name = "s" + std::to_string(i);
    shapes[name] = shape(in);
    bodies.push_back({{"name", "b" + std::to_string(i)},
                      {"shape", name},
                      {"position", vec(in, -1.0, 1.0)},
                      {"orientation", {pick(in, -1, 1), pick(in, -1, 1), pick(in, -1, 1), pick(in, -1, 1)}},
                      {"velocity", vec(in, -20.0, 20.0)},
                      {"angular_velocity", vec(in, -20.0, 20.0)}});
  }
  const json scene = {{"format", "coulomb-scene/1"},
                      {"gravity", {0, 0, -9.81}},
                      {"time", {{"dt", std::pow(10.0, pick(in, -4.0, -1.5))}, {"steps", 3}}},
                      {"solver", {{"type", kSolvers[in.ConsumeIntegralInRange(0, 4)]}, {"max_iterations", 50}}},
                      {"materials", {{"default", {{"density", pick(in, 1.0, 1e4)}, {"friction", pick(in, 0.0, 1.0)}}}}},
                      {"shapes", shapes},
                      {"bodies", bodies}};
  try {
    World world(parse_scene(scene, "."));
    for (int s = 0; s < 3; ++s) {
      const StepResult r = world.step();
      if (!r.ok()) {
        if (r.message.empty()) std::abort();  // a failure must say what failed
        return 0;
      }
    }
    for (int i = 0; i < world.body_count(); ++i) {
      const BodyState b = world.body(i);
      if (!b.position.allFinite() || !b.orientation.coeffs().allFinite() || !b.velocity.allFinite() ||
          !b.angular_velocity.allFinite())
        std::abort();
    }
  } catch (const InputError&) {
  }
  return 0;
}
