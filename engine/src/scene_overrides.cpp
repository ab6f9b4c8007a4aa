#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>

#include <fstream>
#include <sstream>

namespace coulomb {

nlohmann::json read_scene_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw InputError("", "cannot open scene file '" + file.string() + "'");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("", "'" + file.string() + "' is not valid JSON: " + e.what());
  }
}

void apply_overrides(nlohmann::json& doc, const SceneOverrides& o) {
  for (const std::string& s : o.set) apply_override(doc, s);
  if (!doc.is_object()) return;  // parse_scene reports it
  if (!o.solver.empty()) {
    nlohmann::json solver = {{"type", o.solver}};
    if (doc.contains("solver") && doc["solver"].is_object())
      for (const char* key : {"max_iterations", "abs_tol", "rel_tol", "warm_start"})
        if (doc["solver"].contains(key)) solver[key] = doc["solver"][key];
    doc["solver"] = solver;
  }
  if (o.dt > 0.0 || o.steps > 0) {
    if (!doc.contains("time") || !doc["time"].is_object()) doc["time"] = nlohmann::json::object();
    if (o.dt > 0.0) doc["time"]["dt"] = o.dt;
    if (o.steps > 0) {
      doc["time"].erase("duration");
      doc["time"]["steps"] = o.steps;
    }
  }
}

SceneDef load_scene(const std::filesystem::path& file, const SceneOverrides& o) {
  nlohmann::json doc = read_scene_file(file);
  apply_overrides(doc, o);
  return parse_scene(doc, file.parent_path());
}

}  // namespace coulomb
