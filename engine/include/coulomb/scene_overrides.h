// Command-line overrides of a scene (SCENE_FORMAT.md: --solver, --set, --steps, --dt), applied
// to the JSON document before validation so that every override is checked like the scene.
#pragma once
#include <coulomb/scene.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace coulomb {

struct SceneOverrides {
  std::string solver;            // replaces /solver, keeping the keys every solver shares
  std::vector<std::string> set;  // "POINTER=VALUE", applied after --solver, in order
  double dt = 0.0;               // > 0: replaces /time/dt (a duration is kept, so steps follow)
  int steps = 0;                 // > 0: replaces the duration or step count
};

// Reads a scene file as JSON. Throws InputError (pointer "") for a missing file, invalid JSON
// (with line and column) or a key repeated within one object.
nlohmann::json read_scene_file(const std::filesystem::path& file);
// Applies the overrides to a scene document. Throws InputError naming the option.
void apply_overrides(nlohmann::json& doc, const SceneOverrides& o);
// read_scene_file + apply_overrides + parse_scene.
SceneDef load_scene(const std::filesystem::path& file, const SceneOverrides& o);

}  // namespace coulomb
