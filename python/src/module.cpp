// The Python module `coulomb` (python/README.md): its compiled part, coulomb._coulomb, which
// coulomb/__init__.py re-exports.
#include <pybind11/pybind11.h>

#include "errors.h"
#include "scenes.h"

namespace coulomb::python {
void bind_world(pybind11::module_& m);
void bind_batch(pybind11::module_& m);
}

PYBIND11_MODULE(_coulomb, m) {
  m.doc() = "Coulomb: rigid and FEM soft bodies in frictional contact (the compiled part of `coulomb`)";
  coulomb::python::register_errors(m);
  coulomb::python::bind_scenes(m);
  coulomb::python::bind_world(m);
  coulomb::python::bind_batch(m);
}
