#include "json_convert.h"

#include <pybind11/numpy.h>

#include <coulomb/error.h>
#include <coulomb/scene_overrides.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

namespace py = pybind11;

namespace coulomb::python {

namespace {

// the dicts and lists that hold the value being converted, outermost first, with their pointers
using Holders = std::vector<std::pair<PyObject*, std::string>>;

// a pointer in a message: kMaxJsonDepth levels of "/x" say nothing more than their start
std::string shown_pointer(const std::string& pointer) {
  return pointer.size() > 64 ? pointer.substr(0, 60) + "/..." : pointer;
}

// Adds the dict or list `obj` to `holders` before its items are converted. A dict that contains
// itself, or one nested 200,000 levels deep, would recurse until the stack overflows: both are
// InputErrors (SceneError in Python) at the pointer, with the JSON reader's depth limit.
void enter_container(py::handle obj, const std::string& pointer, Holders& holders) {
  for (const auto& [held, where] : holders)
    if (held == obj.ptr())
      throw InputError(shown_pointer(pointer),
                       "a dict or list that contains itself: this is the one at " +
                           (where.empty() ? std::string("the top level") : shown_pointer(where)) + " again");
  if (holders.size() >= kMaxJsonDepth)
    throw InputError(shown_pointer(pointer), "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  holders.emplace_back(obj.ptr(), pointer);
}

nlohmann::json convert(py::handle obj, const std::string& pointer, Holders& holders) {
  // bool before int: Python's bool is an int
  if (obj.is_none()) return nullptr;
  if (py::isinstance<py::bool_>(obj)) return obj.cast<bool>();
  if (py::isinstance<py::int_>(obj)) {
    // the parser's types: unsigned for >= 0, signed below (json.hpp number_unsigned_t)
    const auto i = obj.cast<py::int_>();
    if (i >= py::int_(0)) {
      if (i > py::int_(std::numeric_limits<std::uint64_t>::max()))
        throw py::type_error(pointer + ": integer too large for JSON");
      return i.cast<std::uint64_t>();
    }
    if (i < py::int_(std::numeric_limits<std::int64_t>::min()))
      throw py::type_error(pointer + ": integer too small for JSON");
    return i.cast<std::int64_t>();
  }
  if (py::isinstance<py::float_>(obj)) return obj.cast<double>();
  if (py::isinstance<py::str>(obj)) return obj.cast<std::string>();
  if (py::isinstance<py::dict>(obj)) {
    enter_container(obj, pointer, holders);
    nlohmann::json out = nlohmann::json::object();
    for (auto item : obj.cast<py::dict>()) {
      if (!py::isinstance<py::str>(item.first))
        throw py::type_error(pointer + ": dict keys must be strings, got " +
                             py::repr(item.first).cast<std::string>());
      const auto key = item.first.cast<std::string>();
      // RFC 6901 escapes: ~ is ~0, / is ~1
      std::string escaped;
      for (char c : key) escaped += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
      out[key] = convert(item.second, pointer + "/" + escaped, holders);
    }
    holders.pop_back();
    return out;
  }
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    enter_container(obj, pointer, holders);
    nlohmann::json out = nlohmann::json::array();
    std::size_t k = 0;
    for (auto item : obj) out.push_back(convert(item, pointer + "/" + std::to_string(k++), holders));
    holders.pop_back();
    return out;
  }
  // numpy arrays and scalars: through their Python values (float64 -> float, int64 -> int, ...)
  if (py::hasattr(obj, "tolist") && py::hasattr(obj, "dtype")) return convert(obj.attr("tolist")(), pointer, holders);
  throw py::type_error((pointer.empty() ? std::string("scene") : pointer) + ": cannot be written as JSON (" +
                       py::str(py::type::of(obj).attr("__name__")).cast<std::string>() + ")");
}

}  // namespace

nlohmann::json to_json(py::handle obj, const std::string& pointer) {
  Holders holders;
  return convert(obj, pointer, holders);
}

py::object from_json(const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::string: return py::str(j.get_ref<const std::string&>());
    case nlohmann::json::value_t::array: {
      py::list out;
      for (const auto& v : j) out.append(from_json(v));
      return out;
    }
    case nlohmann::json::value_t::object: {
      py::dict out;
      for (const auto& [k, v] : j.items()) out[py::str(k)] = from_json(v);
      return out;
    }
    default: return py::none();  // binary and discarded values never occur here
  }
}

Columns::Columns(const nlohmann::json& like, const std::optional<std::vector<std::string>>& keep) {
  like_ = nlohmann::json::object();
  for (const auto& [k, v] : like.items())
    if (!keep || std::find(keep->begin(), keep->end(), k) != keep->end()) like_[k] = v;
  std::vector<std::string> path;
  add_leaves(like_, path);
}

void Columns::add_leaves(const nlohmann::json& like, std::vector<std::string>& path) {
  for (const auto& [k, v] : like.items()) {
    path.push_back(k);
    if (v.is_object()) {
      add_leaves(v, path);
    } else {
      Leaf leaf;
      leaf.path = path;
      leaf.kind = v.is_array() ? Kind::List : v.is_boolean() ? Kind::Bool : v.is_number_integer() ? Kind::Int : Kind::Float;
      leaves_.push_back(std::move(leaf));
    }
    path.pop_back();
  }
}

void Columns::append(const nlohmann::json& row) {
  for (Leaf& leaf : leaves_) {
    const nlohmann::json* v = &row;
    for (const std::string& k : leaf.path) v = &v->at(k);
    switch (leaf.kind) {
      case Kind::Bool: leaf.b.push_back(v->get<bool>() ? 1 : 0); break;
      case Kind::Int: leaf.i.push_back(v->get<std::int64_t>()); break;
      case Kind::Float: leaf.f.push_back(v->get<double>()); break;
      case Kind::List:
        if (!v->empty()) leaf.lists.emplace_back(rows_, *v);
        break;
    }
  }
  ++rows_;
}

namespace {

// a numpy array over the vector's own buffer, which the array then owns
template <class T>
py::array own(std::vector<T>&& v, const py::dtype& dtype) {
  auto* owned = new std::vector<T>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array(dtype, {py::ssize_t(owned->size())}, {py::ssize_t(sizeof(T))}, owned->data(), owner);
}

}  // namespace

py::dict Columns::build(const nlohmann::json& like, std::size_t& next) {
  py::dict out;
  for (const auto& [k, v] : like.items()) {
    if (v.is_object()) {
      out[py::str(k)] = build(v, next);
      continue;
    }
    Leaf& leaf = leaves_[next++];
    switch (leaf.kind) {
      case Kind::Bool: out[py::str(k)] = own(std::move(leaf.b), py::dtype::of<bool>()); break;  // bytes 0 and 1
      case Kind::Int: out[py::str(k)] = own(std::move(leaf.i), py::dtype::of<std::int64_t>()); break;
      case Kind::Float: out[py::str(k)] = own(std::move(leaf.f), py::dtype::of<double>()); break;
      case Kind::List: {
        py::list l;
        std::size_t at = 0;
        for (std::size_t r = 0; r < rows_; ++r)
          l.append(at < leaf.lists.size() && leaf.lists[at].first == r ? from_json(leaf.lists[at++].second) : py::list());
        leaf.lists.clear();
        out[py::str(k)] = l;
        break;
      }
    }
  }
  return out;
}

py::dict Columns::take() {
  std::size_t next = 0;
  py::dict out = build(like_, next);
  rows_ = 0;
  return out;
}

}  // namespace coulomb::python
