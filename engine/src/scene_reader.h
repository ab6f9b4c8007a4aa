// Checked reading of JSON input, with the JSON pointer of every mistake (STYLE.md lesson 9, tier c).
//
// Why: the scene format promises that every mistake names the offending value and that no key is
// silently ignored. ObjectReader walks one JSON object: each getter names a key, records it as
// known, checks the value's type and range and throws InputError at the value's pointer.
// finish() then rejects every key no getter asked about, suggesting the closest known one.
// The as_* functions check single values (array elements) the same way. Internal to the engine.
#pragma once
#include <coulomb/error.h>
#include <coulomb/math.h>
#include <coulomb/scene.h>            // SceneLimits
#include <coulomb/scene_overrides.h>  // kMaxJsonDepth

#include <nlohmann/json.hpp>

#include <array>
#include <climits>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace coulomb::detail {

using Json = nlohmann::json;

// "/a" + "b~c/d" -> "/a/b~0c~1d" (RFC 6901 escaping); "/a" + 3 -> "/a/3".
std::string child_pointer(const std::string& parent, std::string_view key);
std::string child_pointer(const std::string& parent, std::size_t index);

// The name in `known` closest to `name` when they differ by a small edit distance (typos,
// swapped letters), else "".
std::string closest_name(std::string_view name, const std::vector<std::string>& known);
// " (did you mean 'x'?)" when a close name exists, else " (known WHAT: a, b, c)", or
// " (no WHAT defined)" when `known` is empty. WHAT is a plural noun such as "keys", "shapes".
std::string name_hint(std::string_view name, const std::vector<std::string>& known, std::string_view what);
// index of `name` in `names`, else an InputError at `pointer` with name_hint's hint
int lookup(const std::string& name, const std::vector<std::string>& names, const std::string& pointer,
           std::string_view what, std::string_view what_plural);
// `s`, or an InputError at `pointer` if it is empty
std::string non_empty(const std::string& s, const std::string& pointer);
// a number as people write it in messages (%g with `digits` significant digits): 0.01, 1e-06
std::string show(double x, int digits = 6);

// An interval for number checks; describe() goes into error messages ("> 0", "in [0, 1]",
// "in [-1e9, 1e9] (m, the scene limit)", "> 0, at most 1e9 (m, the scene limit)").
struct Range {
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  bool lo_open = false, hi_open = false;
  const char* unit = nullptr;  // of a range capped by a SceneLimits value, for the message

  static Range any() { return {}; }
  static Range positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
  static Range non_negative() { return {0.0, std::numeric_limits<double>::infinity(), false, false}; }
  static Range closed(double lo, double hi) { return {lo, hi, false, false}; }
  static Range open(double lo, double hi) { return {lo, hi, true, true}; }
  static Range left_open(double lo, double hi) { return {lo, hi, true, false}; }
  // [-cap, cap], cap a SceneLimits magnitude in `unit`
  static Range within(double cap, const char* unit) { return Range{-cap, cap, false, false, unit}; }
  // this range cut to [-cap, cap]
  Range capped(double cap, const char* unit) const;

  bool unbounded() const;
  bool contains(double x) const;
  std::string describe() const;
};

// The ranges of SceneLimits' quantity kinds, as the readers take them.
namespace limit {
using L = SceneLimits;
inline Range coordinate() { return Range::within(L::kLength, "m"); }                // positions, anchors, offsets
inline Range size() { return Range::positive().capped(L::kLength, "m"); }          // radii, half extents
inline Range distance() { return Range::non_negative().capped(L::kLength, "m"); }  // gaps, spacings, thickness
inline Range velocity() { return Range::within(L::kSpeed, "m/s"); }
inline Range angular_velocity() { return Range::within(L::kSpeed, "rad/s"); }
inline Range duration() { return Range::positive().capped(L::kTime, "s"); }
inline Range coefficient() { return Range::non_negative().capped(L::kCoefficient, "a coefficient"); }
}  // namespace limit

// single values: each throws InputError at `pointer` when `j` does not fit
double as_number(const Json& j, const std::string& pointer, Range range = Range::any());
int as_int(const Json& j, const std::string& pointer, int min = INT_MIN, int max = INT_MAX);
std::uint64_t as_uint64(const Json& j, const std::string& pointer);
bool as_bool(const Json& j, const std::string& pointer);
const std::string& as_string(const Json& j, const std::string& pointer);
Vec3 as_vec3(const Json& j, const std::string& pointer, Range each = Range::any());
std::array<int, 3> as_int3(const Json& j, const std::string& pointer, int min);
// [w, x, y, z], normalised; a zero quaternion is an error
Quat as_unit_quat(const Json& j, const std::string& pointer);
// a direction: 3 finite numbers, not all below `zero` in magnitude, normalised (scaled by the
// largest first, so that any finite magnitude normalises without overflow)
Vec3 as_direction(const Json& j, const std::string& pointer, double zero = 0.0);
const Json& as_array(const Json& j, const std::string& pointer);
// index of the string value in `names`
int as_choice(const Json& j, const std::string& pointer, std::span<const std::string_view> names);

class ObjectReader {
 public:
  // Throws InputError at `pointer` unless `j` is an object. `j` must outlive the reader.
  ObjectReader(const Json& j, std::string pointer);

  const std::string& pointer() const { return pointer_; }
  std::string pointer_of(std::string_view key) const { return child_pointer(pointer_, key); }

  // The value of `key` or nullptr when absent; either way the key becomes known.
  const Json* find(std::string_view key);
  // The value of `key`; throws "missing required key" when absent.
  const Json& require(std::string_view key);
  bool has(std::string_view key) { return find(key) != nullptr; }

  // typed getters: the fallback is returned when the key is absent
  double number(std::string_view key, double fallback, Range range = Range::any());
  double required_number(std::string_view key, Range range = Range::any());
  std::optional<double> optional_number(std::string_view key, Range range = Range::any());
  int integer(std::string_view key, int fallback, int min = INT_MIN, int max = INT_MAX);
  std::optional<int> optional_integer(std::string_view key, int min = INT_MIN, int max = INT_MAX);
  bool boolean(std::string_view key, bool fallback);
  std::string string(std::string_view key, const std::string& fallback);
  std::string required_string(std::string_view key);
  Vec3 vec3(std::string_view key, const Vec3& fallback, Range each = Range::any());
  Vec3 required_vec3(std::string_view key, Range each = Range::any());
  Quat quat(std::string_view key, const Quat& fallback);
  Vec3 required_direction(std::string_view key, double zero = 0.0);
  int choice(std::string_view key, std::span<const std::string_view> names, int fallback);
  int required_choice(std::string_view key, std::span<const std::string_view> names);

  // Throws at the first key (in key order) that no getter asked about.
  void finish() const;

 private:
  const Json& json_;
  std::string pointer_;
  std::vector<std::string> known_;
};

// Parses JSON text read from `source` (a file name, for messages), in linear time. Syntax errors
// and NUL bytes report line and column (empty pointer); a key repeated within one object (the last
// one would otherwise silently win), nesting deeper than kMaxJsonDepth and a number outside the
// double range (1e400) are errors at their pointer.
Json parse_json_text(const std::string& text, const std::string& source);

}  // namespace coulomb::detail
