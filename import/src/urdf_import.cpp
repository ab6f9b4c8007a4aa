// URDF import (import/README.md has the mapping table): urdfdom parses the model, the XML pass
// of urdf_xml.cpp gives lines and warns about what is not imported, and the ModelBuilder writes
// the scene document.
//
// Links become bodies placed by forward kinematics at the joints' load coordinates (0, or the
// nearest limit when 0 lies outside the limits), joints become scene joints with anchor and axis
// in world coordinates, `limit effort` becomes an effort actuator named after its joint. Links
// do not collide with each other (PyBullet's default for a URDF: the model's links overlap
// where they meet, and a URDF has no exclusion lists); they collide with the ground and with
// everything else in the scene.
#include <console_bridge/console.h>
#include <coulomb/import.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>

#include "model_builder.h"
#include "urdf_defaults.h"
#include "urdf_xml.h"

namespace coulomb {

namespace import_detail {
namespace {

// urdfdom reports its errors through console_bridge: collect them while it parses. The output
// handler is process-wide, so parses take turns.
class CaptureConsole : public console_bridge::OutputHandler {
 public:
  CaptureConsole() { console_bridge::useOutputHandler(this); }
  ~CaptureConsole() override { console_bridge::restorePreviousOutputHandler(); }
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};
std::mutex g_console_mutex;

Vec3 vec(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }
Pose pose(const urdf::Pose& p) {
  Quat q(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z);
  return {vec(p.position), q.norm() > 0.0 ? q.normalized() : Quat::Identity()};
}
bool finite(const Pose& p) { return p.p.allFinite() && p.q.coeffs().allFinite(); }

// The first existing file among `candidates`, made absolute and normal; "" when none exists.
std::filesystem::path first_existing(const std::vector<std::filesystem::path>& candidates) {
  std::error_code ec;
  for (const std::filesystem::path& c : candidates)
    if (std::filesystem::is_regular_file(c, ec)) return std::filesystem::absolute(c, ec).lexically_normal();
  return {};
}

// A mesh filename of the URDF as an absolute path: `package://NAME/REST` is NAME/REST under each
// search-path folder, then under the model's folder and its parents (and REST under a parent
// folder named NAME, a ROS package's root); `file://PATH` is PATH; a relative path is taken
// beside the model, then under each search-path folder.
std::filesystem::path resolve_mesh(const std::string& uri, const std::filesystem::path& model_dir,
                                   const ImportOptions& options, std::vector<std::filesystem::path>& tried) {
  const std::string package = "package://", file = "file://";
  if (uri.rfind(package, 0) == 0) {
    const std::string rest = uri.substr(package.size());
    const std::size_t slash = rest.find('/');
    const std::string name = rest.substr(0, slash);
    const std::string inner = slash == std::string::npos ? "" : rest.substr(slash + 1);
    for (const std::filesystem::path& s : options.search_path) tried.push_back(s / name / inner);
    for (std::filesystem::path d = model_dir;; d = d.parent_path()) {
      tried.push_back(d / name / inner);
      if (d.filename() == name) tried.push_back(d / inner);
      if (d == d.parent_path() || d.empty()) break;
    }
    return first_existing(tried);
  }
  const std::filesystem::path p = uri.rfind(file, 0) == 0 ? std::filesystem::path(uri.substr(file.size()))
                                                          : std::filesystem::path(uri);
  if (p.is_absolute()) {
    tried.push_back(p);
  } else {
    tried.push_back(model_dir / p);
    for (const std::filesystem::path& s : options.search_path) tried.push_back(s / p);
  }
  return first_existing(tried);
}

struct LinkGeometry {
  std::vector<Geom> geoms;
  std::vector<std::pair<Pose, nlohmann::json>> placed;  // for the lowest point: pose in link, shape
};

class UrdfImporter {
 public:
  UrdfImporter(const std::filesystem::path& file, const ImportOptions& options)
      : file_(file), dir_(std::filesystem::absolute(file).parent_path()), options_(options),
        diag_(file, options.strict), builder_(diag_) {}

