// Checked reading of JSON input; see scene_reader.h.
#include "scene_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace coulomb::detail {
namespace {

// %g with a short exponent: 1e9, 2.5e-7
std::string format_number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  std::string s = buf;
  if (const std::size_t e = s.find('e'); e != std::string::npos) {
    std::size_t digits = e + 1;
    if (s[digits] == '+') s.erase(digits, 1);
    else if (s[digits] == '-') ++digits;
    while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
  }
  return s;
}

// a value as it appears in the input, shortened for messages
std::string short_dump(const Json& j) {
  std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (s.size() > 48) s = s.substr(0, 45) + "...";
  return s;
}

[[noreturn]] void fail(const std::string& pointer, const std::string& expected, const Json& got) {
  throw InputError(pointer, "expected " + expected + ", got " + short_dump(got));
}

// optimal string alignment distance: Levenshtein plus transposition of adjacent letters
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string describe_int(int min, int max) {
  if (min == INT_MIN && max == INT_MAX) return "an integer";
  if (max == INT_MAX) return "an integer >= " + std::to_string(min);
  if (min == INT_MIN) return "an integer <= " + std::to_string(max);
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

std::string child_pointer(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

std::string child_pointer(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

std::string closest_name(std::string_view name, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_d = std::string::npos;
  for (const std::string& k : known) {
    std::size_t d = edit_distance(name, k);
    // a small distance relative to the candidate's length, and never a full replacement
    std::size_t allowed = std::min<std::size_t>(2, std::max<std::size_t>(1, k.size() / 3));
    if (d > 0 && d <= allowed && d < k.size() && d < best_d) {
      best = k;
      best_d = d;
    }
  }
  return best;
}

std::string name_hint(std::string_view name, const std::vector<std::string>& known, std::string_view what) {
  if (known.empty()) return " (no " + std::string(what) + " defined)";
  std::string close = closest_name(name, known);
  if (!close.empty()) return " (did you mean '" + close + "'?)";
  return " (known " + std::string(what) + ": " + join(known) + ")";
}

int lookup(const std::string& name, const std::vector<std::string>& names, const std::string& pointer,
           std::string_view what, std::string_view what_plural) {
  auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return int(it - names.begin());
  throw InputError(pointer, "unknown " + std::string(what) + " '" + name + "'" + name_hint(name, names, what_plural));
}

std::string non_empty(const std::string& s, const std::string& pointer) {
  if (s.empty()) throw InputError(pointer, "expected a non-empty name");
  return s;
}

std::string show(double x, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, x);
  return buf;
}

// ---- Range ----

Range Range::capped(double cap, const char* what) const {
  Range r = *this;
  if (r.lo < -cap) r.lo = -cap, r.lo_open = false;
  if (r.hi > cap) r.hi = cap, r.hi_open = false;
  r.unit = what;
  return r;
}

bool Range::unbounded() const { return std::isinf(lo) && std::isinf(hi); }

bool Range::contains(double x) const {
  bool above = lo_open ? x > lo : x >= lo;
  bool below = hi_open ? x < hi : x <= hi;
  return above && below;
}

std::string Range::describe() const {
  if (unbounded()) return "";
  if (std::isinf(hi)) return (lo_open ? "> " : ">= ") + format_number(lo);
  if (std::isinf(lo)) return (hi_open ? "< " : "<= ") + format_number(hi);
  const std::string limit = unit ? std::string(" (") + unit + ", the scene limit)" : "";
  // a lower bound with a scene limit above it: "> 0, at most 1e9 (m, the scene limit)"
  if (unit && lo != -hi) return (lo_open ? "> " : ">= ") + format_number(lo) + ", at most " + format_number(hi) + limit;
  return std::string("in ") + (lo_open ? "(" : "[") + format_number(lo) + ", " + format_number(hi) +
         (hi_open ? ")" : "]") + limit;
}

// ---- single values ----

double as_number(const Json& j, const std::string& pointer, Range range) {
  std::string expected = range.unbounded() ? "a number" : "a number " + range.describe();
  if (!j.is_number()) fail(pointer, expected, j);
  double x = j.get<double>();
  if (!std::isfinite(x)) fail(pointer, "a finite number", j);
  if (!range.contains(x)) fail(pointer, expected, j);
  return x;
}

int as_int(const Json& j, const std::string& pointer, int min, int max) {
  if (j.is_number_unsigned()) {
    std::uint64_t u = j.get<std::uint64_t>();
    if (max >= 0 && u <= std::uint64_t(max) && std::int64_t(u) >= min) return int(u);
  } else if (j.is_number_integer()) {
    std::int64_t v = j.get<std::int64_t>();
    if (v >= min && v <= max) return int(v);
  } else if (j.is_number_float()) {
    // 500.0 is accepted as 500; 2.5 is not an integer
    double x = j.get<double>();
    if (std::isfinite(x) && std::floor(x) == x && x >= min && x <= max) return int(x);
  }
  fail(pointer, describe_int(min, max), j);
}

std::uint64_t as_uint64(const Json& j, const std::string& pointer) {
  if (!j.is_number_unsigned()) fail(pointer, "a non-negative integer", j);
  return j.get<std::uint64_t>();
}

bool as_bool(const Json& j, const std::string& pointer) {
  if (!j.is_boolean()) fail(pointer, "true or false", j);
  return j.get<bool>();
}

const std::string& as_string(const Json& j, const std::string& pointer) {
  if (!j.is_string()) fail(pointer, "a string", j);
  return j.get_ref<const std::string&>();
}

Vec3 as_vec3(const Json& j, const std::string& pointer, Range each) {
  std::string expected = "an array of 3 numbers";
  if (!each.unbounded()) expected += ", each " + each.describe();
  if (!j.is_array() || j.size() != 3) fail(pointer, expected, j);
  Vec3 v;
  for (int i = 0; i < 3; ++i) {
    const Json& x = j[std::size_t(i)];
    if (!x.is_number() || !std::isfinite(x.get<double>()) || !each.contains(x.get<double>()))
      fail(pointer, expected, j);
    v[i] = x.get<double>();
  }
  return v;
}

std::array<int, 3> as_int3(const Json& j, const std::string& pointer, int min) {
  std::string expected = "an array of 3 integers, each >= " + std::to_string(min);
  if (!j.is_array() || j.size() != 3) fail(pointer, expected, j);
  std::array<int, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    // same integers as as_int, reported for the whole array
    try {
      out[i] = as_int(j[i], pointer, min);
    } catch (const InputError&) {
      fail(pointer, expected, j);
    }
  }
  return out;
}

Quat as_unit_quat(const Json& j, const std::string& pointer) {
  const std::string expected = "an array of 4 numbers [w, x, y, z]";
  if (!j.is_array() || j.size() != 4) fail(pointer, expected, j);
  Vec4 c;
  for (int i = 0; i < 4; ++i) {
    const Json& x = j[std::size_t(i)];
    if (!x.is_number() || !std::isfinite(x.get<double>())) fail(pointer, expected, j);
    c[i] = x.get<double>();
  }
  // scale first so that huge components cannot overflow the norm
  double m = c.cwiseAbs().maxCoeff();
  if (m == 0.0) throw InputError(pointer, "a zero quaternion cannot be normalised; use [1, 0, 0, 0] for no rotation");
  c /= m;
  c.normalize();
  return Quat(c[0], c[1], c[2], c[3]);
}

Vec3 as_direction(const Json& j, const std::string& pointer, double zero) {
  const Vec3 d = as_vec3(j, pointer);
  const double m = d.cwiseAbs().maxCoeff();
  if (!(m > zero)) throw InputError(pointer, "the direction must not be zero");
  return (d / m).normalized();
}

const Json& as_array(const Json& j, const std::string& pointer) {
  if (!j.is_array()) fail(pointer, "an array", j);
  return j;
}

int as_choice(const Json& j, const std::string& pointer, std::span<const std::string_view> names) {
  std::vector<std::string> all(names.begin(), names.end());
  std::string listed;
  for (const std::string& n : all) listed += (listed.empty() ? "\"" : ", \"") + n + "\"";
  if (!j.is_string()) fail(pointer, "one of " + listed, j);
  const std::string& s = j.get_ref<const std::string&>();
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == s) return int(i);
  std::string close = closest_name(s, all);
  throw InputError(pointer, "unknown value \"" + s + "\", expected one of " + listed +
                                (close.empty() ? "" : " (did you mean \"" + close + "\"?)"));
}

