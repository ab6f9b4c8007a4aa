// coulomb.World's C++ side, shared by the files that bind its parts (world.cpp: stepping and the
// body arrays; control.cpp: loads, actuators, joint and contact sensing).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <coulomb/error.h>
#include <coulomb/world.h>

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

namespace coulomb::python {

struct PyWorld {
  std::unique_ptr<World> world;
  int failed_step = 0;  // the step that failed (0: none), for a step() called again after it
  std::atomic<bool> busy{false};

  World& get() {
    if (busy.load()) throw std::runtime_error("this World is stepping in another thread");
    return *world;
  }
};

// Marks the world busy for the scope (the GIL is released inside).
struct Busy {
  PyWorld& w;
  explicit Busy(PyWorld& pw) : w(pw) {
    if (w.busy.exchange(true)) throw std::runtime_error("this World is stepping in another thread");
  }
  ~Busy() { w.busy.store(false); }
};

// The `health` keyword (coulomb run --health): "stop", "warn" or "off"; else an InputError.
inline HealthAction health_action(const std::string& name) {
  if (name == "stop") return HealthAction::Stop;
  if (name == "warn") return HealthAction::Warn;
  if (name == "off") return HealthAction::Off;
  throw InputError("health", "must be \"stop\", \"warn\" or \"off\", got \"" + name + "\"");
}

using PyWorldClass = pybind11::class_<PyWorld>;
// control.cpp: loads, kinematic bodies, actuators, joint states, contacts
void bind_control(PyWorldClass& cls);
// batch.cpp: coulomb.Batch
void bind_batch(pybind11::module_& m);

}  // namespace coulomb::python
