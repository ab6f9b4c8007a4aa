// Scenes from Python: a file path, a dict (a scene built in Python, no file) or a coulomb.Scene,
// with the command line's overrides (SCENE_FORMAT.md: --solver, --set, --steps, --dt) applied
// through the same functions as `coulomb run`, so that the same scene and overrides give the same
// SceneDef in both.
#pragma once
#include <pybind11/pybind11.h>

#include <coulomb/scene.h>
#include <coulomb/scene_overrides.h>

#include <memory>

namespace coulomb::python {

// A validated scene (coulomb.Scene), shared read-only by the Worlds built from it.
struct PyScene {
  std::shared_ptr<const SceneDef> def;
};

// The overrides of the keyword arguments solver=, overrides=, steps=, dt=. `overrides` is a dict
// {pointer: value} (the value any JSON-able object) or a list of "POINTER=VALUE" strings.
SceneOverrides make_overrides(pybind11::handle solver, pybind11::handle overrides, pybind11::handle steps,
                              pybind11::handle dt);

// The SceneDef of `scene` (a path, a dict or a Scene) with the overrides. A dict's meshes are read
// relative to base_dir (default: the current folder). Throws InputError (SceneError in Python).
SceneDef make_scene(pybind11::handle scene, const SceneOverrides& o, pybind11::handle base_dir);

void bind_scenes(pybind11::module_& m);

}  // namespace coulomb::python
