// The builder both importers share (model_builder.h): names, materials, geometry and mass
// properties in the scene format's keys.
#include "model_builder.h"

#include <coulomb/mesh_io.h>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <numbers>
#include <sstream>

namespace coulomb {

std::string ImportWarning::text() const {
  std::string s = file.string();
  if (line > 0) s += ":" + std::to_string(line);
  return s + ": " + element + ": " + message;
}

namespace import_detail {

namespace {

using Json = nlohmann::json;

Json vec(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }
Json quat(const Quat& q) { return Json::array({q.w(), q.x(), q.y(), q.z()}); }
bool is_identity(const Pose& p) { return p.p.isZero(0.0) && p.q.coeffs().isApprox(Quat::Identity().coeffs(), 0.0); }

// a material's name from its coefficients, readable in the scene ("friction_0.8")
std::string material_name(double friction, double torsional, double restitution, double density) {
  std::ostringstream s;
  s << "friction_" << friction;
  if (torsional != 0.0) s << "_torsion_" << torsional;
  if (restitution != 0.0) s << "_restitution_" << restitution;
  if (density != 1000.0) s << "_density_" << density;
  return s.str();
}

}  // namespace

void Diagnostics::warn(int line, const std::string& element, const std::string& message) {
  warn(file_, line, element, message);
}

void Diagnostics::warn(const std::filesystem::path& file, int line, const std::string& element,
                       const std::string& message) {
  if (strict_) fail(file, line, element, message + " (a warning, an error with --strict)");
  warnings_.push_back({file, line, element, message});
}

void Diagnostics::fail(int line, const std::string& element, const std::string& message) const {
  fail(file_, line, element, message);
}

void Diagnostics::fail(const std::filesystem::path& file, int line, const std::string& element,
                       const std::string& message) const {
  throw ImportError(ImportWarning{file, line, element, message}.text());
}

std::string ModelBuilder::material(double friction, double torsional_friction, double restitution, double density) {
  const std::string name = material_name(friction, torsional_friction, restitution, density);
  if (!materials_.contains(name)) {
    Json m = {{"density", density}, {"friction", friction}};
    if (torsional_friction != 0.0) m["torsional_friction"] = torsional_friction;
    if (restitution != 0.0) m["restitution"] = restitution;
    materials_[name] = m;
  }
  return name;
}

// a name not used yet: the model's own, or NAME_2, NAME_3, ... with a warning
static std::string unique_name(std::map<std::string, int>& used, const std::string& name, Diagnostics& diag,
                               int line, const char* what) {
  int& n = used[name];
  if (++n == 1) return name;
  std::string renamed;
  do renamed = name + "_" + std::to_string(n++);
  while (used.count(renamed));
  used[renamed] = 1;
  diag.warn(line, std::string(what) + " '" + name + "'", "the name is used twice; this one is renamed '" + renamed + "'");
  return renamed;
}

std::string ModelBuilder::add_body(BodySpec body) {
  body.name = unique_name(body_names_, body.name, diag_, body.line, "body");
  body_index_[body.name] = bodies_.size();
  bodies_.push_back(std::move(body));
  return bodies_.back().name;
}

void ModelBuilder::add_joint(Json joint) {
  if (joint.contains("name"))
    joint["name"] = unique_name(joint_names_, joint["name"].get<std::string>(), diag_, 0, "joint");
  joints_.push_back(std::move(joint));
}

void ModelBuilder::add_actuator(Json actuator) {
  actuator["name"] = unique_name(actuator_names_, actuator["name"].get<std::string>(), diag_, 0, "actuator");
  actuators_.push_back(std::move(actuator));
}

void ModelBuilder::exclude(const std::string& body_a, const std::string& body_b) { excluded_.push_back({body_a, body_b}); }

// A body's `visual` list: a mesh file in the entry itself, another shape of its own named
// BODY/visual/K, a collision geom's visual by that geom's shape.
static Json visuals(const BodySpec& b, const std::vector<std::string>& geom_shapes, Json& shapes) {
  Json list = Json::array();
  for (std::size_t k = 0; k < b.visuals.size(); ++k) {
    const Visual& v = b.visuals[k];
    Json item;
    if (v.geom >= 0) {
      const Geom& geom = b.geoms.at(std::size_t(v.geom));
      item = {{"shape", geom_shapes[std::size_t(v.geom)]}, {"position", vec(geom.pose.p)}, {"orientation", quat(geom.pose.q)}};
    } else if (v.shape.at("type") == "mesh") {
      item = {{"mesh", v.shape.at("file")}, {"position", vec(v.pose.p)}, {"orientation", quat(v.pose.q)}};
      if (v.shape.contains("scale")) item["scale"] = v.shape["scale"];
    } else {
      const std::string name = b.name + "/visual/" + std::to_string(k);
      shapes[name] = v.shape;
      item = {{"shape", name}, {"position", vec(v.pose.p)}, {"orientation", quat(v.pose.q)}};
    }
    if (v.color) item["color"] = *v.color;
    list.push_back(std::move(item));
  }
  return list;
}

Json ModelBuilder::scene(const Json& settings, bool add_ground) const {
  Json doc = {{"format", "coulomb-scene/1"}};
  for (const auto& [key, value] : settings.items()) doc[key] = value;
  Json materials = materials_;
  Json shapes = Json::object();
  Json bodies = Json::array();
  for (const BodySpec& b : bodies_) {
    Json body = {{"name", b.name}};
    std::vector<std::string> geom_shapes;  // the shape of each collision geom
    if (!b.geoms.empty()) {
      const std::string shape = b.name;
      if (b.geoms.size() == 1 && is_identity(b.geoms[0].pose)) {
        shapes[shape] = b.geoms[0].shape;
        geom_shapes.push_back(shape);
      } else {
        Json children = Json::array();
        for (std::size_t g = 0; g < b.geoms.size(); ++g) {
          const std::string child = shape + "/" + std::to_string(g);
          shapes[child] = b.geoms[g].shape;
          geom_shapes.push_back(child);
          children.push_back({{"shape", child}, {"position", vec(b.geoms[g].pose.p)}, {"orientation", quat(b.geoms[g].pose.q)}});
        }
        shapes[shape] = {{"type", "compound"}, {"children", children}};
      }
      body["shape"] = shape;
      if (!b.geoms[0].material.empty()) body["material"] = b.geoms[0].material;
    }
    body["position"] = vec(b.pose.p);
    body["orientation"] = quat(b.pose.q);
    if (b.fixed) body["fixed"] = true;
    if (b.inertial && !b.fixed) {
      const Mat3& I = b.inertial->inertia;
      body["mass"] = b.inertial->mass;
      body["center_of_mass"] = vec(b.inertial->com);
      body["inertia"] = Json::array({I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)});
    }
    if (b.contype != 1) body["contype"] = b.contype;
    if (b.conaffinity != 1) body["conaffinity"] = b.conaffinity;
    if (!b.visuals.empty()) body["visual"] = visuals(b, geom_shapes, shapes);
    bodies.push_back(std::move(body));
  }
  if (add_ground) {
    std::string name = "ground";
    for (int n = 2; body_index_.count(name); ++n) name = "ground_" + std::to_string(n);
    shapes[name] = {{"type", "plane"}, {"normal", {0.0, 0.0, 1.0}}, {"offset", 0.0}};
    bodies.push_back({{"name", name}, {"shape", name}, {"fixed", true}});
  }
  if (!materials.empty()) doc["materials"] = materials;
  doc["shapes"] = shapes;
  doc["bodies"] = bodies;
  if (!joints_.empty()) doc["joints"] = joints_;
  if (!actuators_.empty()) doc["actuators"] = actuators_;
  if (!excluded_.empty()) {
    Json pairs = Json::array();
    for (const auto& p : excluded_) pairs.push_back({p[0], p[1]});
    doc["collision"]["exclude"] = pairs;
  }
  return doc;
}

double ModelBuilder::lowest_moving_point() const {
  double lowest = std::numeric_limits<double>::infinity();
  for (const BodySpec& b : bodies_)
    if (!b.fixed)
      for (const Geom& g : b.geoms) lowest = std::min(lowest, lowest_point(b.pose * g.pose, g.shape));
  return lowest;
}

double lowest_point(const Pose& pose, const Json& shape) {
  constexpr double kNone = std::numeric_limits<double>::infinity();
  const std::string type = shape.at("type");
  const Vec3 up = pose.q.conjugate() * Vec3::UnitZ();  // world z in the shape frame
  const auto vec3 = [](const Json& j) { return Vec3(j[0].get<double>(), j[1].get<double>(), j[2].get<double>()); };
  if (type == "sphere") return pose.p.z() - shape.at("radius").get<double>();
  if (type == "box") return pose.p.z() - up.cwiseAbs().dot(vec3(shape.at("half_extents")));
  if (type == "cylinder" || type == "capsule") {
    const double r = shape.at("radius"), h = shape.at("half_height"), c = std::abs(up.z());
    return pose.p.z() - (type == "cylinder" ? r * std::sqrt(std::max(0.0, 1.0 - c * c)) + h * c : r + h * c);
  }
  if (type == "compound" || type == "plane") return kNone;
  std::vector<Vec3> points;
  if (shape.contains("vertices")) {
    for (const Json& v : shape["vertices"]) points.push_back(vec3(v));
  } else if (shape.contains("file")) {
    try {
      points = read_mesh(shape["file"].get<std::string>(), "").vertices;
    } catch (const std::exception&) {
      return kNone;
    }
  }
  Vec3 scale = Vec3::Ones();
  if (shape.contains("scale")) scale = shape["scale"].is_number() ? Vec3::Constant(shape["scale"].get<double>()) : vec3(shape["scale"]);
  double lowest = kNone;
  for (const Vec3& v : points) lowest = std::min(lowest, pose.apply(v.cwiseProduct(scale)).z());
  return lowest;
}

Mat3 box_inertia(double mass, const Vec3& h) {
  const Vec3 s = h.cwiseAbs2();
  return Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y()).asDiagonal() * (mass / 3.0);
}

