// The import entry points that do not depend on the format (coulomb/import.h).
#include <coulomb/import.h>

#include <tinyxml2.h>

#include <algorithm>
#include <cctype>

namespace coulomb {

namespace fs = std::filesystem;

std::string model_format(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (ext == ".urdf") return "urdf";
  if (ext != ".xml" && ext != ".mjcf") return "";
  tinyxml2::XMLDocument doc;
  if (doc.LoadFile(file.string().c_str()) != tinyxml2::XML_SUCCESS) return ext == ".mjcf" ? "mjcf" : "";
  const tinyxml2::XMLElement* root = doc.RootElement();
  if (root == nullptr) return "";
  const std::string name = root->Name();
  if (name == "mujoco") return "mjcf";
  if (name == "robot") return "urdf";
  return "";
}

ImportResult import_model(const fs::path& file, const ImportOptions& options) {
  const std::string format = model_format(file);
  if (format == "urdf") return import_urdf(file, options);
  if (format == "mjcf") return import_mjcf(file, options);
  if (!fs::exists(file)) throw ImportError(file.string() + ": file not found");
  throw ImportError(file.string() + ": not a URDF (.urdf, or <robot> in .xml) or MJCF (<mujoco> in .xml or .mjcf) model");
}

SceneDef load_imported(nlohmann::json scene, const fs::path& model, const SceneOverrides& overrides) {
  apply_overrides(scene, overrides);
  return parse_scene(scene, fs::absolute(model).parent_path());
}

void relativize_paths(nlohmann::json& scene, const fs::path& folder) {
  const fs::path base = fs::weakly_canonical(fs::absolute(folder));
  auto relative = [&](nlohmann::json& value) {
    if (!value.is_string()) return;
    const fs::path p = value.get<std::string>();
    if (p.is_absolute()) value = fs::weakly_canonical(p).lexically_relative(base).generic_string();
  };
  if (scene.contains("shapes"))
    for (auto& shape : scene["shapes"])
      if (shape.contains("file")) relative(shape["file"]);
  if (scene.contains("bodies"))
    for (auto& body : scene["bodies"])
      if (body.contains("visual"))
        for (auto& visual : body["visual"])
          if (visual.contains("mesh")) relative(visual["mesh"]);
  if (scene.contains("soft_bodies"))
    for (auto& soft : scene["soft_bodies"])
      if (soft.contains("mesh"))
        for (const char* key : {"surface", "file"})
          if (soft["mesh"].contains(key)) relative(soft["mesh"][key]);
}

}  // namespace coulomb