  ImportResult run() {
    xml_ = read_urdf_xml(file_, diag_);
    parse();
    material_ = builder_.material(kUrdfFriction);
    const auto root = model_->getRoot();
    if (!root) diag_.fail(0, "robot", "no root link");
    // the root's pose, then every link's by forward kinematics at the load coordinates
    poses_[root->name] = Pose{};
    forward_kinematics(root->name);
    lift_root();
    for (const std::string& name : xml_.link_order) add_link(name, name == root->name);
    for (const std::string& name : xml_.joint_order) add_joint(name);
    ImportResult result;
    result.scene = builder_.scene(settings(), options_.ground);
    result.warnings = diag_.take();
    std::stable_sort(result.warnings.begin(), result.warnings.end(),
                     [](const ImportWarning& a, const ImportWarning& b) { return a.line < b.line; });
    return result;
  }

 private:
  void parse() {
    std::vector<std::string> errors;
    {
      std::lock_guard<std::mutex> lock(g_console_mutex);
      CaptureConsole capture;
      model_ = urdf::parseURDF(xml_.text);
      errors = capture.errors;
    }
    if (model_) return;
    std::string message = errors.empty() ? "urdfdom could not parse the model" : errors.front();
    for (std::size_t k = 1; k < errors.size(); ++k) message += "; " + errors[k];
    diag_.fail(line_in_message(message), "robot", message);
  }

  // urdfdom's messages name a link or joint in brackets ("Joint [hip] ..."): that element's line
  int line_in_message(const std::string& message) const {
    const std::size_t open = message.find('['), close = message.find(']');
    if (open == std::string::npos || close == std::string::npos || close < open) return 0;
    const std::string name = message.substr(open + 1, close - open - 1);
    const bool joint = message.substr(0, open).find("oint") != std::string::npos;  // "Joint [NAME]"
    if (joint && xml_.joints.count(name)) return xml_.joints.at(name).line;
    if (xml_.links.count(name)) return xml_.links.at(name).line;
    if (xml_.joints.count(name)) return xml_.joints.at(name).line;
    return 0;
  }

  int link_line(const std::string& name) const { return xml_.links.count(name) ? xml_.links.at(name).line : 0; }
  int joint_line(const std::string& name) const { return xml_.joints.count(name) ? xml_.joints.at(name).line : 0; }

  // the joint coordinate at load: 0, or the limit nearest to it when 0 lies outside the limits
  double load_coordinate(const urdf::Joint& j) const {
    if (!limited(j)) return 0.0;
    return std::clamp(0.0, j.limits->lower, std::max(j.limits->lower, j.limits->upper));
  }
  // whether the joint's <limit> bounds its coordinate: revolute and prismatic joints whose limit
  // element writes lower or upper (urdfdom reads both as 0 when neither is written)
  bool limited(const urdf::Joint& j) const {
    if (j.type != urdf::Joint::REVOLUTE && j.type != urdf::Joint::PRISMATIC) return false;
    if (!j.limits) return false;
    const auto it = xml_.joints.find(j.name);
    return it == xml_.joints.end() || it->second.has_lower || it->second.has_upper;
  }

  void forward_kinematics(const std::string& link_name) {
    const auto link = model_->getLink(link_name);
    for (const auto& j : link->child_joints) {
      const std::string child = j->child_link_name;
      const Pose origin = pose(j->parent_to_joint_origin_transform);
      if (!finite(origin)) diag_.fail(joint_line(j->name), "joint '" + j->name + "' origin", "not a finite pose");
      Pose frame = poses_.at(link_name) * origin;
      const double q = load_coordinate(*j);
      const Vec3 axis = vec(j->axis);
      if (q != 0.0 && j->type == urdf::Joint::REVOLUTE)
        frame = frame * Pose{Vec3::Zero(), Quat(Eigen::AngleAxisd(q, axis.normalized()))};
      else if (q != 0.0 && j->type == urdf::Joint::PRISMATIC)
        frame = frame * Pose{q * axis.normalized(), Quat::Identity()};
      joint_frames_[j->name] = poses_.at(link_name) * origin;
      poses_[child] = frame;
      forward_kinematics(child);
    }
  }

