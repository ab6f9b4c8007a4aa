// Robot and model import (import/README.md): URDF (urdfdom) and an MJCF subset (tinyxml2) become
// a scene document in the scene format, which the engine then loads like any scene file. JSON
// stays the one format the engine is built on: `coulomb run robot.urdf` is `coulomb import` and
// `coulomb run` of the result, so a converted scene runs bit for bit like the model.
#pragma once
#include <coulomb/scene.h>
#include <coulomb/scene_overrides.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace coulomb {

// What the model file does not say, chosen by the user (CLI options of `coulomb import` and
// `coulomb run MODEL`, Python keyword arguments). Unset options take the model's value if it
// has one (MJCF `option timestep`, `gravity`), else the documented default.
struct ImportOptions {
  // folders searched, in order, for `package://NAME/...` (as NAME/...) and for relative mesh
  // paths not found beside the model file
  std::vector<std::filesystem::path> search_path;
  bool strict = false;                // every warning is an error (ImportError)
  std::optional<double> dt;           // time step (unit: s)
  std::optional<double> duration;     // simulated time (unit: s)
  std::optional<std::string> solver;  // the scene's `solver.type`
  // a ground plane z = 0 (normal +z) is added unless this is false or the model has a plane of
  // its own; an MJCF model that reaches below z = 0 gets none either (it was built without a
  // floor), with a warning
  bool ground = true;
  // URDF: the root link is welded to the world (as MuJoCo compiles a URDF) unless this is true,
  // in which case it is a free body
  bool floating_base = false;
  // the root's placement in the world (URDF root link, MJCF worldbody children are unaffected)
  std::optional<std::array<double, 3>> base_position;
};

// Something in the model that the scene does not carry, or carries differently: the element,
// the file and the line (0 when the parser gives none).
struct ImportWarning {
  std::filesystem::path file;
  int line = 0;
  std::string element;   // e.g. "tendon", "sensor/touch", "joint 'hip' dynamics"
  std::string message;
  std::string text() const;  // "FILE:LINE: ELEMENT: MESSAGE"
};

struct ImportResult {
  nlohmann::json scene;                 // a complete scene document (format coulomb-scene/1)
  std::vector<ImportWarning> warnings;  // in file order
};

// A model that cannot be imported (or, with `strict`, one with warnings): the message names the
// file, the line where known, and the element.
struct ImportError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The model formats by file: `.urdf` is URDF; `.xml` and `.mjcf` are MJCF when the root element
// is <mujoco>, URDF when it is <robot>. Returns "" for anything else (a scene file).
std::string model_format(const std::filesystem::path& file);

ImportResult import_urdf(const std::filesystem::path& file, const ImportOptions& options = {});
ImportResult import_mjcf(const std::filesystem::path& file, const ImportOptions& options = {});
// Either of the two, by model_format; throws ImportError for a file that is neither.
ImportResult import_model(const std::filesystem::path& file, const ImportOptions& options = {});

// An imported scene read as the engine reads the scene file `coulomb import` writes: `overrides`
// (`--set`, `--solver`, `--steps`, `--dt`) applied, mesh paths against the model's folder. The
// one path from a model to a SceneDef, so that a model and its converted scene run alike.
SceneDef load_imported(nlohmann::json scene, const std::filesystem::path& model, const SceneOverrides& overrides);

// Rewrites the mesh paths of an imported scene (absolute when imported) relative to `folder`,
// where the scene file will be written.
void relativize_paths(nlohmann::json& scene, const std::filesystem::path& folder);

}  // namespace coulomb