// ---- ObjectReader ----

ObjectReader::ObjectReader(const Json& j, std::string pointer) : json_(j), pointer_(std::move(pointer)) {
  if (!json_.is_object()) fail(pointer_, "an object", json_);
}

const Json* ObjectReader::find(std::string_view key) {
  std::string k(key);
  if (std::find(known_.begin(), known_.end(), k) == known_.end()) known_.push_back(k);
  auto it = json_.find(k);
  return it == json_.end() ? nullptr : &*it;
}

const Json& ObjectReader::require(std::string_view key) {
  if (const Json* v = find(key)) return *v;
  // a present key that no getter wants and that is close to the missing one is a likely typo
  std::string message = "missing required key '" + std::string(key) + "'";
  for (const auto& item : json_.items()) {
    bool unknown = std::find(known_.begin(), known_.end(), item.key()) == known_.end();
    if (unknown && !closest_name(item.key(), {std::string(key)}).empty()) {
      message += " (is '" + item.key() + "' a typo?)";
      break;
    }
  }
  throw InputError(pointer_of(key), message);
}

double ObjectReader::number(std::string_view key, double fallback, Range range) {
  return optional_number(key, range).value_or(fallback);
}

double ObjectReader::required_number(std::string_view key, Range range) {
  return as_number(require(key), pointer_of(key), range);
}

