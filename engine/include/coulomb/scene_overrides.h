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

// Largest scene file read_scene_file reads (a guard against /dev/zero or a wrong file).
inline constexpr std::size_t kMaxSceneBytes = std::size_t(256) << 20;
// Deepest nesting of objects and arrays a scene document may have (scenes need about 6): the
// JSON reader and the Python module's dict conversion refuse deeper ones, which would overflow
// the stack of recursive walks.
inline constexpr std::size_t kMaxJsonDepth = 256;

// Reads a scene file as JSON, in linear time. Throws InputError (pointer "") for a missing file, a
// file over kMaxSceneBytes, invalid JSON or a NUL byte (with line and column); and at the value's
// pointer for a key repeated within one object, nesting deeper than kMaxJsonDepth or a number
// outside the double range (1e400).
nlohmann::json read_scene_file(const std::filesystem::path& file);
// The same checks on JSON text; `source` names it in messages.
nlohmann::json parse_scene_text(const std::string& text, const std::string& source);
// Applies the overrides to a scene document. Throws InputError naming the option.
void apply_overrides(nlohmann::json& doc, const SceneOverrides& o);
// read_scene_file + apply_overrides + parse_scene.
SceneDef load_scene(const std::filesystem::path& file, const SceneOverrides& o);

}  // namespace coulomb
