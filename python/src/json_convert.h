// Python objects <-> nlohmann::json, for scenes given as dicts and for the stats and states the
// module returns. The conversion to JSON follows what nlohmann's parser makes of the same text
// (a non-negative integer becomes an unsigned number), so that a scene dict and the file it was
// read from give the same SceneDef, bit for bit.
#pragma once
#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace coulomb::python {

// dict (str keys), list, tuple, str, bool, int, float, None and numpy scalars and arrays.
// Throws pybind11::type_error naming the JSON pointer of a value it cannot convert, and InputError
// at the pointer of a dict or list that contains itself or lies deeper than kMaxJsonDepth.
nlohmann::json to_json(pybind11::handle obj, const std::string& pointer = "");
pybind11::object from_json(const nlohmann::json& j);

// Per-step JSON objects (stats_json) gathered into typed columns as they come, so that a run keeps
// 8 bytes per number and step instead of each step's JSON object (about 3.7 KB). `like` is a row of
// the same keys and types (the columns of zero rows); `keep` names the top-level keys to gather
// (nullopt: all). append() needs no GIL; take() moves the columns into numpy arrays, without a
// copy, as {key: numpy array}, objects nested as dicts, a list-valued key (the health check's
// findings) as a list of lists.
class Columns {
 public:
  Columns(const nlohmann::json& like, const std::optional<std::vector<std::string>>& keep);
  void append(const nlohmann::json& row);
  bool empty() const { return leaves_.empty(); }  // keeps no key
  pybind11::dict take();

 private:
  enum class Kind { Bool, Int, Float, List };
  struct Leaf {
    std::vector<std::string> path;  // keys from the row's top down
    Kind kind = Kind::Float;
    std::vector<double> f;
    std::vector<std::int64_t> i;
    std::vector<std::uint8_t> b;
    std::vector<std::pair<std::size_t, nlohmann::json>> lists;  // (row, value) of the non-empty lists only
  };
  void add_leaves(const nlohmann::json& like, std::vector<std::string>& path);
  pybind11::dict build(const nlohmann::json& like, std::size_t& leaf);

  nlohmann::json like_;  // the kept keys of `like`
  std::vector<Leaf> leaves_;  // depth first, in nlohmann's (sorted) key order
  std::size_t rows_ = 0;
};

}  // namespace coulomb::python