  // A URDF geometry as a shape object of the scene format; "" from `missing` when its mesh file
  // is not found. Collision meshes are used as their convex hull, as MuJoCo uses every mesh
  // geom: robot meshes are CAD exports, often open or not manifold, which a moving mesh body
  // cannot be; visual meshes are drawn as they are.
  nlohmann::json shape_of(const urdf::Geometry& geometry, int line, const std::string& what, bool hull,
                          std::string* missing = nullptr) {
    const auto positive = [&](double v, const char* key) {
      if (!(v > 0.0) || !std::isfinite(v)) diag_.fail(line, what, std::string(key) + " must be a finite number > 0");
      return v;
    };
    switch (geometry.type) {
      case urdf::Geometry::SPHERE: {
        const auto& s = static_cast<const urdf::Sphere&>(geometry);
        return {{"type", "sphere"}, {"radius", positive(s.radius, "sphere radius")}};
      }
      case urdf::Geometry::BOX: {
        const auto& b = static_cast<const urdf::Box&>(geometry);
        return {{"type", "box"},
                {"half_extents", {positive(b.dim.x, "box size") / 2, positive(b.dim.y, "box size") / 2,
                                  positive(b.dim.z, "box size") / 2}}};
      }
      case urdf::Geometry::CYLINDER: {
        const auto& y = static_cast<const urdf::Cylinder&>(geometry);
        return {{"type", "cylinder"},
                {"radius", positive(y.radius, "cylinder radius")},
                {"half_height", positive(y.length, "cylinder length") / 2}};
      }
      case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(geometry);
        std::vector<std::filesystem::path> tried;
        const std::filesystem::path path = resolve_mesh(m.filename, dir_, options_, tried);
        if (path.empty()) {
          std::string where;
          for (const auto& t : tried) where += (where.empty() ? "" : ", ") + t.string();
          const std::string message = "'" + m.filename + "' not found (looked for " + where + ")";
          if (!missing) diag_.fail(line, what + " mesh", message);
          *missing = message;
          return {};
        }
        nlohmann::json shape = {{"type", "mesh"}, {"file", path.string()}};
        if (hull) shape["convex"] = true;
        const Vec3 scale = vec(m.scale);
        for (int i = 0; i < 3; ++i) positive(scale[i], "mesh scale");
        if (scale != Vec3::Ones()) shape["scale"] = {scale.x(), scale.y(), scale.z()};
        return shape;
      }
      default:
        diag_.fail(line, what, "unknown geometry type");
    }
  }

  // the link's collision geometry as Geoms (and the shapes, for the lowest point)
  LinkGeometry geometry(const urdf::Link& link) {
    LinkGeometry g;
    const UrdfLinkXml* lx = xml_.links.count(link.name) ? &xml_.links.at(link.name) : nullptr;
    for (std::size_t k = 0; k < link.collision_array.size(); ++k) {
      const urdf::Collision& c = *link.collision_array[k];
      const int line = lx && k < lx->collision_lines.size() ? lx->collision_lines[k] : link_line(link.name);
      const std::string what = "link '" + link.name + "' collision";
      if (!c.geometry) diag_.fail(line, what, "no geometry");
      Geom geom;
      geom.pose = pose(c.origin);
      geom.material = material_;
      if (lx && (lx->lateral_friction >= 0.0 || lx->restitution >= 0.0))
        geom.material = builder_.material(lx->lateral_friction >= 0.0 ? lx->lateral_friction : kUrdfFriction, 0.0,
                                          std::max(0.0, lx->restitution));
      if (!finite(geom.pose)) diag_.fail(line, what + " origin", "not a finite pose");
      geom.shape = shape_of(*c.geometry, line, what, true);
      g.placed.emplace_back(geom.pose, geom.shape);
      g.geoms.push_back(std::move(geom));
    }
    return g;
  }

