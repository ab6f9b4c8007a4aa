// MJCF files, includes, compiler settings, default classes, assets and frames (mjcf.h).
#include "mjcf.h"

#include <algorithm>
#include <cmath>

namespace coulomb::import_detail::mjcf {

namespace {

// The attributes the importer reads, per element kind; `visual` ones are dropped without a word
// (they only change how a model looks). Any other attribute is reported by Unsupported.
struct AttributeTable {
  std::set<std::string> used, visual;
};

const std::map<std::string, AttributeTable>& tables() {
  static const std::set<std::string> frame = {"pos", "quat", "axisangle", "euler", "xyaxes", "zaxis"};
  auto with_frame = [&](std::set<std::string> s) {
    s.insert(frame.begin(), frame.end());
    return s;
  };
  static const std::map<std::string, AttributeTable> t = {
      {"body", {with_frame({"name", "childclass", "mocap"}), {"user"}}},
      {"frame", {with_frame({"name", "childclass"}), {}}},
      {"replicate", {{"count", "offset", "euler", "sep"}, {}}},
      {"attach", {{"model", "body", "prefix"}, {}}},
      {"geom", {with_frame({"name", "class", "type", "size", "fromto", "density", "mass", "friction", "contype",
                            "conaffinity", "condim", "mesh", "group"}),
                {"rgba", "material", "user"}}},
      {"joint", {{"name", "class", "type", "pos", "axis", "range", "limited", "ref", "damping", "armature",
                  "frictionloss", "stiffness", "springref", "group"},
                 {"user"}}},
      {"freejoint", {{"name", "group"}, {}}},
      {"inertial", {with_frame({"mass", "diaginertia", "fullinertia"}), {}}},
      {"actuator", {{"name", "class", "joint", "jointinparent", "gear", "ctrlrange", "ctrllimited", "forcerange",
                     "forcelimited", "kp", "kv", "gaintype", "biastype", "gainprm", "biasprm", "dyntype", "group",
                     "tendon", "site", "body", "cranksite", "slidersite", "refsite"},
                    {"user"}}},
      {"mesh", {{"name", "class", "file", "scale", "vertex", "content_type"}, {"texcoord", "normal"}}},
      {"connect", {{"name", "class", "body1", "body2", "anchor", "active", "site1", "site2"}, {}}},
      {"weld", {{"name", "class", "body1", "body2", "relpose", "anchor", "active", "site1", "site2"}, {}}},
      {"exclude", {{"name", "body1", "body2"}, {}}},
  };
  return t;
}

}  // namespace

std::string label(const XMLElement* e) {
  std::string s = e->Name();
  if (const char* name = e->Attribute("name")) s += std::string(" '") + name + "'";
  return s;
}

std::string default_kind(const std::string& tag) {
  static const std::set<std::string> actuators = {"general", "motor",  "position", "velocity", "intvelocity",
                                                  "damper",  "cylinder", "muscle", "adhesion", "dcmotor"};
  return actuators.count(tag) ? "actuator" : tag;
}

std::vector<double> numbers_of(Documents& docs, const XMLElement* e, const char* name, const char* text) {
  try {
    return parse_numbers(text);
  } catch (const std::invalid_argument& error) {
    docs.fail(e, std::string("attribute '") + name + "': " + error.what());
  }
}

// ---------------------------------------------------------------------------------------------
// Documents

const XMLElement* Documents::load(const fs::path& file, const XMLElement* from) {
  std::error_code ec;
  fs::path key = fs::weakly_canonical(fs::absolute(file), ec);
  if (ec) key = fs::absolute(file);
  if (auto it = roots_.find(key); it != roots_.end()) return it->second;
  auto fail = [&](const std::string& message, int line) -> const XMLElement* {
    if (from != nullptr) this->fail(from, message);
    diag_.fail(file, line, "mujoco", message);
  };
  if (!fs::is_regular_file(key)) return fail("file not found: '" + file.string() + "'", 0);
  auto doc = std::make_unique<tinyxml2::XMLDocument>();
  if (doc->LoadFile(key.string().c_str()) != tinyxml2::XML_SUCCESS) {
    const std::string why = doc->ErrorStr() ? doc->ErrorStr() : "unreadable";
    if (from != nullptr) this->fail(from, "'" + file.string() + "' is not well-formed XML: " + why);
    diag_.fail(key, doc->ErrorLineNum(), "xml", why);
  }
  const XMLElement* root = doc->RootElement();
  if (root == nullptr || std::string(root->Name()) != "mujoco")
    return fail("'" + file.string() + "' is not an MJCF file (its root element is not <mujoco>)", root ? root->GetLineNum() : 0);
  if (files_.empty()) main_dir_ = key.parent_path();
  files_[doc.get()] = key;
  docs_.push_back(std::move(doc));
  roots_[key] = root;
  return root;
}

std::vector<const XMLElement*> Documents::children(const XMLElement* e) {
  std::vector<const XMLElement*> out;
  expand(e, out);
  return out;
}

void Documents::expand(const XMLElement* e, std::vector<const XMLElement*>& out) {
  for (const XMLElement* c = e->FirstChildElement(); c != nullptr; c = c->NextSiblingElement()) {
    if (std::string(c->Name()) != "include") {
      out.push_back(c);
      continue;
    }
    const char* name = c->Attribute("file");
    if (name == nullptr) fail(c, "attribute 'file' is required");
    // relative to the including file, else to the model's own folder (MuJoCo's rule)
    fs::path path = file_of(c).parent_path() / name;
    if (!fs::exists(path)) path = main_dir_ / name;
    const XMLElement* root = load(path, c);
    const fs::path& key = file_of(root);
    if (std::find(including_.begin(), including_.end(), key) != including_.end() || key == file_of(c))
      fail(c, "'" + std::string(name) + "' includes itself");
    including_.push_back(key);
    expand(root, out);
    including_.pop_back();
  }
}

const fs::path& Documents::file_of(const XMLElement* e) const { return files_.at(e->GetDocument()); }

void Documents::fail(const XMLElement* e, const std::string& message) const {
  diag_.fail(file_of(e), e->GetLineNum(), label(e), message);
}

void Documents::warn(const XMLElement* e, const std::string& message) {
  diag_.warn(file_of(e), e->GetLineNum(), label(e), message);
}

// ---------------------------------------------------------------------------------------------
// Unsupported

void Unsupported::check(const XMLElement* e, const std::string& kind) {
  const auto& all = tables();
  auto table = all.find(kind);
  if (table == all.end()) return;
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr; a = a->Next()) {
    const std::string name = a->Name();
    if (table->second.used.count(name) || table->second.visual.count(name)) continue;
    note(e, kind + "/" + name,
         std::string("attribute '") + name + "' of " + (kind == "actuator" ? std::string("actuators") : kind + " elements") +
             " is not imported (the scene has no counterpart)");
  }
}

