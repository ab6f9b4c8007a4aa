// numpy <-> flat arrays (arrays.h).
#include "arrays.h"

#include <pybind11/eval.h>

#include <cmath>
#include <cstring>

namespace py = pybind11;

namespace coulomb::python {

namespace {

std::string shape_of(const py::array& a) {
  std::string s = "(";
  for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

}  // namespace

std::vector<double> rows_of(py::handle h, std::size_t n, int width, const std::string& arg, bool broadcast) {
  py::array_t<double, py::array::c_style | py::array::forcecast> a;
  try {
    a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  } catch (const py::error_already_set&) {
  }
  if (!a) throw py::value_error(arg + ": expected numbers (an array-like of floats)");
  const auto w = py::ssize_t(width), rows = py::ssize_t(n);
  bool ok = false;
  bool one_row = false;
  if (a.ndim() == 2 && a.shape(0) == rows && a.shape(1) == w) ok = true;
  if (width == 1 && a.ndim() == 1 && a.shape(0) == rows) ok = true;
  if (broadcast && a.ndim() == 1 && a.shape(0) == w && (!ok || rows == 1)) ok = one_row = true;
  if (broadcast && width == 1 && a.ndim() == 0) ok = one_row = true;
  if (!ok) {
    std::string want = "(" + std::to_string(n) + ", " + std::to_string(width) + ")";
    if (width == 1) want = "(" + std::to_string(n) + ",)";
    if (broadcast) want += width == 1 ? " or a scalar" : " or (" + std::to_string(width) + ",)";
    throw py::value_error(arg + ": expected shape " + want + ", got " + shape_of(a));
  }
  const double* d = a.data();
  std::vector<double> out(n * std::size_t(width));
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < width; ++k) out[i * std::size_t(width) + std::size_t(k)] = d[(one_row ? 0 : i * std::size_t(width)) + std::size_t(k)];
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out[i]))
      throw py::value_error(arg + ": row " + std::to_string(i / std::size_t(width)) + " has a NaN or infinite value");
  return out;
}

py::array contact_array(const std::vector<ContactRecord>& records) {
  static py::object* dtype = new py::object(py::module_::import("numpy").attr("dtype")(py::eval(
      "[('body_a', '<i4'), ('body_b', '<i4'), ('soft_a', '<i4'), ('soft_b', '<i4'), ('vertices_a', '<i4', (3,)), "
      "('vertices_b', '<i4', (3,)), ('point', '<f8', (3,)), ('normal', '<f8', (3,)), ('separation', '<f8'), "
      "('normal_impulse', '<f8'), ('friction_impulse', '<f8', (3,))]")));
  py::array out(py::dtype::from_args(*dtype), py::ssize_t(records.size()));
  // packed rows: 4 + 6 ints, then 3 + 3 + 1 + 1 + 3 doubles (128 bytes)
  char* p = static_cast<char*>(out.mutable_data());
  for (const ContactRecord& r : records) {
    const std::int32_t ints[10] = {r.body_a,        r.body_b,        r.soft_a,        r.soft_b,        r.vertices_a[0],
                                   r.vertices_a[1], r.vertices_a[2], r.vertices_b[0], r.vertices_b[1], r.vertices_b[2]};
    const double reals[11] = {r.point.x(),  r.point.y(),  r.point.z(),        r.normal.x(),         r.normal.y(),
                              r.normal.z(), r.separation, r.normal_impulse, r.friction_impulse.x(), r.friction_impulse.y(),
                              r.friction_impulse.z()};
    std::memcpy(p, ints, sizeof ints);
    std::memcpy(p + sizeof ints, reals, sizeof reals);
    p += sizeof ints + sizeof reals;
  }
  return out;
}

}  // namespace coulomb::python
