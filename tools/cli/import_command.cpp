// `coulomb import MODEL --out SCENE.json`, and the loading of a scene or a model file that
// `coulomb run` and `coulomb validate` share (import/README.md).
#include <coulomb/import.h>
#include <coulomb/run_folder.h>
#include <coulomb/scene_overrides.h>
#include <coulomb/world.h>

#include <cstdio>
#include <iostream>

#include "commands.h"

namespace coulomb::cli {

ImportOptions import_options(const ImportArgs& a) {
  ImportOptions o;
  for (const std::string& p : a.search_path) o.search_path.emplace_back(p);
  o.strict = a.strict;
  o.ground = !a.no_ground;
  o.floating_base = a.floating_base;
  if (a.base_position.size() == 3) o.base_position = {a.base_position[0], a.base_position[1], a.base_position[2]};
  return o;
}

namespace {

void print_warnings(const ImportResult& r) {
  for (const ImportWarning& w : r.warnings) std::cerr << w.text() << "\n";
}

}  // namespace

SceneDef load_input(const RunArgs& a, bool quiet) {
  SceneOverrides overrides;
  overrides.set = a.set;
  overrides.solver = a.solver;
  overrides.dt = a.dt;
  overrides.steps = a.steps;
  if (model_format(a.scene).empty()) return load_scene(a.scene, overrides);
  // a model: imported in memory, then read like the scene `coulomb import` writes
  ImportResult imported = import_model(a.scene, import_options(a.import));
  if (!quiet) print_warnings(imported);
  return load_imported(std::move(imported.scene), a.scene, overrides);
}

int import_command(const ImportCommandArgs& a) {
  return guarded([&] {
    ImportOptions options = import_options(a.import);
    if (a.dt > 0.0) options.dt = a.dt;
    if (a.duration > 0.0) options.duration = a.duration;
    if (!a.solver.empty()) options.solver = a.solver;
    ImportResult imported = import_model(a.model, options);
    print_warnings(imported);
    const std::filesystem::path out = a.out;
    std::filesystem::path folder = std::filesystem::absolute(out).parent_path();
    std::error_code ec;
    std::filesystem::create_directories(folder, ec);
    if (ec) throw OutputError("cannot create folder " + folder.string() + ": " + ec.message());
    relativize_paths(imported.scene, folder);
    write_file_atomically(out, imported.scene.dump(2) + "\n");
    // the scene must load as written (`coulomb validate`): it is kept for editing when it does not
    try {
      World world(load_scene(out, SceneOverrides{}));
    } catch (const InputError& e) {
      throw InputError(e.pointer(), e.message() + " (in " + out.string() + ", written from " + a.model +
                                        " but refused by the scene loader)");
    }
    if (!a.quiet) {
      const auto count = [&](const char* key) { return imported.scene.contains(key) ? imported.scene[key].size() : 0; };
      std::printf("%s: %zu bodies, %zu joints, %zu actuators, %zu warnings -> %s\n", a.model.c_str(), count("bodies"),
                  count("joints"), count("actuators"), imported.warnings.size(), out.string().c_str());
    }
    return 0;
  });
}

}  // namespace coulomb::cli