void Unsupported::note(const XMLElement* e, const std::string& key, const std::string& message) {
  auto [it, added] = entries_.try_emplace(key, Entry{e, message, 0});
  if (added) order_.push_back(key);
  ++it->second.count;
}

void Unsupported::report() {
  for (const std::string& key : order_) {
    const Entry& entry = entries_.at(key);
    std::string message = entry.message;
    if (entry.count > 1) message += " (here and in " + std::to_string(entry.count - 1) + " more)";
    docs_.diag().warn(docs_.file_of(entry.first), entry.first->GetLineNum(), entry.first->Name(), message);
  }
  order_.clear();
  entries_.clear();
}

// ---------------------------------------------------------------------------------------------
// Model

Model::Model(Documents& d, Unsupported& unsupported, const fs::path& f, const XMLElement* from)
    : docs(d), unsupported_(unsupported) {
  root = docs.load(f, from);
  file = docs.file_of(root);
  dir = file.parent_path();
  compiler.meshdir = dir;
  classes_.push_back({"main", {}});
  class_index_["main"] = 0;
  const auto sections = docs.children(root);
  // the compiler first: it decides how everything else reads (angles, folders)
  for (const XMLElement* s : sections)
    if (std::string(s->Name()) == "compiler") read_compiler(s);
  for (const XMLElement* s : sections) {
    const std::string tag = s->Name();
    if (tag == "default") read_defaults(s, -1);
  }
  for (const XMLElement* s : sections)
    if (std::string(s->Name()) == "asset") read_assets(s);
}

std::vector<const XMLElement*> Model::sections(const char* tag) const {
  std::vector<const XMLElement*> out;
  for (const XMLElement* s : docs.children(root))
    if (std::string(s->Name()) == tag) out.push_back(s);
  return out;
}

