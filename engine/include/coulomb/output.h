// The run output contract of SCENE_FORMAT.md: stats.jsonl (one object per step),
// frames.jsonl (body poses every `output.every` steps) and final_state.json; and, so that a
// replay (viewer/README.md) needs nothing but the output folder, geometry.json: the shapes, the
// bodies' shapes, materials and masses, the soft bodies' surface triangles, written once, and
// the initial frame (step 0, which frames.jsonl does not hold).
//
// Files are written under temporary names in DIR and renamed over the old ones by finish(),
// so a reader never sees a half-written run mixed with an older one.
#pragma once
#include <coulomb/world.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace coulomb {

nlohmann::json stats_json(const StepStats& s);
nlohmann::json final_state_json(const World& world);
// Body poses, soft vertex positions and, with `output.contacts`, the last step's contacts.
nlohmann::json frame_json(const World& world);
// {"format": "coulomb-geometry/1", "scene", "materials", "shapes", "bodies", "soft_bodies",
//  "joints", "initial"}: shapes in their own frames, indexed as the scene's shape library
// (compound children refer to them by index); bodies in frames.jsonl order; each rigid joint's
// anchor in the shape frames of its two bodies (in the world for b = -1).
nlohmann::json geometry_json(const World& world);

class RunOutput {
 public:
  // Creates `dir` if needed and writes the geometry of `world` (before its first step). Throws
  // std::runtime_error if it cannot be written.
  RunOutput(std::filesystem::path dir, const World& world);
  void write_step(const World& world);
  // Writes final_state.json and moves every file into place.
  void finish(const World& world);

 private:
  std::filesystem::path dir_;
  std::ofstream stats_, frames_;
};

}  // namespace coulomb
