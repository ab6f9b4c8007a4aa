// The four material models as GoogleTest parameters, named by their scene names.
#pragma once
#include <coulomb/materials.h>
#include <gtest/gtest.h>

#include <ostream>
#include <string>

namespace coulomb {

// readable parameter names in gtest failure messages
inline void PrintTo(MaterialModel m, std::ostream* os) { *os << material_model_name(m); }

inline auto all_material_models() {
  return ::testing::Values(MaterialModel::Linear, MaterialModel::Corotational, MaterialModel::StVK,
                           MaterialModel::NeoHookean);
}

inline std::string material_test_name(const ::testing::TestParamInfo<MaterialModel>& info) {
  std::string n = material_model_name(info.param);
  for (char& ch : n)
    if (ch == '-') ch = '_';
  return n;
}

}  // namespace coulomb