void Model::read_compiler(const XMLElement* e) {
  for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a != nullptr; a = a->Next()) {
    const std::string name = a->Name(), value = a->Value();
    auto boolean = [&]() {
      if (value == "true") return true;
      if (value == "false") return false;
      docs.fail(e, "attribute '" + name + "': expected true or false, not '" + value + "'");
    };
    if (name == "angle") {
      if (value != "degree" && value != "radian") docs.fail(e, "attribute 'angle': expected degree or radian, not '" + value + "'");
      compiler.degree = value == "degree";
    } else if (name == "eulerseq") {
      if (value.size() != 3 || value.find_first_not_of("xyzXYZ") != std::string::npos)
        docs.fail(e, "attribute 'eulerseq': expected three of x, y, z, X, Y, Z, not '" + value + "'");
      compiler.eulerseq = value;
    } else if (name == "meshdir") {
      compiler.meshdir = dir / value;
    } else if (name == "assetdir") {
      if (e->Attribute("meshdir") == nullptr) compiler.meshdir = dir / value;
    } else if (name == "autolimits") {
      compiler.autolimits = boolean();
    } else if (name == "inertiafromgeom") {
      if (value == "auto") compiler.inertiafromgeom = Compiler::kAuto;
      else compiler.inertiafromgeom = boolean() ? Compiler::kTrue : Compiler::kFalse;
    } else if (name == "coordinate") {
      if (value == "global") compiler.global = true;
      else if (value != "local") docs.fail(e, "attribute 'coordinate': expected local or global, not '" + value + "'");
    } else if (name == "balanceinertia") {
      compiler.balanceinertia = boolean();
    } else if (name == "boundmass" || name == "boundinertia" || name == "settotalmass") {
      const auto v = numbers_of(docs, e, name.c_str(), value.c_str());
      if (v.size() != 1) docs.fail(e, "attribute '" + name + "': expected one number");
      (name == "boundmass" ? compiler.boundmass : name == "boundinertia" ? compiler.boundinertia : compiler.settotalmass) = v[0];
    } else if (name == "strippath") {
      compiler.strippath = boolean();
    } else if (name == "discardvisual") {
      compiler.discardvisual = boolean();
    } else if (name == "inertiagrouprange") {
      const auto v = numbers_of(docs, e, name.c_str(), value.c_str());
      if (v.size() != 2) docs.fail(e, "attribute 'inertiagrouprange': expected two numbers");
      compiler.group_lo = int(v[0]);
      compiler.group_hi = int(v[1]);
    } else if (name == "texturedir" || name == "fusestatic" || name == "usethread" || name == "exactmeshinertia" ||
               name == "fitaabb" || name == "alignfree" || name == "saveinertial") {
      // textures are not read; welded bodies are always fused; the rest only tune MuJoCo's compiler
    } else {
      unsupported_.note(e, "compiler/" + name, "attribute '" + name + "' is not imported");
    }
  }
}

void Model::read_defaults(const XMLElement* e, int parent) {
  int index = 0;
  if (parent >= 0) {
    const char* name = e->Attribute("class");
    if (name == nullptr) docs.fail(e, "a nested default needs a 'class'");
    if (class_index_.count(name)) docs.fail(e, std::string("default class '") + name + "' is defined twice");
    index = int(classes_.size());
    classes_.push_back({name, classes_[parent].attrs});  // inherits its parent's defaults
    class_index_[name] = index;
  }
  for (const XMLElement* c : docs.children(e)) {
    const std::string tag = c->Name();
    if (tag == "default") {
      read_defaults(c, index);
      continue;
    }
    const std::string kind = default_kind(tag);
    unsupported_.check(c, kind);
    auto& attrs = classes_[index].attrs[kind];
    for (const tinyxml2::XMLAttribute* a = c->FirstAttribute(); a != nullptr; a = a->Next()) attrs[a->Name()] = a->Value();
  }
}

