// The module's exceptions (python/README.md "Errors"):
//   coulomb.SceneError(ValueError)        a mistake in a scene or an override: .pointer (the JSON
//                                          pointer, or the option) and .message; str() is "POINTER: MESSAGE"
//   coulomb.ModelError(ValueError)        a URDF or MJCF model that cannot be imported (ImportError)
//   coulomb.SimulationError(RuntimeError) a failed step: .step, .body (the body's name, or None),
//                                          .status ("invalid_state" or "error"), .message, .stats
//                                          (World.run: the columns of the steps before, and of, the failure)
#pragma once
#include <pybind11/pybind11.h>

#include <coulomb/error.h>
#include <string>

namespace coulomb::python {

// Creates the exception types in `m` and translates InputError into SceneError, ImportError into
// ModelError.
void register_errors(pybind11::module_& m);

// Raises SimulationError (sets the Python error and throws pybind11::error_already_set).
[[noreturn]] void raise_simulation_error(const std::string& message, int step, pybind11::object body,
                                         const std::string& status, pybind11::object stats);

// Raises SceneError for `e`.
[[noreturn]] void raise_scene_error(const InputError& e);

}  // namespace coulomb::python
