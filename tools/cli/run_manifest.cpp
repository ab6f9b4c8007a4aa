// run.json: see run_manifest.h.
#include "run_manifest.h"

#include <coulomb/error.h>
#include <coulomb/run_folder.h>
#include <coulomb/scene_overrides.h>

#include <ctime>

namespace coulomb::cli {

nlohmann::json args_json(const RunArgs& a) {
  return {{"scene", a.scene},           {"out", a.out},
          {"solver", a.solver},         {"set", a.set},
          {"steps", a.steps},           {"dt", a.dt},
          {"threads", a.threads},       {"no_islands", a.no_islands},
          {"broadphase", a.broadphase}, {"max_speed", a.max_speed},
          {"health", a.health},
          {"dump_fclib", a.dump_fclib}, {"dump_steps", a.dump_steps},
          {"view", a.view},             {"vtk", a.vtk},
          {"checkpoint_every", a.checkpoint_every},
          {"import", {{"search_path", a.import.search_path}, {"strict", a.import.strict},
                      {"no_ground", a.import.no_ground}, {"floating_base", a.import.floating_base},
                      {"base_position", a.import.base_position}}}};
}

RunArgs args_from_json(const nlohmann::json& j) {
  const auto get = [&](const char* key, auto& into) {
    if (!j.contains(key)) throw InputError(std::string("/args/") + key, "missing in run.json");
    try {
      j.at(key).get_to(into);
    } catch (const nlohmann::json::exception&) {
      throw InputError(std::string("/args/") + key, "has the wrong type in run.json");
    }
  };
  if (!j.is_object()) throw InputError("/args", "expected an object in run.json");
  RunArgs a;
  get("scene", a.scene);
  get("out", a.out);
  get("solver", a.solver);
  get("set", a.set);
  get("steps", a.steps);
  get("dt", a.dt);
  get("threads", a.threads);
  get("no_islands", a.no_islands);
  get("broadphase", a.broadphase);
  get("max_speed", a.max_speed);
  if (j.contains("health")) get("health", a.health);  // a run.json written before the option: its default
  get("dump_fclib", a.dump_fclib);
  get("dump_steps", a.dump_steps);
  get("view", a.view);
  get("vtk", a.vtk);
  get("checkpoint_every", a.checkpoint_every);
  // the import options of a model file (a run.json written before them: a scene file's run)
  if (j.contains("import")) {
    const nlohmann::json& i = j["import"];
    const auto get_import = [&](const char* key, auto& into) {
      try {
        i.at(key).get_to(into);
      } catch (const nlohmann::json::exception&) {
        throw InputError(std::string("/args/import/") + key, "missing or of the wrong type in run.json");
      }
    };
    get_import("search_path", a.import.search_path);
    get_import("strict", a.import.strict);
    get_import("no_ground", a.import.no_ground);
    get_import("floating_base", a.import.floating_base);
    get_import("base_position", a.import.base_position);
  }
  return a;
}

nlohmann::json read_manifest(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kManifestFile;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return nullptr;
  nlohmann::json m = read_scene_file(file);  // the scene reader's checked JSON
  if (!m.is_object() || m.value("format", "") != "coulomb-run/1")
    throw InputError("/format", file.string() + " is not a coulomb-run/1 manifest");
  return m;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void write_manifest(const std::filesystem::path& dir, nlohmann::json& manifest) {
  manifest["updated"] = utc_now();
  write_file_atomically(dir / kManifestFile, manifest.dump(2) + "\n");
}

}  // namespace coulomb::cli
