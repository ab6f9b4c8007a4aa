// The MJCF body tree as scene bodies (mjcf.h): bodies, frames, replicates, attached models,
// geoms, inertials and joints.
#include "mjcf.h"

#include <coulomb/error.h>
#include <coulomb/mass_properties.h>
#include <coulomb/mesh_io.h>
#include <coulomb/shapes.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

namespace coulomb::import_detail::mjcf {

namespace {

constexpr double kPi = std::numbers::pi;

Json vec(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }

// MuJoCo's replicate suffix: the index padded with zeros to the digits of the count
std::string padded(int i, int count) {
  std::string s = std::to_string(i);
  const std::size_t digits = std::to_string(count).size();
  return std::string(digits > s.size() ? digits - s.size() : 0, '0') + s;
}

struct Solid {
  double volume = 0.0;
  Vec3 com = Vec3::Zero();            // in the geom frame
  Mat3 unit_inertia = Mat3::Zero();   // about the com, per unit mass
};

}  // namespace

void SimBody::add_mass(double m, const Vec3& com, const Mat3& inertia_about_com) {
  mass += m;
  first += m * com;
  inertia += inertia_about_com + m * (com.squaredNorm() * Mat3::Identity() - com * com.transpose());
}

int Importer::new_body(SimBody body) {
  bodies_.push_back(std::move(body));
  return int(bodies_.size()) - 1;
}

void Importer::content(Model& m, const XMLElement* parent, const Place& place) {
  const bool in_body = std::string(parent->Name()) == "body";
  for (const XMLElement* c : docs_.children(parent)) {
    const std::string tag = c->Name();
    if (tag == "body") {
      body(m, c, place);
    } else if (tag == "geom") {
      geom(m, c, place);
    } else if (tag == "inertial") {
      if (!in_body) docs_.fail(c, "an inertial belongs directly in a body");
      inertial(m, c, place);
    } else if (tag == "joint" || tag == "freejoint") {
      if (!in_body) docs_.fail(c, std::string("a joint in <") + parent->Name() + "> is not supported: put it directly in its body");
    } else if (tag == "frame") {
      unsupported_.check(c, "frame");
      Place inner = place;
      inner.frame = place.frame * m.frame(c, "frame", -1);
      if (const char* cc = c->Attribute("childclass")) inner.childclass = m.class_named(c, cc);
      content(m, c, inner);
    } else if (tag == "replicate") {
      replicate(m, c, place);
    } else if (tag == "attach") {
      attach(m, c, place);
    } else if (tag == "site" || tag == "camera" || tag == "light") {
      unsupported_.note(c, "body/" + tag, tag + " elements are not imported (the scene has no " + tag + "s)");
    } else if (tag == "composite" || tag == "flexcomp" || tag == "skin") {
      docs_.fail(c, "<" + tag + "> (generated bodies, flexes) is not supported");
    } else {
      unsupported_.note(c, "body/" + tag, "element <" + tag + "> is not imported");
    }
  }
}

void Importer::replicate(Model& m, const XMLElement* e, const Place& place) {
  unsupported_.check(e, "replicate");
  const auto count = m.numbers(e, "replicate", "count", -1, 1, 1, {-1.0})[0];
  if (count < 1 || count != std::floor(count)) docs_.fail(e, "attribute 'count': expected a positive whole number");
  const auto offset = m.numbers(e, "replicate", "offset", -1, 3, 3, {0, 0, 0});
  const auto euler = m.numbers(e, "replicate", "euler", -1, 3, 3, {0, 0, 0});
  const std::string sep = e->Attribute("sep") ? e->Attribute("sep") : "";
  const int n = int(count);
  // copy i sits at the sum of the offsets turned by each earlier copy's rotation, turned by
  // i times the Euler angles (MuJoCo's frame accumulation)
  Vec3 at = Vec3::Zero();
  for (int i = 0; i < n; ++i) {
    const Quat turn = m.euler(Vec3(i * euler[0], i * euler[1], i * euler[2]), e);
    Place inner = place;
    inner.frame = place.frame * Pose{at, turn};
    inner.scope.suffix = sep + padded(i, n) + place.scope.suffix;
    content(m, e, inner);
    at += turn * Vec3(offset[0], offset[1], offset[2]);
  }
}

void Importer::attach(Model& m, const XMLElement* e, const Place& place) {
  unsupported_.check(e, "attach");
  const char* model = e->Attribute("model");
  const char* body_name = e->Attribute("body");
  const char* prefix = e->Attribute("prefix");
  if (model == nullptr) docs_.fail(e, "attaching a part of this same model (no 'model') is not supported");
  if (body_name == nullptr) docs_.fail(e, "only attaching a 'body' is supported");
  if (prefix == nullptr) docs_.fail(e, "attribute 'prefix' is required");
  auto asset = m.models.find(model);
  if (asset == m.models.end()) docs_.fail(e, std::string("unknown model '") + model + "' (declare it as <asset><model>)");
  auto& child = m.attached[model];
  if (!child) {
    child = std::make_unique<Model>(docs_, unsupported_, asset->second.first, asset->second.second);
    check_global(*child);
  }
  // the body in the attached model's tree, and the childclass it would inherit there
  const XMLElement* found = nullptr;
  int childclass = 0;
  auto search = [&](auto&& self, const XMLElement* parent, int cls) -> void {
    for (const XMLElement* c : docs_.children(parent)) {
      if (found != nullptr) return;
      const std::string tag = c->Name();
      if (tag != "body" && tag != "frame") continue;
      if (tag == "body" && c->Attribute("name") && body_name == std::string(c->Attribute("name"))) {
        found = c;
        childclass = cls;
        return;
      }
      self(self, c, c->Attribute("childclass") ? child->class_named(c, c->Attribute("childclass")) : cls);
    }
  };
  for (const XMLElement* world : child->sections("worldbody")) search(search, world, 0);
  if (found == nullptr) docs_.fail(e, std::string("model '") + model + "' has no body '" + body_name + "'");
  Place inner = place;
  inner.scope.prefix = place.scope.prefix + prefix;
  inner.childclass = childclass;
  body(*child, found, inner);
  attached_.emplace_back(child.get(), inner.scope);
}

void Importer::body(Model& m, const XMLElement* e, const Place& place) {
  unsupported_.check(e, "body");
  int childclass = place.childclass;
  if (const char* cc = e->Attribute("childclass")) childclass = m.class_named(e, cc);
  const std::string name = place.scope(e->Attribute("name") ? e->Attribute("name") : "body" + std::to_string(++unnamed_));
  if (body_names_.count(name)) docs_.fail(e, "the body name '" + name + "' is used twice");
  const Pose world = place.body * place.frame * m.frame(e, "body", -1);

  std::vector<const XMLElement*> joint_elements;
  for (const XMLElement* c : docs_.children(e)) {
    const std::string tag = c->Name();
    if (tag == "joint" || tag == "freejoint") joint_elements.push_back(c);
  }
  int sim = place.sim;
  if (!joint_elements.empty()) {
    sim = joints(m, e, joint_elements, childclass, place, name, world);
  } else if (place.sim < 0) {
    // welded to the world: a fixed scene body
    SimBody b;
    b.name = name;
    b.element = e;
    b.pose = world;
    b.fixed = true;
    sim = new_body(std::move(b));
    if (m.flag(e, "body", "mocap", -1, false))
      docs_.warn(e, "a mocap body is imported as a fixed body (a scene's kinematic body is moved by the program instead)");
  }
  // a body without joints under a moving body is welded to it: it joins its scene body
  body_names_[name] = BodyRef{sim, bodies_[sim].pose.inverse() * world};

  BodyMass mass;
  Place inner;
  inner.sim = sim;
  inner.body = world;
  inner.childclass = childclass;
  inner.scope = place.scope;
  inner.mass = &mass;
  content(m, e, inner);

  // mass from the inertial, or from the geoms (compiler inertiafromgeom)
  const auto mode = m.compiler.inertiafromgeom;
  const SimBody* source = nullptr;
  if (mass.has_inertial && mode != Compiler::kTrue) source = &mass.inertial;
  else if (mode != Compiler::kFalse) source = &mass.geoms;
  if (source != nullptr) {
    SimBody& s = bodies_[sim];
    s.mass += source->mass;
    s.first += source->first;
    s.inertia += source->inertia;
  }
}

namespace {

// A joint's anchor, axis and reference, its limits, and its damping, armature and friction
// (what the scene has of them).
void joint_properties(Model& m, Documents& docs, Unsupported& unsupported, const XMLElement* j, int cls,
                      const std::string& jname, JointSpec& spec) {
  const auto pos = m.numbers(j, "joint", "pos", cls, 3, 3, {0, 0, 0});
  spec.anchor = Vec3(pos[0], pos[1], pos[2]);
  const bool angular = spec.type == "hinge";
  if (spec.type != "ball") {
    const auto axis = m.numbers(j, "joint", "axis", cls, 3, 3, {0, 0, 1});
    spec.axis = Vec3(axis[0], axis[1], axis[2]);
    if (spec.axis.norm() < 1e-14) docs.fail(j, "attribute 'axis': the axis is zero");
    spec.axis.normalize();
    spec.ref = m.number(j, "joint", "ref", cls, 0.0);
    if (angular) spec.ref = m.angle(spec.ref);
  }
  if (m.limited(j, "joint", "limited", "range", cls)) {
    const auto range = m.numbers(j, "joint", "range", cls, 2, 2, {0, 0});
    if (spec.type == "ball") {
      docs.warn(j, "the range of a ball joint (a cone limit) is not imported: the joint turns freely");
    } else {
      spec.limited = true;
      spec.lo = angular ? m.angle(range[0]) : range[0];
      spec.hi = angular ? m.angle(range[1]) : range[1];
      if (!(spec.lo < spec.hi)) docs.fail(j, "attribute 'range': the lower limit must be below the upper one");
    }
  }
  spec.json = {{"name", jname}, {"type", spec.type}};
  for (const auto& [key, scene_key] : {std::pair{"damping", "damping"}, {"armature", "armature"}, {"frictionloss", "friction"}}) {
    const double v = m.number(j, "joint", key, cls, 0.0);
    if (v == 0.0) continue;
    if (spec.type == "ball")
      unsupported.note(j, std::string("ball/") + key, std::string("'") + key + "' of a ball joint is not imported");
    else
      spec.json[scene_key] = v;
  }
  if (m.number(j, "joint", "stiffness", cls, 0.0) != 0.0)
    unsupported.note(j, "joint/stiffness", "joint springs (stiffness, springref) are not imported: the joint has no spring");
}

}  // namespace

int Importer::joints(Model& m, const XMLElement* body_e, const std::vector<const XMLElement*>& js, int childclass,
                     const Place& parent, const std::string& name, const Pose& world) {
  auto is_free = [&](const XMLElement* j) {
    return std::string(j->Name()) == "freejoint" || m.text(j, "joint", "type", m.class_of(j, childclass), "hinge") == "free";
  };
  SimBody body;
  body.name = name;
  body.element = body_e;
  body.pose = world;
  if (std::any_of(js.begin(), js.end(), is_free)) {
    if (js.size() > 1) docs_.fail(body_e, "a free joint must be its body's only joint");
    const XMLElement* j = js[0];
    unsupported_.check(j, std::string(j->Name()) == "freejoint" ? "freejoint" : "joint");
    if (std::string(j->Name()) == "joint") {
      const int cls = m.class_of(j, childclass);
      for (const char* key : {"damping", "armature", "frictionloss", "stiffness"})
        if (m.number(j, "joint", key, cls, 0.0) != 0.0)
          unsupported_.note(j, std::string("free/") + key, std::string("'") + key + "' of a free joint is not imported (the body moves freely)");
    }
    body.parent = parent.sim;
    const int sim = new_body(std::move(body));
    if (const char* jn = j->Attribute("name")) joint_names_[parent.scope(jn)] = {parent.scope(jn), "free"};
    // MuJoCo keeps a body from touching its moving parent
    if (parent.sim >= 0 && !bodies_[parent.sim].fixed) excluded_.push_back({parent.sim, sim});
    return sim;
  }

  const int n = int(js.size());
  const int sim = new_body(std::move(body));
  int previous = parent.sim;
  for (int k = 0; k < n; ++k) {
    const XMLElement* j = js[k];
    const int cls = m.class_of(j, childclass);
    unsupported_.check(j, "joint");
    const std::string type = m.text(j, "joint", "type", cls, "hinge");
    JointSpec spec;
    spec.element = j;
    if (type == "hinge") spec.type = "hinge";
    else if (type == "slide") spec.type = "prismatic";
    else if (type == "ball") spec.type = "ball";
    else docs_.fail(j, "unknown joint type '" + type + "'");
    const std::string jname = parent.scope(j->Attribute("name") ? j->Attribute("name") : name + "_joint" + std::to_string(k));
    if (joint_names_.count(jname)) docs_.fail(j, "the joint name '" + jname + "' is used twice");
    joint_names_[jname] = {jname, spec.type};

    // the joint's moving side: the body itself for the last joint, else a frame of the chain
    int a = sim;
    if (k < n - 1) {
      SimBody frame;
      frame.name = name + "/" + (j->Attribute("name") ? j->Attribute("name") : "joint" + std::to_string(k));
      frame.element = j;
      frame.pose = world;
      frame.parent = previous;
      frame.mass_of = sim;
      a = new_body(std::move(frame));
    } else {
      bodies_[sim].parent = previous;
    }
    spec.a = a;
    spec.b = previous;
    joint_properties(m, docs_, unsupported_, j, cls, jname, spec);
    // MuJoCo lets a body touch its parent when that is welded to the world
    spec.collide = previous >= 0 && bodies_[previous].fixed;
    joints_.push_back(std::move(spec));
    previous = a;
  }
  // the chain's frames hold the body apart from its parent: MuJoCo's parent filter, restated
  if (n > 1 && parent.sim >= 0 && !bodies_[parent.sim].fixed) excluded_.push_back({parent.sim, sim});
  return sim;
}

void Importer::inertial(Model& m, const XMLElement* e, const Place& place) {
  unsupported_.check(e, "inertial");
  if (m.compiler.inertiafromgeom == Compiler::kTrue) {
    unsupported_.note(e, "inertial/ignored", "inertial elements are not read: compiler inertiafromgeom=\"true\" takes mass from the geoms");
    return;
  }
  const Pose local = m.frame(e, "inertial", -1);
  const double mass = m.number(e, "inertial", "mass", -1, -1.0);
  if (!(mass >= 0.0)) docs_.fail(e, "attribute 'mass' (>= 0) is required");
  Mat3 inertia = Mat3::Zero();
  if (auto full = m.numbers(e, "inertial", "fullinertia", -1, 6, 6); !full.empty()) {
    if (e->Attribute("diaginertia")) docs_.fail(e, "both diaginertia and fullinertia");
    inertia << full[0], full[3], full[4], full[3], full[1], full[5], full[4], full[5], full[2];
  } else if (auto diag = m.numbers(e, "inertial", "diaginertia", -1, 3, 3); !diag.empty()) {
    inertia = Vec3(diag[0], diag[1], diag[2]).asDiagonal();
  } else {
    docs_.fail(e, "diaginertia or fullinertia is required");
  }
  const Pose rel = bodies_[place.sim].pose.inverse() * place.body * local;
  const Mat3 r = rel.q.toRotationMatrix();
  place.mass->has_inertial = true;
  place.mass->inertial.add_mass(mass, rel.p, r * inertia * r.transpose());
}

namespace {

// The geom's frame in its body: `fromto` (a capsule's, cylinder's, box's or ellipsoid's axis,
// which also sets its half length in `size`) or the usual frame attributes.
Pose geom_frame(Model& m, Documents& docs, const XMLElement* e, int cls, const std::string& type, std::vector<double>& size) {
  const auto fromto = m.numbers(e, "geom", "fromto", cls, 6, 6);
  if (fromto.empty()) return m.frame(e, "geom", cls);
  if (type != "capsule" && type != "cylinder" && type != "box" && type != "ellipsoid")
    docs.fail(e, "fromto needs a capsule, cylinder, box or ellipsoid");
  const Vec3 from(fromto[0], fromto[1], fromto[2]), to(fromto[3], fromto[4], fromto[5]);
  const double half = (from - to).norm() / 2.0;
  if (half < 1e-14) docs.fail(e, "the fromto points coincide");
  if (type == "box" || type == "ellipsoid") size = {size[0], size[0], half};  // MuJoCo's reading
  else size[1] = half;
  Pose local;
  local.p = (from + to) / 2.0;
  local.q = z_to(from - to);
  return local;
}

// A contact's sliding and torsional friction as MuJoCo's condim allows it; the scene combines
// two bodies' values by their maximum, as MuJoCo combines geoms' (collision.friction_combine
// "max").
std::pair<double, double> geom_friction(Model& m, Documents& docs, Unsupported& unsupported, const XMLElement* e, int cls) {
  const int condim = int(m.number(e, "geom", "condim", cls, 3));
  if (condim != 1 && condim != 3 && condim != 4 && condim != 6) docs.fail(e, "attribute 'condim': expected 1, 3, 4 or 6");
  // sliding, torsional, rolling; numbers left out keep MuJoCo's defaults
  double friction[3] = {1.0, 0.005, 0.0001};
  const auto given = m.numbers(e, "geom", "friction", cls, 1, 3);
  for (std::size_t i = 0; i < given.size(); ++i) friction[i] = given[i];
  if (condim == 6 && friction[2] > 0.0)
    unsupported.note(e, "geom/rolling", "rolling friction (condim 6) is not imported: the scene's contacts have sliding and torsional friction");
  return {condim >= 3 ? friction[0] : 0.0, condim >= 4 ? friction[1] : 0.0};
}

// A mesh geom: the convex hull of its asset's vertices (scaled), as a convex shape, with its
// volume, centre of mass and unit inertia.
Json mesh_shape(Model& m, Documents& docs, const XMLElement* e, int cls, Solid& solid) {
  Json shape;
  const char* mesh_name = m.attr(e, "geom", "mesh", cls);
  if (mesh_name == nullptr) docs.fail(e, "a mesh geom needs 'mesh'");
  auto asset = m.meshes.find(mesh_name);
  if (asset == m.meshes.end()) docs.fail(e, std::string("unknown mesh '") + mesh_name + "'");
  const MeshAsset& mesh = asset->second;
  std::vector<Vec3> points = mesh.vertices;
  if (!mesh.file.empty()) {
    try {
      points = read_mesh(mesh.file, "").vertices;
    } catch (const std::exception& error) {
      docs.fail(mesh.element, error.what());
    }
  }
  for (Vec3& p : points) p = p.cwiseProduct(mesh.scale);
  ConvexHull hull;
  try {
    hull = make_convex_hull(points);
  } catch (const std::exception& error) {
    docs.fail(e, std::string("the mesh's convex hull: ") + error.what());
  }
  std::vector<std::array<int, 3>> triangles;
  for (const auto& face : hull.faces)
    for (std::size_t i = 1; i + 1 < face.size(); ++i) triangles.push_back({face[0], face[i], face[i + 1]});
  const VolumeIntegrals v = volume_integrals(hull.vertices, triangles);
  if (!(v.volume > 0.0)) docs.fail(e, "the mesh's convex hull has no volume");
  solid.volume = v.volume;
  solid.com = v.first / v.volume;
  const Mat3 about_origin = v.second.trace() * Mat3::Identity() - v.second;
  solid.unit_inertia = (about_origin - v.volume * (solid.com.squaredNorm() * Mat3::Identity() - solid.com * solid.com.transpose())) / v.volume;
  if (!mesh.file.empty() && mesh.scale == Vec3::Ones()) {
    shape = {{"type", "convex"}, {"file", fs::absolute(mesh.file).lexically_normal().string()}};
  } else {
    Json vertices = Json::array();
    for (const Vec3& p : hull.vertices) vertices.push_back(vec(p));
    shape = {{"type", "convex"}, {"vertices", vertices}};
  }
  return shape;
}

// A solid geom's shape (sphere, capsule, cylinder, box, mesh) with its volume, centre of mass
// and unit inertia.
Json solid_shape(Model& m, Documents& docs, const XMLElement* e, int cls, const std::string& type,
                 const std::vector<double>& size, Solid& solid) {
  auto positive = [&](std::initializer_list<int> which) {
    for (int i : which)
      if (!(size[std::size_t(i)] > 0.0)) docs.fail(e, "a " + type + " needs a positive size[" + std::to_string(i) + "]");
  };
  Json shape;
  const double r = size[0];
  if (type == "sphere" || (type == "ellipsoid" && size[0] == size[1] && size[1] == size[2])) {
    positive({0});
    shape = {{"type", "sphere"}, {"radius", r}};
    solid.volume = 4.0 / 3.0 * kPi * r * r * r;
    solid.unit_inertia = sphere_inertia(1.0, r);
  } else if (type == "capsule" || type == "cylinder") {
    positive({0, 1});
    const double h = size[1];
    shape = {{"type", type}, {"radius", r}, {"half_height", h}};
    solid.volume = kPi * r * r * 2.0 * h + (type == "capsule" ? 4.0 / 3.0 * kPi * r * r * r : 0.0);
    solid.unit_inertia = type == "capsule" ? capsule_inertia(1.0, r, h) : cylinder_inertia(1.0, r, h);
  } else if (type == "box") {
    positive({0, 1, 2});
    const Vec3 half(size[0], size[1], size[2]);
    shape = {{"type", "box"}, {"half_extents", vec(half)}};
    solid.volume = 8.0 * half.prod();
    solid.unit_inertia = box_inertia(1.0, half);
  } else if (type == "ellipsoid") {
    docs.fail(e, "an ellipsoid with unequal radii is not supported (the scene has no ellipsoid shape)");
  } else if (type == "mesh") {
    shape = mesh_shape(m, docs, e, cls, solid);
  } else {
    docs.fail(e, "geom type '" + type + "' is not supported");
  }
  return shape;
}

}  // namespace

// The colour MuJoCo draws a geom in: its rgba, or its material's where the rgba is the default;
// none for the groups MuJoCo hides by default (3 to 5) and for a transparent one
static std::optional<std::array<double, 4>> geom_color(const Model& m, const XMLElement* e, int cls, int group) {
  if (group < 0 || group > 2) return std::nullopt;
  const std::vector<double> grey = {0.5, 0.5, 0.5, 1.0};
  std::vector<double> rgba = m.numbers(e, "geom", "rgba", cls, 4, 4, grey);
  if (const char* name = m.attr(e, "geom", "material", cls); name != nullptr && rgba == grey) {
    const auto it = m.materials.find(name);
    if (it == m.materials.end()) m.docs.fail(e, std::string("unknown material '") + name + "'");
    rgba.assign(it->second.begin(), it->second.end());
  }
  std::array<double, 4> color{};
  for (std::size_t i = 0; i < 4; ++i) color[i] = std::clamp(rgba[i], 0.0, 1.0);
  if (!(color[3] > 0.0)) return std::nullopt;
  return color;
}

void Importer::geom(Model& m, const XMLElement* e, const Place& place) {
  const int cls = m.class_of(e, place.childclass);
  unsupported_.check(e, "geom");
  const std::string type = m.text(e, "geom", "type", cls, "sphere");
  auto size = m.numbers(e, "geom", "size", cls, 1, 3, {0, 0, 0});
  size.resize(3, 0.0);
  const Pose world = place.body * place.frame * geom_frame(m, docs_, e, cls, type, size);
  const bool moving = place.sim >= 0 && !bodies_[place.sim].fixed;

  const unsigned contype = unsigned(m.number(e, "geom", "contype", cls, 1));
  const unsigned conaffinity = unsigned(m.number(e, "geom", "conaffinity", cls, 1));
  const bool visual = contype == 0 && conaffinity == 0;
  if (visual && m.compiler.discardvisual) return;
  const int group = int(m.number(e, "geom", "group", cls, 0));
  const std::optional<std::array<double, 4>> color = geom_color(m, e, cls, group);
  const auto [mu, torsion] = geom_friction(m, docs_, unsupported_, e, cls);

  if (type == "plane") {
    if (moving) docs_.fail(e, "a plane belongs to the world or a body welded to it");
    const Vec3 normal = world.rotate(Vec3::UnitZ());
    Json plane = {{"type", "plane"}, {"normal", vec(normal)}, {"offset", normal.dot(world.p)}};
    SimBody b;
    b.name = e->Attribute("name") ? place.scope(e->Attribute("name")) : "plane" + std::to_string(++unnamed_);
    b.element = e;
    b.fixed = true;
    b.geoms.push_back({plane, Pose{}, builder_.material(mu, torsion)});
    b.geom_friction = {mu, torsion};
    b.contype = contype;
    b.conaffinity = conaffinity;
    if (!visual) new_body(std::move(b)), has_plane_ = true;
    return;
  }
  Solid solid;
  const Json shape = solid_shape(m, docs_, e, cls, type, size, solid);

  // mass: MuJoCo counts every geom of the inertia groups, visual ones too
  if (place.mass != nullptr && group >= m.compiler.group_lo && group <= m.compiler.group_hi) {
    double mass = m.number(e, "geom", "mass", cls, -1.0);
    if (mass < 0.0) mass = m.number(e, "geom", "density", cls, 1000.0) * solid.volume;
    const Pose rel = bodies_[place.sim].pose.inverse() * world;
    const Mat3 rot = rel.q.toRotationMatrix();
    place.mass->geoms.add_mass(mass, rel.apply(solid.com), rot * (mass * solid.unit_inertia) * rot.transpose());
  }
  if (visual) {
    // drawn by the viewer only: a mesh as it is, not its hull (a geom of the world is not drawn)
    if (color && place.sim >= 0) {
      Visual v{shape, -1, bodies_[place.sim].pose.inverse() * world, color};
      if (const MeshAsset* mesh = type == "mesh" ? &m.meshes.at(m.attr(e, "geom", "mesh", cls)) : nullptr;
          mesh != nullptr && !mesh->file.empty()) {
        v.shape = {{"type", "mesh"}, {"file", fs::absolute(mesh->file).lexically_normal().string()}};
        if (mesh->scale != Vec3::Ones()) v.shape["scale"] = vec(mesh->scale);
      }
      bodies_[place.sim].visuals.push_back(std::move(v));
    }
    return;
  }

  const std::string material = builder_.material(mu, torsion);
  if (place.sim < 0) {
    // a geom of the world: a fixed body of its own
    SimBody b;
    b.name = e->Attribute("name") ? place.scope(e->Attribute("name")) : "world_" + type + std::to_string(++unnamed_);
    b.element = e;
    b.fixed = true;
    b.pose = world;
    b.geoms.push_back({shape, Pose{}, material});
    if (color) b.visuals.push_back({{}, 0, Pose{}, color});
    b.geom_friction = {mu, torsion};
    b.contype = contype;
    b.conaffinity = conaffinity;
    new_body(std::move(b));
    return;
  }
  SimBody& b = bodies_[place.sim];
  if (!b.geom_friction.empty()) {
    if (b.contype != contype || b.conaffinity != conaffinity)
      unsupported_.note(e, "geom/bits", "geoms of one body with different contype/conaffinity: the body collides with the union of their bits");
    if (b.geom_friction[0] != mu || b.geom_friction[1] != torsion)
      unsupported_.note(e, "geom/friction", "geoms of one body with different friction: the body has its first geom's");
  } else {
    b.geom_friction = {mu, torsion};
  }
  b.contype |= contype;
  b.conaffinity |= conaffinity;
  b.geoms.push_back({shape, b.pose.inverse() * world, material});
  if (color) b.visuals.push_back({{}, int(b.geoms.size()) - 1, Pose{}, color});
}

void Importer::check_global(Model& m) {
  if (!m.compiler.global) return;
  // global coordinates read as local ones where every body frame is the world frame
  auto scan = [&](auto&& self, const XMLElement* parent) -> void {
    for (const XMLElement* c : docs_.children(parent)) {
      const std::string tag = c->Name();
      if (tag != "body" && tag != "frame" && tag != "replicate" && tag != "attach") continue;
      for (const char* a : {"pos", "quat", "axisangle", "euler", "xyaxes", "zaxis"})
        if (c->Attribute(a))
          docs_.fail(c, std::string("compiler coordinate=\"global\" (removed in MuJoCo 2.3.3) is read only where no body "
                                    "frame differs from the world's, and this one has '") + a + "'");
      if (tag != "body" && tag != "frame") docs_.fail(c, "compiler coordinate=\"global\" with <" + tag + ">");
      self(self, c);
    }
  };
  for (const XMLElement* world : m.sections("worldbody")) scan(scan, world);
  for (const XMLElement* c : m.sections("compiler"))
    if (c->Attribute("coordinate")) {
      docs_.warn(c, "coordinate=\"global\" (removed in MuJoCo 2.3.3) is read as local: every body frame here is the world frame, so the two agree");
      break;
    }
}

}  // namespace coulomb::import_detail::mjcf