std::optional<double> ObjectReader::optional_number(std::string_view key, Range range) {
  const Json* v = find(key);
  if (!v) return std::nullopt;
  return as_number(*v, pointer_of(key), range);
}

int ObjectReader::integer(std::string_view key, int fallback, int min, int max) {
  return optional_integer(key, min, max).value_or(fallback);
}

std::optional<int> ObjectReader::optional_integer(std::string_view key, int min, int max) {
  const Json* v = find(key);
  if (!v) return std::nullopt;
  return as_int(*v, pointer_of(key), min, max);
}

bool ObjectReader::boolean(std::string_view key, bool fallback) {
  const Json* v = find(key);
  return v ? as_bool(*v, pointer_of(key)) : fallback;
}

std::string ObjectReader::string(std::string_view key, const std::string& fallback) {
  const Json* v = find(key);
  return v ? as_string(*v, pointer_of(key)) : fallback;
}

std::string ObjectReader::required_string(std::string_view key) {
  return as_string(require(key), pointer_of(key));
}

Vec3 ObjectReader::vec3(std::string_view key, const Vec3& fallback, Range each) {
  const Json* v = find(key);
  return v ? as_vec3(*v, pointer_of(key), each) : fallback;
}

Vec3 ObjectReader::required_vec3(std::string_view key, Range each) {
  return as_vec3(require(key), pointer_of(key), each);
}

Quat ObjectReader::quat(std::string_view key, const Quat& fallback) {
  const Json* v = find(key);
  return v ? as_unit_quat(*v, pointer_of(key)) : fallback;
}

Vec3 ObjectReader::required_direction(std::string_view key, double zero) {
  return as_direction(require(key), pointer_of(key), zero);
}

int ObjectReader::choice(std::string_view key, std::span<const std::string_view> names, int fallback) {
  const Json* v = find(key);
  return v ? as_choice(*v, pointer_of(key), names) : fallback;
}

int ObjectReader::required_choice(std::string_view key, std::span<const std::string_view> names) {
  return as_choice(require(key), pointer_of(key), names);
}

void ObjectReader::finish() const {
  for (const auto& item : json_.items()) {
    if (std::find(known_.begin(), known_.end(), item.key()) != known_.end()) continue;
    throw InputError(pointer_of(item.key()), "unknown key '" + item.key() + "'" + name_hint(item.key(), known_, "keys"));
  }
}

// ---- JSON text ----

