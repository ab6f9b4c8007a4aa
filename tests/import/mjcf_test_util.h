// Helpers of the MJCF import tests: small models written to a temporary folder, and lookups in
// the imported scene.
#pragma once
#include <coulomb/import.h>
#include <coulomb/math.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <string>

namespace coulomb::mjcf_test {

namespace fs = std::filesystem;
using Json = nlohmann::json;

inline constexpr double kPi = std::numbers::pi;

// A folder of model files for one test, removed with it.
class ModelFolder {
 public:
  ModelFolder() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("coulomb_mjcf_" + std::string(info->test_suite_name()) + "_" + info->name() + "_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  ~ModelFolder() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p;
  }
  const fs::path& dir() const { return dir_; }

 private:
  fs::path dir_;
};

// imports `body` (the inside of <mujoco>) as model.xml
inline ImportResult import_text(const ModelFolder& folder, const std::string& text, ImportOptions options = {}) {
  return import_mjcf(folder.write("model.xml", "<mujoco model=\"test\">\n" + text + "\n</mujoco>\n"), options);
}

inline const Json& find(const Json& array, const std::string& name) {
  for (const Json& item : array)
    if (item.value("name", "") == name) return item;
  static const Json none;
  ADD_FAILURE() << "no '" << name << "' in " << array.dump();
  return none;
}

inline Vec3 vec3(const Json& v) { return Vec3(v[0].get<double>(), v[1].get<double>(), v[2].get<double>()); }
inline Quat quat(const Json& q) { return Quat(q[0].get<double>(), q[1].get<double>(), q[2].get<double>(), q[3].get<double>()); }

// the same rotation (q and -q are one rotation)
inline bool same_rotation(const Quat& a, const Quat& b, double tol = 1e-9) { return std::abs(std::abs(a.dot(b)) - 1.0) < tol; }

inline bool has_warning(const ImportResult& r, const std::string& element, const std::string& part, int line = -1) {
  for (const ImportWarning& w : r.warnings)
    if (w.element.find(element) != std::string::npos && w.message.find(part) != std::string::npos && (line < 0 || w.line == line))
      return true;
  return false;
}

inline std::string warnings_text(const ImportResult& r) {
  std::string s;
  for (const ImportWarning& w : r.warnings) s += w.text() + "\n";
  return s;
}

}  // namespace coulomb::mjcf_test
