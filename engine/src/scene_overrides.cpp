#include <coulomb/error.h>
#include <coulomb/log.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/solver.h>

#include <algorithm>


namespace coulomb {

void apply_overrides(nlohmann::json& doc, const SceneOverrides& o) {
  if (!doc.is_object()) return;  // parse_scene reports it
  if (!o.solver.empty()) {
    nlohmann::json solver = {{"type", o.solver}};
    // keep the shared keys the new solver accepts (xpbd-jacobi has no warm_start)
    const SolverInfo* info = find_solver(o.solver);
    const auto accepts = [&](const char* key) {
      return !info || std::find(info->keys.begin(), info->keys.end(), key) != info->keys.end();
    };
    if (doc.contains("solver") && doc["solver"].is_object())
      for (const char* key : {"max_iterations", "abs_tol", "rel_tol", "warm_start"})
        if (doc["solver"].contains(key) && accepts(key)) solver[key] = doc["solver"][key];
    doc["solver"] = solver;
  }
  // after --solver, so that --set can refine the chosen solver's own keys
  for (const std::string& s : o.set) apply_override(doc, s);
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
  std::error_code ec;
  std::filesystem::path folder = std::filesystem::absolute(file, ec).parent_path();
  if (ec) folder = file.parent_path();
  SceneDef scene = parse_scene(doc, folder);
  logger().debug("loaded scene '{}' from {}: {} bodies, {} soft bodies, solver {}, dt {} s, {} steps ({} overrides)",
                 scene.name, file.string(), scene.bodies.size(), scene.soft_bodies.size(), scene.solver, scene.dt,
                 scene.steps, o.set.size());
  return scene;
}

SceneDef load_scene(const std::filesystem::path& file, const std::vector<std::string>& overrides) {
  SceneOverrides o;
  o.set = overrides;
  return load_scene(file, o);
}

}  // namespace coulomb