namespace {

// Builds the document from nlohmann's SAX events (linear time, unlike the callback parser whose
// per-event bookkeeping made 330k bodies take 25.6 s) and checks, while it reads: a key repeated
// within one object (the last one would otherwise silently win), nesting deeper than
// kMaxJsonDepth (nlohmann's recursive destructor and dump would overflow the stack: 52,000 levels
// segfaulted), and numbers beyond the double range (1e400), each at its JSON pointer.
class CheckedDomBuilder {
 public:
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit CheckedDomBuilder(Json& root) : root_(root) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(Json::number_integer_t v) { return add(v); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(v); }
  bool number_float(Json::number_float_t v, const string_t&) { return add(v); }
  bool string(string_t& v) { return add(std::move(v)); }
  bool binary(binary_t& v) { return add(Json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool key(string_t& k) {
    if (stack_.back()->contains(k)) throw InputError(child_pointer(pointer(stack_.size() - 1), k), "duplicate key '" + k + "'");
    keys_.back() = std::move(k);
    return true;
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t byte, const std::string& token, const nlohmann::detail::exception& e) {
    // 406: a number that parsed to +-inf ("1e400")
    if (e.id == 406)
      throw InputError(pointer(stack_.size()), "the number " + token + " is outside the range of a double (about 1.8e308)");
    error_byte = byte;
    error_what = e.what();
    return false;
  }

  std::size_t error_byte = 0;
  std::string error_what;

 private:
  // the pointer of the value being read inside the first `depth` open containers
  std::string pointer(std::size_t depth) const {
    std::string p;
    for (std::size_t i = 0; i < depth; ++i) {
      const Json& c = *stack_[i];
      const bool open_child = i + 1 < stack_.size();  // the child is itself an open container
      if (c.is_array()) p = child_pointer(p, open_child ? c.size() - 1 : c.size());
      else p = child_pointer(p, keys_[i]);
    }
    return p;
  }

  template <class V>
  Json* place(V&& v) {
    if (stack_.empty()) {
      root_ = Json(std::forward<V>(v));
      return &root_;
    }
    Json& top = *stack_.back();
    if (top.is_array()) {
      top.emplace_back(std::forward<V>(v));
      return &top.back();
    }
    Json& slot = top[keys_.back()];
    slot = Json(std::forward<V>(v));
    return &slot;
  }
  template <class V>
  bool add(V&& v) {
    place(std::forward<V>(v));
    return true;
  }
  bool open(Json&& container) {
    if (stack_.size() >= kMaxJsonDepth) {
      std::string where = pointer(stack_.size());
      if (where.size() > 64) where = where.substr(0, 60) + "/...";  // 256 levels of "/0" say nothing more
      throw InputError(where, "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    stack_.push_back(place(std::move(container)));
    keys_.emplace_back();
    return true;
  }
  bool close() {
    stack_.pop_back();
    keys_.pop_back();
    return true;
  }

  Json& root_;
  std::vector<Json*> stack_;       // the open containers, outermost first
  std::vector<std::string> keys_;  // per open container: the member being read (objects)
};

// line and column (1-based) of the byte at 0-based `at`
std::pair<std::size_t, std::size_t> line_column(const std::string& text, std::size_t at) {
  at = std::min(at, text.size());
  const std::size_t line = 1 + std::size_t(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
  const std::size_t line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  const std::size_t column = line_start == std::string::npos ? at + 1 : at - line_start;
  return {line, column};
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& source) {
  // nlohmann's lexer takes a NUL byte for the end of the input: what follows would be ignored
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    const auto [line, column] = line_column(text, nul);
    throw InputError("", "invalid JSON in " + source + " at line " + std::to_string(line) + ", column " +
                             std::to_string(column) + ": a NUL byte (is this a text file?)");
  }
  Json doc;
  CheckedDomBuilder builder(doc);
  if (Json::sax_parse(text, &builder)) return doc;
  // nlohmann's what() is "[json.exception.parse_error.N] parse error at line L, column C: REASON"
  std::string reason = builder.error_what;
  std::size_t at = reason.find("parse error");
  std::size_t colon = at == std::string::npos ? std::string::npos : reason.find(": ", at);
  if (colon != std::string::npos) reason = reason.substr(colon + 2);
  // the error's byte is the 1-based index of the last character read
  const auto [line, column] = line_column(text, builder.error_byte == 0 ? 0 : builder.error_byte - 1);
  throw InputError("", "invalid JSON in " + source + " at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + ": " + reason);
}

}  // namespace coulomb::detail
