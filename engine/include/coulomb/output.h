// The run output contract of SCENE_FORMAT.md: stats.jsonl (one object per step),
// frames.jsonl (body poses every `output.every` steps) and final_state.json.
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
nlohmann::json frame_json(const World& world);

class RunOutput {
 public:
  // Creates `dir` if needed. Throws std::runtime_error if it cannot be written.
  explicit RunOutput(std::filesystem::path dir);
  void write_step(const World& world);
  // Writes final_state.json and moves every file into place.
  void finish(const World& world);

 private:
  std::filesystem::path dir_;
  std::ofstream stats_, frames_;
};

}  // namespace coulomb
