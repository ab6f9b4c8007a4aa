#include "errors.h"

#include <coulomb/import.h>

namespace py = pybind11;

namespace coulomb::python {

namespace {

// the types live as long as the interpreter (the module holds a reference too)
PyObject* scene_error = nullptr;
PyObject* simulation_error = nullptr;
PyObject* model_error = nullptr;

// Sets the current Python error to an instance of `type` carrying `attrs`.
void set_error(PyObject* type, const std::string& message, const py::dict& attrs) {
  py::object instance = py::reinterpret_borrow<py::object>(type)(message);
  for (auto item : attrs) py::setattr(instance, item.first, item.second);
  PyErr_SetObject(type, instance.ptr());
}

void set_scene_error(const InputError& e) {
  py::dict attrs;
  attrs["pointer"] = e.pointer();
  attrs["message"] = e.message();
  set_error(scene_error, e.what(), attrs);
}

}  // namespace

void register_errors(py::module_& m) {
  scene_error = PyErr_NewExceptionWithDoc(
      "coulomb.SceneError",
      "A mistake in a scene or an override. .pointer is the JSON pointer of the offending value (or the "
      "option's name), .message the message without it.",
      PyExc_ValueError, nullptr);
  simulation_error = PyErr_NewExceptionWithDoc(
      "coulomb.SimulationError",
      "A step failed. .step is its number (from 1), .body the name of the body that became invalid (None if "
      "the step failed otherwise), .status 'invalid_state' or 'error', .message the engine's message, .stats "
      "the columns of the steps World.run made (None for World.step). The world steps no further until "
      "set_state() (or a write to its bodies) restores a state.",
      PyExc_RuntimeError, nullptr);
  model_error = PyErr_NewExceptionWithDoc(
      "coulomb.ModelError",
      "A URDF or MJCF model that cannot be imported (or, with strict=True, one with warnings); the message names "
      "the file, the line where known and the element.",
      PyExc_ValueError, nullptr);
  if (!scene_error || !simulation_error || !model_error) throw py::error_already_set();
  m.add_object("ModelError", py::reinterpret_borrow<py::object>(model_error));
  m.add_object("SceneError", py::reinterpret_borrow<py::object>(scene_error));
  m.add_object("SimulationError", py::reinterpret_borrow<py::object>(simulation_error));
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      set_scene_error(e);
    } catch (const ImportError& e) {
      PyErr_SetString(model_error, e.what());
    }
  });
}

void raise_simulation_error(const std::string& message, int step, py::object body, const std::string& status,
                            py::object stats) {
  py::dict attrs;
  attrs["step"] = step;
  attrs["body"] = std::move(body);
  attrs["status"] = status;
  attrs["message"] = message;
  attrs["stats"] = std::move(stats);
  set_error(simulation_error, message, attrs);
  throw py::error_already_set();
}

void raise_scene_error(const InputError& e) {
  set_scene_error(e);
  throw py::error_already_set();
}

}  // namespace coulomb::python
