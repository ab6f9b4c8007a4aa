// Python objects <-> nlohmann::json, for scenes given as dicts and for the stats and states the
// module returns. The conversion to JSON follows what nlohmann's parser makes of the same text
// (a non-negative integer becomes an unsigned number), so that a scene dict and the file it was
// read from give the same SceneDef, bit for bit.
#pragma once
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace coulomb::python {

// dict (str keys), list, tuple, str, bool, int, float, None and numpy scalars and arrays.
// Throws pybind11::type_error naming the JSON pointer of a value it cannot convert, and InputError
// at the pointer of a dict or list that contains itself or lies deeper than kMaxJsonDepth.
nlohmann::json to_json(pybind11::handle obj, const std::string& pointer = "");
pybind11::object from_json(const nlohmann::json& j);

// Per-step JSON objects (stats_json) as columns: {key: numpy array}, objects nested as dicts.
// `like` is a row of the same keys and types (it gives them when `rows` is empty).
pybind11::dict columns(const std::vector<nlohmann::json>& rows, const nlohmann::json& like);

}  // namespace coulomb::python