Mat3 sphere_inertia(double mass, double radius) { return Mat3::Identity() * (0.4 * mass * radius * radius); }

Mat3 cylinder_inertia(double mass, double radius, double half_height) {
  const double across = mass * (3.0 * radius * radius + 4.0 * half_height * half_height) / 12.0;
  return Vec3(across, across, 0.5 * mass * radius * radius).asDiagonal();
}

// the cylinder and the two hemispheres share the mass by volume; a hemisphere's moment across
// the axis about the capsule's centre is 2/5 m r^2 + m (h^2 + 3 h r / 4) (parallel axes from
// its centroid 3 r / 8 above its base)
Mat3 capsule_inertia(double mass, double radius, double half_height) {
  const double r = radius, h = half_height;
  const double cylinder = 2.0 * h * r * r, spheres = 4.0 / 3.0 * r * r * r;  // volumes / pi
  const double mc = mass * cylinder / (cylinder + spheres), ms = mass - mc;
  const double across = mc * (3.0 * r * r + 4.0 * h * h) / 12.0 + ms * (0.4 * r * r + h * h + 0.75 * h * r);
  return Vec3(across, across, 0.5 * mc * r * r + 0.4 * ms * r * r).asDiagonal();
}

bool balance_inertia(Mat3& inertia) {
  const Vec3 m = Eigen::SelfAdjointEigenSolver<Mat3>(0.5 * (inertia + inertia.transpose()), Eigen::EigenvaluesOnly).eigenvalues();
  const double tol = 1e-9 * m.cwiseAbs().maxCoeff();
  if (m.minCoeff() > 0.0 && m[0] + m[1] >= m[2] - tol) return false;
  inertia = Mat3::Identity() * (m.sum() / 3.0);
  return true;
}

std::vector<double> parse_numbers(const std::string& text) {
  std::vector<double> out;
  const char* p = text.c_str();
  while (true) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ',') ++p;
    if (*p == '\0') break;
    char* end = nullptr;
    const double v = std::strtod(p, &end);
    if (end == p || !std::isfinite(v)) throw std::invalid_argument("'" + text + "' is not a list of finite numbers");
    out.push_back(v);
    p = end;
  }
  return out;
}

}  // namespace import_detail
}  // namespace coulomb