void Model::read_assets(const XMLElement* e) {
  for (const XMLElement* c : docs.children(e)) {
    const std::string tag = c->Name();
    if (tag == "mesh") {
      const int cls = class_of(c, 0);
      unsupported_.check(c, "mesh");
      MeshAsset mesh;
      mesh.element = c;
      const char* file_attr = attr(c, "mesh", "file", cls);
      std::string name = c->Attribute("name") ? c->Attribute("name") : "";
      if (file_attr != nullptr) {
        fs::path p = file_attr;
        if (compiler.strippath) p = p.filename();
        mesh.file = p.is_absolute() ? p : compiler.meshdir / p;
        if (name.empty()) name = p.stem().string();
      } else if (const char* v = attr(c, "mesh", "vertex", cls)) {
        const auto xyz = numbers_of(docs, c, "vertex", v);
        if (xyz.size() < 12 || xyz.size() % 3 != 0) docs.fail(c, "attribute 'vertex': expected at least 4 points (x y z each)");
        for (std::size_t i = 0; i < xyz.size(); i += 3) mesh.vertices.emplace_back(xyz[i], xyz[i + 1], xyz[i + 2]);
      } else {
        docs.fail(c, "a mesh needs 'file' or 'vertex'");
      }
      if (name.empty()) docs.fail(c, "a mesh with inline vertices needs a 'name'");
      const auto s = numbers(c, "mesh", "scale", cls, 3, 3, {1, 1, 1});
      mesh.scale = Vec3(s[0], s[1], s[2]);
      if (meshes.count(name)) docs.fail(c, "mesh '" + name + "' is defined twice");
      meshes[name] = std::move(mesh);
    } else if (tag == "model") {
      const char* name = c->Attribute("name");
      const char* f = c->Attribute("file");
      if (name == nullptr || f == nullptr) docs.fail(c, "a model asset needs 'name' and 'file'");
      models[name] = {dir / f, c};
    } else if (tag == "material") {
      // its colour, for the geoms that name it; a texture is not drawn
      const int cls = class_of(c, 0);
      const char* name = c->Attribute("name");
      if (name == nullptr) docs.fail(c, "a material needs a 'name'");
      const auto rgba = numbers(c, "material", "rgba", cls, 4, 4, {1, 1, 1, 1});
      materials[name] = {rgba[0], rgba[1], rgba[2], rgba[3]};
      if (attr(c, "material", "texture", cls))
        unsupported_.note(c, "material/texture", "textures are not imported: the viewer draws the material's rgba");
    } else {
      // textures, height fields, skins: only what the model looks like
      unsupported_.note(c, "asset/" + tag, "asset '" + tag + "' is not imported (the scene does not draw textures)");
    }
  }
}

int Model::class_named(const XMLElement* e, const char* name) const {
  auto it = class_index_.find(name);
  if (it == class_index_.end()) docs.fail(e, std::string("unknown default class '") + name + "'");
  return it->second;
}

int Model::class_of(const XMLElement* e, int childclass) const {
  if (const char* c = e->Attribute("class")) return class_named(e, c);
  return childclass;
}

const char* Model::attr(const XMLElement* e, const std::string& kind, const char* name, int cls) const {
  if (const char* v = e->Attribute(name)) return v;
  if (cls < 0) return nullptr;
  const auto& attrs = classes_[cls].attrs;
  auto k = attrs.find(kind);
  if (k == attrs.end()) return nullptr;
  auto a = k->second.find(name);
  return a == k->second.end() ? nullptr : a->second.c_str();
}

std::string Model::text(const XMLElement* e, const std::string& kind, const char* name, int cls, const std::string& fallback) const {
  const char* v = attr(e, kind, name, cls);
  return v ? std::string(v) : fallback;
}

std::vector<double> Model::numbers(const XMLElement* e, const std::string& kind, const char* name, int cls,
                                   std::size_t min_count, std::size_t max_count, std::vector<double> fallback) const {
  const char* v = attr(e, kind, name, cls);
  if (v == nullptr) return fallback;
  auto out = numbers_of(docs, e, name, v);
  if (out.size() < min_count || out.size() > max_count) {
    const std::string want = min_count == max_count ? std::to_string(min_count)
                                                    : std::to_string(min_count) + " to " + std::to_string(max_count);
    docs.fail(e, std::string("attribute '") + name + "': expected " + want + " numbers, not '" + v + "'");
  }
  return out;
}

double Model::number(const XMLElement* e, const std::string& kind, const char* name, int cls, double fallback) const {
  return numbers(e, kind, name, cls, 1, 1, {fallback})[0];
}

bool Model::flag(const XMLElement* e, const std::string& kind, const char* name, int cls, bool fallback) const {
  const char* v = attr(e, kind, name, cls);
  if (v == nullptr) return fallback;
  const std::string s = v;
  if (s == "true") return true;
  if (s == "false") return false;
  docs.fail(e, std::string("attribute '") + name + "': expected true or false, not '" + s + "'");
}

