// numpy <-> flat arrays for the control and batch bindings.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <coulomb/control.h>

#include <string>
#include <vector>

namespace coulomb::python {

// `a` as n rows of `width` finite doubles (row-major): an array-like of shape (n, width), or with
// `broadcast` one row (width,) for all n; width 1 also takes a scalar or shape (n,). ValueError
// naming `arg` for another shape or a NaN or infinity.
std::vector<double> rows_of(pybind11::handle a, std::size_t n, int width, const std::string& arg, bool broadcast = true);

// The contacts as a structured numpy array (ContactRecord's fields).
pybind11::array contact_array(const std::vector<ContactRecord>& records);

}  // namespace coulomb::python