  // the link's visual geometry with its material's colour; a visual whose mesh is missing is
  // left out with a warning (it does not change the physics)
  std::vector<Visual> visuals(const urdf::Link& link) {
    std::vector<Visual> out;
    const UrdfLinkXml* lx = xml_.links.count(link.name) ? &xml_.links.at(link.name) : nullptr;
    for (std::size_t k = 0; k < link.visual_array.size(); ++k) {
      const urdf::Visual& v = *link.visual_array[k];
      const int line = lx && k < lx->visual_lines.size() ? lx->visual_lines[k] : link_line(link.name);
      const std::string what = "link '" + link.name + "' visual";
      if (!v.geometry) diag_.fail(line, what, "no geometry");
      Visual visual;
      visual.pose = pose(v.origin);
      if (!finite(visual.pose)) diag_.fail(line, what + " origin", "not a finite pose");
      std::string missing;
      visual.shape = shape_of(*v.geometry, line, what, false, &missing);
      if (!missing.empty()) {
        diag_.warn(line, what + " mesh", missing + ": this visual is left out");
        continue;
      }
      // a material that gives only a texture keeps urdfdom's black: the viewer's colour is used
      if (v.material && (v.material->texture_filename.empty() || v.material->color.r + v.material->color.g +
                                                                         v.material->color.b > 0.0f)) {
        // urdfdom keeps floats: 6 digits, so that 0.7 reads 0.7 in the scene
        const auto channel = [](float x) { return std::clamp(std::round(double(x) * 1e6) / 1e6, 0.0, 1.0); };
        const urdf::Color& c = v.material->color;
        visual.color = std::array<double, 4>{channel(c.r), channel(c.g), channel(c.b), channel(c.a)};
      }
      out.push_back(std::move(visual));
    }
    return out;
  }

  // With a ground and no base position given, the robot is raised so that its lowest collision
  // point at load is on the ground (z = 0): a URDF's root usually sits at its origin, and a link
  // below the ground would be refused as an overlap at load.
  void lift_root() {
    Vec3 base = Vec3::Zero();
    if (options_.base_position) {
      base = {(*options_.base_position)[0], (*options_.base_position)[1], (*options_.base_position)[2]};
    } else if (options_.ground) {
      double lowest = std::numeric_limits<double>::infinity();
      for (const auto& [name, p] : poses_) {
        const auto link = model_->getLink(name);
        for (const auto& [local, shape] : geometry(*link).placed) lowest = std::min(lowest, lowest_point(p * local, shape));
      }
      if (std::isfinite(lowest) && lowest < 0.0) base.z() = -lowest;
    }
    for (auto& [name, p] : poses_) p.p += base;
    for (auto& [name, p] : joint_frames_) p.p += base;
  }

  void add_link(const std::string& name, bool is_root) {
    const auto link = model_->getLink(name);
    BodySpec body;
    body.name = name;
    body.pose = poses_.at(name);
    body.line = link_line(name);
    body.geoms = geometry(*link).geoms;
    body.visuals = visuals(*link);
    body.fixed = is_root && !options_.floating_base;
    body.inertial = link_inertial(*link, body, xml_.links.count(name) ? xml_.links.at(name).inertial_line : 0, diag_);
    // links do not collide with each other (file comment); the ground's bits are 1, 1
    body.contype = kUrdfLinkContype;
    body.conaffinity = kUrdfLinkConaffinity;
    builder_.add_body(std::move(body));
  }

