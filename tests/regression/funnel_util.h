// The funnel scene's jamming outcome, shared by the reduced (regression) and full (long) tests.
#pragma once
#include <coulomb/scene.h>
#include <coulomb/world.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <string>

namespace coulomb::testing_funnel {

inline const std::string kScenes = std::string(COULOMB_SOURCE_DIR) + "/scenes";
// the funnel's spout ends at z = 0.8 - 0.2 (scenes/funnel.json, scenes/meshes/funnel.obj)
constexpr double kBelowFunnel = 0.6;

// scenes/funnel.json with every friction coefficient set to mu; `per_layer` > 0 keeps only the
// first round of layers (spheres, boxes, jacks) with that many objects each; `seed_shift` is
// added to every generator's seed (another pour of the same kind).
inline SceneDef funnel_scene(double mu, int per_layer, double duration, int seed_shift = 0) {
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(kScenes + "/funnel.json"));
  for (auto& [name, m] : doc["materials"].items()) m["friction"] = mu;
  if (per_layer > 0) {
    doc["generators"].erase(doc["generators"].begin() + 3, doc["generators"].end());
    for (auto& g : doc["generators"]) g["count"] = per_layer;
  }
  for (auto& g : doc["generators"]) g["seed"] = g["seed"].get<std::uint64_t>() + std::uint64_t(seed_shift);
  doc["time"] = {{"dt", 0.01}, {"duration", duration}};
  return parse_scene(doc, kScenes);
}

// fraction of the moving objects below the funnel
inline double fraction_below(const World& w) {
  int below = 0, moving = 0;
  for (int i = 0; i < w.body_count(); ++i) {
    const BodyState b = w.body(i);
    if (b.fixed) continue;
    ++moving;
    below += b.position.z() < kBelowFunnel;
  }
  return moving ? double(below) / moving : 0.0;
}

}  // namespace coulomb::testing_funnel