bool Model::limited(const XMLElement* e, const std::string& kind, const char* limited_attr, const char* range_attr, int cls) const {
  const std::string v = text(e, kind, limited_attr, cls, "auto");
  if (v == "true") return true;
  if (v == "false") return false;
  if (v != "auto") docs.fail(e, std::string("attribute '") + limited_attr + "': expected true, false or auto, not '" + v + "'");
  return compiler.autolimits && attr(e, kind, range_attr, cls) != nullptr;
}

Quat Model::euler(const Vec3& angles, const XMLElement* e) const {
  Quat q = Quat::Identity();
  for (int i = 0; i < 3; ++i) {
    const char axis = compiler.eulerseq[i];
    const int k = axis == 'x' || axis == 'X' ? 0 : axis == 'y' || axis == 'Y' ? 1 : 2;
    const Quat r(Eigen::AngleAxisd(angle(angles[i]), Vec3::Unit(k)));
    // lower case: axes that turn with the frame (post-multiply); upper case: fixed axes
    q = std::islower(static_cast<unsigned char>(axis)) ? Quat(q * r) : Quat(r * q);
  }
  (void)e;
  return q.normalized();
}

Quat Model::orientation(const XMLElement* e, const std::string& kind, int cls) const {
  static const char* const names[] = {"quat", "axisangle", "euler", "xyaxes", "zaxis"};
  // the element's own orientation wins over its class's
  int given = 0;
  const char* which = nullptr;
  for (const char* n : names)
    if (e->Attribute(n)) ++given, which = n;
  if (given > 1) docs.fail(e, "more than one of quat, axisangle, euler, xyaxes, zaxis");
  if (given == 0 && cls >= 0)
    for (const char* n : names)
      if (attr(e, kind, n, cls)) which = n;
  if (which == nullptr) return Quat::Identity();
  const std::string w = which;
  const auto v = numbers(e, kind, which, cls, w == "quat" || w == "axisangle" ? 4 : w == "xyaxes" ? 6 : 3,
                         w == "quat" || w == "axisangle" ? 4 : w == "xyaxes" ? 6 : 3);
  const double tiny = 1e-14;
  if (w == "quat") {
    Quat q(v[0], v[1], v[2], v[3]);
    if (q.norm() < tiny) docs.fail(e, "attribute 'quat': the zero quaternion is not a rotation");
    return q.normalized();
  }
  if (w == "axisangle") {
    const Vec3 axis(v[0], v[1], v[2]);
    if (axis.norm() < tiny) docs.fail(e, "attribute 'axisangle': the axis is zero");
    return Quat(Eigen::AngleAxisd(angle(v[3]), axis.normalized()));
  }
  if (w == "euler") return euler(Vec3(v[0], v[1], v[2]), e);
  if (w == "xyaxes") {
    Vec3 x(v[0], v[1], v[2]), y(v[3], v[4], v[5]);
    if (x.norm() < tiny) docs.fail(e, "attribute 'xyaxes': the x axis is zero");
    x.normalize();
    y -= x * x.dot(y);  // y made orthogonal to x, as MuJoCo does
    if (y.norm() < tiny) docs.fail(e, "attribute 'xyaxes': the y axis is parallel to the x axis");
    y.normalize();
    Mat3 r;
    r << x, y, x.cross(y);
    return Quat(r).normalized();
  }
  const Vec3 z = Vec3(v[0], v[1], v[2]);
  if (z.norm() < tiny) docs.fail(e, "attribute 'zaxis': the axis is zero");
  return z_to(z);
}

Quat z_to(const Vec3& z) {
  const Vec3 n = z.normalized();
  Vec3 axis = Vec3::UnitZ().cross(n);
  const double s = axis.norm();
  axis = s < 1e-10 ? Vec3::UnitX() : Vec3(axis / s);
  return Quat(Eigen::AngleAxisd(std::atan2(s, n.z()), axis));
}

Pose Model::frame(const XMLElement* e, const std::string& kind, int cls) const {
  Pose p;
  const auto pos = numbers(e, kind, "pos", cls, 3, 3, {0, 0, 0});
  p.p = Vec3(pos[0], pos[1], pos[2]);
  p.q = orientation(e, kind, cls);
  return p;
}

}  // namespace coulomb::import_detail::mjcf