  void add_joint(const std::string& name) {
    const auto j = model_->getJoint(name);
    const int line = joint_line(name);
    const std::string what = "joint '" + name + "'";
    if (j->type == urdf::Joint::FLOATING) return;  // the child is a free body
    if (j->type == urdf::Joint::PLANAR)
      diag_.fail(line, what, "planar joints are not supported (the scene has ball, hinge, prismatic and fixed joints): "
                             "make it 'floating' (a free child) or 'fixed' in the URDF");
    if (j->type == urdf::Joint::UNKNOWN) diag_.fail(line, what, "unknown joint type");
    const Pose frame = joint_frames_.at(name);
    nlohmann::json joint = {{"name", name}, {"a", j->child_link_name}, {"b", j->parent_link_name}};
    joint["anchor"] = {frame.p.x(), frame.p.y(), frame.p.z()};
    if (j->type == urdf::Joint::FIXED) {
      joint["type"] = "fixed";
      builder_.add_joint(std::move(joint));
      return;
    }
    joint["type"] = j->type == urdf::Joint::PRISMATIC ? "prismatic" : "hinge";
    const Vec3 axis = vec(j->axis);
    if (!axis.allFinite() || axis.norm() == 0.0) diag_.fail(line, what + " axis", "must be a finite non-zero vector");
    const Vec3 world_axis = frame.rotate(axis.normalized());
    joint["axis"] = {world_axis.x(), world_axis.y(), world_axis.z()};
    if (limited(*j)) {
      if (j->limits->lower > j->limits->upper)
        diag_.fail(xml_.joints.at(name).limit_line, what + " limit",
                   "lower (" + std::to_string(j->limits->lower) + ") is above upper (" +
                       std::to_string(j->limits->upper) + ")");
      joint["limits"] = {j->limits->lower, j->limits->upper};
    } else if (j->type != urdf::Joint::CONTINUOUS && j->limits) {
      diag_.warn(xml_.joints.at(name).limit_line, what + " limit",
                 "gives neither lower nor upper: imported without limits (URDF reads both as 0, which would lock it)");
    }
    if (const double q = load_coordinate(*j); q != 0.0) {
      joint["position"] = q;
      diag_.warn(line, what, "0 lies outside its limits: the model is loaded at " + std::to_string(q) +
                                 " (the nearest limit) and the joint's position starts there");
    }
    double damping = 0.0, friction = 0.0;
    if (j->dynamics) damping = j->dynamics->damping, friction = j->dynamics->friction;
    else if (xml_.joints.count(name)) damping = xml_.joints.at(name).legacy_damping, friction = xml_.joints.at(name).legacy_friction;
    if (!(damping >= 0.0) || !(friction >= 0.0)) diag_.fail(line, what + " dynamics", "damping and friction must be >= 0");
    if (damping > 0.0) joint["damping"] = damping;
    if (friction > 0.0) joint["friction"] = friction;
    builder_.add_joint(std::move(joint));
    if (j->limits && j->limits->effort > 0.0 && std::isfinite(j->limits->effort)) {
      nlohmann::json act = {{"name", name}, {"type", "effort"}, {"joint", name}, {"max_effort", j->limits->effort}};
      if (j->limits->velocity > 0.0 && std::isfinite(j->limits->velocity)) act["max_velocity"] = j->limits->velocity;
      builder_.add_actuator(std::move(act));
    }
  }

  nlohmann::json settings() const {
    nlohmann::json s;
    s["name"] = model_->getName();
    s["description"] = "imported from " + file_.filename().string() + " by coulomb import (URDF)";
    s["gravity"] = {0.0, 0.0, -9.81};
    s["time"] = {{"dt", options_.dt.value_or(kUrdfDt)}, {"duration", options_.duration.value_or(kUrdfDuration)}};
    s["solver"] = urdf_solver(options_.solver);
    return s;
  }

  std::filesystem::path file_, dir_;
  const ImportOptions& options_;
  Diagnostics diag_;
  ModelBuilder builder_;
  UrdfXml xml_;
  urdf::ModelInterfaceSharedPtr model_;
  std::string material_;
  std::map<std::string, Pose> poses_;         // link frames in the world at load
  std::map<std::string, Pose> joint_frames_;  // joint frames (before the joint's motion) in the world
};

}  // namespace
}  // namespace import_detail

ImportResult import_urdf(const std::filesystem::path& file, const ImportOptions& options) {
  return import_detail::UrdfImporter(file, options).run();
}

}  // namespace coulomb
