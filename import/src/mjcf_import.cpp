// MJCF import (import/README.md, "MJCF"): the model's sections in order, actuators, contact
// exclusions and equality constraints, the pose at load, and the scene document (mjcf.h).
#include "mjcf.h"

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>

namespace coulomb {

namespace import_detail::mjcf {

namespace {

Json vec(const Vec3& v) { return Json::array({v.x(), v.y(), v.z()}); }

// MuJoCo's smallest mass and inertia of a moving body (mjMINVAL)
constexpr double kMinimum = 1e-15;

// the default solver of an imported scene: seed 003's non-smooth Newton, the one solver that
// keeps joint trees with light links between heavy ones (a humanoid's hips, the frame bodies
// between a body's joints) together; the velocity-level solvers tear them
constexpr const char* kDefaultSolver = "newton-pcr";

// how far below z = 0 a model may reach and still get a ground plane (unit: m)
constexpr double kGroundTolerance = 1e-9;

std::string show(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

Importer::Importer(const fs::path& file, const ImportOptions& options)
    : file_(file), options_(options), diag_(file, options.strict), docs_(diag_), unsupported_(docs_), builder_(diag_) {}

ImportResult Importer::run() {
  main_ = std::make_unique<Model>(docs_, unsupported_, file_, nullptr);
  Model& m = *main_;
  check_global(m);
  option(m);
  // every top-level section: read here, or reported
  static const std::set<std::string> read = {"compiler", "default", "asset", "option", "worldbody", "actuator", "contact", "equality"};
  auto report_sections = [&](Model& model) {
    for (const XMLElement* s : docs_.children(model.root)) {
      const std::string tag = s->Name();
      if (read.count(tag)) continue;
      std::string why = "is not imported";
      if (tag == "sensor" || tag == "keyframe" || tag == "tendon" || tag == "custom" || tag == "extension" || tag == "deformable")
        why = "is not imported (the scene format has no counterpart)";
      else if (tag == "visual" || tag == "statistic" || tag == "size")
        why = "is not imported (it sets MuJoCo's viewer or memory, not the mechanics)";
      unsupported_.note(s, "section/" + tag, "section <" + tag + "> " + why);
    }
  };
  report_sections(m);
  Place world;
  for (const XMLElement* w : m.sections("worldbody")) content(m, w, world);
  actuators(m, Scope{}, false);
  contact(m, Scope{}, false);
  equality(m, Scope{}, false);
  std::set<const Model*> reported;
  for (auto& [model, scope] : attached_) {
    if (reported.insert(model).second) report_sections(*model);
    actuators(*model, scope, true);
    contact(*model, scope, true);
    equality(*model, scope, true);
  }
  pose_into_limits();
  emit();
  unsupported_.report();

  ImportResult result;
  const std::string model_name = m.root->Attribute("model") ? m.root->Attribute("model") : file_.stem().string();
  settings_["name"] = model_name;
  settings_["description"] = "imported from " + file_.filename().string() + " (MJCF)";
  // a ground plane where the model has none and lies above z = 0 (hopper, ant); a model that
  // reaches below it (a cart on a rail at z = 0) was built without a floor and gets none
  bool ground = options_.ground && !has_plane_;
  if (ground) {
    const double lowest = builder_.lowest_moving_point();
    if (lowest < -kGroundTolerance) {
      ground = false;
      const tinyxml2::XMLElement* world = m.root->FirstChildElement("worldbody");
      diag_.warn(world ? world->GetLineNum() : 0, "worldbody", "no ground plane added: the model has no plane and reaches z = " + show(lowest) +
                                     " m, below the plane z = 0 (add a plane to the model if it needs a floor)");
    }
  }
  result.scene = builder_.scene(settings_, ground);
  result.warnings = diag_.take();
  const fs::path main_file = m.file;
  std::stable_sort(result.warnings.begin(), result.warnings.end(), [&](const ImportWarning& a, const ImportWarning& b) {
    const bool a_main = a.file == main_file, b_main = b.file == main_file;
    if (a_main != b_main) return a_main;
    if (a.file != b.file) return a.file < b.file;
    return a.line < b.line;
  });
  return result;
}

void Importer::option(Model& m) {
  double dt = 0.002;
  Vec3 gravity(0, 0, -9.81);
  for (const XMLElement* o : m.sections("option")) {
    for (const tinyxml2::XMLAttribute* a = o->FirstAttribute(); a != nullptr; a = a->Next()) {
      const std::string name = a->Name();
      if (name == "timestep") {
        const auto v = m.numbers(o, "option", "timestep", -1, 1, 1);
        if (!(v[0] > 0.0)) docs_.fail(o, "attribute 'timestep' must be positive");
        dt = v[0];
      } else if (name == "gravity") {
        const auto v = m.numbers(o, "option", "gravity", -1, 3, 3);
        gravity = Vec3(v[0], v[1], v[2]);
      } else {
        unsupported_.note(o, "option/" + name, "attribute '" + name + "' is not imported (the scene's solver and integrator are coulomb's own)");
      }
    }
    for (const XMLElement* c : docs_.children(o))
      unsupported_.note(c, std::string("option/") + c->Name(), std::string("<") + c->Name() + "> is not imported");
  }
  settings_["gravity"] = vec(gravity);
  settings_["time"] = {{"dt", options_.dt.value_or(dt)}, {"duration", options_.duration.value_or(5.0)}};
  settings_["solver"] = {{"type", options_.solver.value_or(kDefaultSolver)}};
  // MuJoCo takes the larger friction of two geoms, and does not refuse overlaps at the start
  settings_["collision"] = {{"friction_combine", "max"}, {"initial_overlap", "warn"}};
}

const BodyRef* Importer::find_body(const XMLElement* e, const std::string& name, bool attached, bool required) {
  static const BodyRef world{-1, Pose{}};
  if (name == "world") return &world;
  auto it = body_names_.find(name);
  if (it != body_names_.end()) return &it->second;
  if (attached || !required) return nullptr;
  docs_.fail(e, "unknown body '" + name + "'");
}

void Importer::actuators(Model& m, const Scope& scope, bool attached) {
  int index = 0;
  for (const XMLElement* section : m.sections("actuator")) {
    for (const XMLElement* c : docs_.children(section)) {
      ++index;
      const std::string tag = c->Name();
      if (tag != "motor" && tag != "position" && tag != "velocity" && tag != "general")
        docs_.fail(c, "actuator <" + tag + "> is not supported (motor, position, velocity and general are)");
      const int cls = m.class_of(c, 0);
      unsupported_.check(c, "actuator");
      for (const char* t : {"tendon", "site", "body", "cranksite"})
        if (c->Attribute(t)) docs_.fail(c, std::string("a ") + t + " transmission is not supported (only joint ones are)");
      const char* joint = c->Attribute("joint") ? c->Attribute("joint") : c->Attribute("jointinparent");
      if (joint == nullptr) docs_.fail(c, "attribute 'joint' is required");
      auto target = joint_names_.find(scope(joint));
      if (target == joint_names_.end()) {
        if (attached) {
          docs_.warn(c, std::string("joint '") + joint + "' is not in the attached subtree: the actuator is left out");
          continue;
        }
        docs_.fail(c, std::string("unknown joint '") + joint + "'");
      }
      if (target->second.type != "hinge" && target->second.type != "prismatic")
        docs_.fail(c, "an actuator on a " + target->second.type + " joint is not supported (only hinge and slide joints)");
      const std::string kind = "actuator";
      double gear = m.numbers(c, kind, "gear", cls, 1, 6, {1.0})[0];
      Json a = {{"name", scope(c->Attribute("name") ? c->Attribute("name") : "actuator" + std::to_string(index))},
                {"joint", target->second.name}};
      double force_scale = 1.0;  // the effort bound in the scene's command units
      if (tag == "motor") {
        a["type"] = "effort";
      } else if (tag == "position") {
        a["type"] = "position";
        a["stiffness"] = m.number(c, kind, "kp", cls, 1.0);
        if (const double kv = m.number(c, kind, "kv", cls, 0.0); kv != 0.0) a["damping"] = kv;
      } else if (tag == "velocity") {
        a["type"] = "velocity";
        a["damping"] = m.number(c, kind, "kv", cls, 1.0);
      } else {
        const std::string dyn = m.text(c, kind, "dyntype", cls, "none");
        const std::string gain = m.text(c, kind, "gaintype", cls, "fixed");
        const std::string bias = m.text(c, kind, "biastype", cls, "none");
        if (dyn != "none") docs_.fail(c, "dyntype '" + dyn + "' is not supported (actuator dynamics)");
        if (gain != "fixed") docs_.fail(c, "gaintype '" + gain + "' is not supported");
        auto gainprm = m.numbers(c, kind, "gainprm", cls, 1, 10, {1.0});
        auto biasprm = m.numbers(c, kind, "biasprm", cls, 1, 10, {0.0});
        biasprm.resize(3, 0.0);
        const double g = gainprm[0];
        if (bias == "none") {
          if (g == 0.0) docs_.fail(c, "gainprm[0] is 0: the actuator does nothing");
          a["type"] = "effort";
          gear *= g;  // the scene's command is MuJoCo's ctrl: effort = gear gain ctrl
          force_scale = 1.0 / std::abs(g);
        } else if (bias == "affine" && biasprm[0] == 0.0 && g > 0.0 && biasprm[1] == -g && biasprm[2] <= 0.0) {
          a["type"] = "position";
          a["stiffness"] = g;
          if (biasprm[2] != 0.0) a["damping"] = -biasprm[2];
        } else if (bias == "affine" && biasprm[0] == 0.0 && biasprm[1] == 0.0 && g > 0.0 && biasprm[2] == -g) {
          a["type"] = "velocity";
          a["damping"] = g;
        } else {
          docs_.fail(c, "this general actuator (biastype '" + bias +
                            "') is neither a motor, a position servo (biasprm 0 -kp -kv, gainprm kp) nor a velocity servo (biasprm 0 0 -kv, gainprm kv)");
        }
      }
      if (gear != 1.0) a["gear"] = gear;
      if (m.limited(c, kind, "ctrllimited", "ctrlrange", cls)) {
        const auto r = m.numbers(c, kind, "ctrlrange", cls, 2, 2, {0, 0});
        if (!(r[0] < r[1])) docs_.fail(c, "attribute 'ctrlrange': the lower bound must be below the upper one");
        a["ctrl_range"] = {r[0], r[1]};
      }
      if (m.limited(c, kind, "forcelimited", "forcerange", cls)) {
        const auto r = m.numbers(c, kind, "forcerange", cls, 2, 2, {0, 0});
        if (!(r[0] < r[1])) docs_.fail(c, "attribute 'forcerange': the lower bound must be below the upper one");
        if (r[0] != -r[1])
          docs_.warn(c, "forcerange [" + show(r[0]) + ", " + show(r[1]) + "] is not symmetric: the scene bounds the effort by " +
                            show(std::max(std::abs(r[0]), std::abs(r[1]))) + " both ways");
        a["max_effort"] = std::max(std::abs(r[0]), std::abs(r[1])) * force_scale;
      }
      builder_.add_actuator(std::move(a));
    }
  }
}

void Importer::contact(Model& m, const Scope& scope, bool attached) {
  for (const XMLElement* section : m.sections("contact")) {
    for (const XMLElement* c : docs_.children(section)) {
      const std::string tag = c->Name();
      if (tag == "pair") {
        unsupported_.note(c, "contact/pair", "explicit contact pairs are not imported: bodies collide by their contype and conaffinity");
        continue;
      }
      if (tag != "exclude") {
        unsupported_.note(c, "contact/" + tag, "<" + tag + "> is not imported");
        continue;
      }
      unsupported_.check(c, "exclude");
      const char* n1 = c->Attribute("body1");
      const char* n2 = c->Attribute("body2");
      if (n1 == nullptr || n2 == nullptr) docs_.fail(c, "attributes 'body1' and 'body2' are required");
      const BodyRef* b1 = find_body(c, scope(n1), attached, true);
      const BodyRef* b2 = find_body(c, scope(n2), attached, true);
      if (b1 == nullptr || b2 == nullptr) {
        docs_.warn(c, "a body is not in the attached subtree: the exclusion is left out");
        continue;
      }
      if (b1->sim == b2->sim) continue;  // one scene body: nothing to exclude
      if (b1->sim >= 0 && b2->sim >= 0) {
        excluded_.push_back({b1->sim, b2->sim});
        continue;
      }
      // the world: every fixed body of the worldbody's own geoms
      const int other = b1->sim >= 0 ? b1->sim : b2->sim;
      for (int i = 0; i < int(bodies_.size()); ++i)
        if (bodies_[i].fixed && bodies_[i].element && std::string(bodies_[i].element->Name()) == "geom" && other >= 0)
          excluded_.push_back({other, i});
    }
  }
}

void Importer::equality(Model& m, const Scope& scope, bool attached) {
  int index = 0;
  for (const XMLElement* section : m.sections("equality")) {
    for (const XMLElement* c : docs_.children(section)) {
      ++index;
      const std::string tag = c->Name();
      if (tag != "connect" && tag != "weld") {
        unsupported_.note(c, "equality/" + tag, "<" + tag + "> equality constraints are not imported");
        continue;
      }
      const int cls = m.class_of(c, 0);
      unsupported_.check(c, tag);
      if (!m.flag(c, "equality", "active", cls, true)) {
        docs_.warn(c, "an inactive constraint (active=\"false\") is not imported");
        continue;
      }
      if (c->Attribute("site1") || c->Attribute("site2")) docs_.fail(c, "a constraint between sites is not supported (name body1 and body2)");
      const char* n1 = c->Attribute("body1");
      if (n1 == nullptr) docs_.fail(c, "attribute 'body1' is required");
      const std::string name2 = c->Attribute("body2") ? scope(c->Attribute("body2")) : "world";
      const BodyRef* r1 = find_body(c, scope(n1), attached, true);
      const BodyRef* r2 = find_body(c, name2, attached, true);
      if (r1 == nullptr || r2 == nullptr) {
        docs_.warn(c, "a body is not in the attached subtree: the constraint is left out");
        continue;
      }
      JointSpec spec;
      spec.element = c;
      spec.collide = true;  // MuJoCo's equality constraints leave contacts alone
      const bool fixed1 = r1->sim < 0 || bodies_[r1->sim].fixed, fixed2 = r2->sim < 0 || bodies_[r2->sim].fixed;
      if (r1->sim == r2->sim || (fixed1 && fixed2)) {
        docs_.warn(c, "the two bodies are welded together (or both to the world) already: the constraint is left out");
        continue;
      }
      // the scene's joint side a must move
      const bool swap = fixed1;
      const BodyRef& a = swap ? *r2 : *r1;
      const BodyRef& b = swap ? *r1 : *r2;
      spec.a = a.sim;
      spec.b = b.sim;
      const std::string name = scope(c->Attribute("name") ? c->Attribute("name") : tag + std::to_string(index));
      if (tag == "connect") {
        const auto anchor = m.numbers(c, "equality", "anchor", -1, 3, 3);
        if (anchor.empty()) docs_.fail(c, "attribute 'anchor' is required");
        // the anchor is given in body1's frame
        const Pose body1 = (r1->sim < 0 ? Pose{} : bodies_[r1->sim].pose) * r1->in_sim;
        const Vec3 world = body1.apply(Vec3(anchor[0], anchor[1], anchor[2]));
        spec.anchor = bodies_[a.sim].pose.apply_inverse(world);
        spec.type = "ball";
      } else {
        spec.type = "fixed";
        spec.anchor = Vec3::Zero();
        const auto rel = m.numbers(c, "equality", "relpose", -1, 7, 7, {0, 1, 0, 0, 0, 0, 0});
        if (Vec4(rel[3], rel[4], rel[5], rel[6]).norm() > 0.0) {
          const Pose p1 = (r1->sim < 0 ? Pose{} : bodies_[r1->sim].pose) * r1->in_sim;
          const Pose p2 = (r2->sim < 0 ? Pose{} : bodies_[r2->sim].pose) * r2->in_sim;
          const Pose now = p1.inverse() * p2;
          const Quat q = Quat(rel[3], rel[4], rel[5], rel[6]).normalized();
          if ((now.p - Vec3(rel[0], rel[1], rel[2])).norm() > 1e-9 || now.q.angularDistance(q) > 1e-9)
            docs_.warn(c, "relpose differs from the bodies' pose at load: the weld holds the pose at load");
        }
      }
      spec.json = {{"name", name}, {"type", spec.type}};
      joints_.push_back(std::move(spec));
    }
  }
}

void Importer::pose_into_limits() {
  // MuJoCo starts a joint at ref even outside its range, and its limit pushes it in over the
  // first steps; the scene needs every joint within its limits at load, so the model is posed
  // at the nearer limit: the joint's moving side and everything hanging from it turn (or slide)
  for (JointSpec& j : joints_) {
    if (!j.limited || (j.ref >= j.lo && j.ref <= j.hi)) continue;
    const double q = std::clamp(j.ref, j.lo, j.hi), delta = q - j.ref;
    const bool hinge = j.type == "hinge";
    const double k = hinge ? 180.0 / std::numbers::pi : 1.0;
    docs_.warn(j.element, "ref " + show(j.ref * k) + (hinge ? " deg" : " m") + " lies outside the range [" + show(j.lo * k) +
                              ", " + show(j.hi * k) + "]: the model is posed at " + show(q * k) +
                              " (MuJoCo's limit pushes it there in its first steps)");
    const Pose& a = bodies_[j.a].pose;
    const Vec3 anchor = a.apply(j.anchor), axis = a.rotate(j.axis);
    Pose turn;
    if (hinge) {
      turn.q = Quat(Eigen::AngleAxisd(delta, axis));
      turn.p = anchor - turn.q * anchor;
    } else {
      turn.p = delta * axis;
    }
    for (SimBody& b : bodies_) {
      int i = int(&b - bodies_.data());
      while (i >= 0 && i != j.a) i = bodies_[i].parent;
      if (i == j.a) b.pose = turn * b.pose;
    }
    j.ref = q;
  }
}

void Importer::emit() {
  const Compiler& compiler = main_->compiler;
  if (compiler.settotalmass > 0.0) {
    double total = 0.0;
    for (const SimBody& b : bodies_)
      if (!b.fixed) total += b.mass;
    if (total > 0.0)
      for (SimBody& b : bodies_) {
        const double s = compiler.settotalmass / total;
        b.mass *= s, b.first *= s, b.inertia *= s;
      }
  }
  std::vector<std::string> names(bodies_.size());
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const SimBody& b = bodies_[i];
    BodySpec spec;
    spec.name = b.name;
    spec.pose = b.pose;
    spec.geoms = b.geoms;
    spec.visuals = b.visuals;
    spec.fixed = b.fixed;
    spec.line = b.element ? b.element->GetLineNum() : 0;
    if (!b.geoms.empty()) spec.contype = b.contype, spec.conaffinity = b.conaffinity;
    if (!b.fixed) {
      const SimBody& source = b.mass_of >= 0 ? bodies_[b.mass_of] : b;
      const double scale = b.mass_of >= 0 ? kChainMassFraction : 1.0;
      Inertial in;
      in.mass = source.mass * scale;
      if (in.mass < kMinimum || !std::isfinite(in.mass))
        docs_.fail(b.element, "mass and inertia of moving bodies must be larger than " + show(kMinimum) +
                                  " (MuJoCo's mjMINVAL): give the body geoms with volume, or an inertial");
      in.com = source.first / source.mass;
      in.inertia = (source.inertia - source.mass * (in.com.squaredNorm() * Mat3::Identity() - in.com * in.com.transpose())) * scale;
      in.mass = std::max(in.mass, compiler.boundmass);
      for (int k = 0; k < 3; ++k) in.inertia(k, k) = std::max(in.inertia(k, k), compiler.boundinertia);
      const Vec3 moments = Eigen::SelfAdjointEigenSolver<Mat3>(in.inertia, Eigen::EigenvaluesOnly).eigenvalues();
      if (moments.minCoeff() < kMinimum)
        docs_.fail(b.element, "mass and inertia of moving bodies must be larger than " + show(kMinimum) +
                                  " (MuJoCo's mjMINVAL): its inertia has a principal moment of " + show(moments.minCoeff()));
      if (moments[0] + moments[1] < moments[2] * (1.0 - 1e-9)) {
        if (!compiler.balanceinertia)
          docs_.fail(b.element, "the inertia's principal moments break A + B >= C (compiler balanceinertia=\"true\" evens them)");
        balance_inertia(in.inertia);
      }
      spec.inertial = in;
    }
    names[i] = builder_.add_body(std::move(spec));
  }
  for (const JointSpec& j : joints_) {
    Json joint = j.json;
    joint["a"] = names[j.a];
    joint["b"] = j.b < 0 ? Json(nullptr) : Json(names[j.b]);
    const Pose& a = bodies_[j.a].pose;
    joint["anchor"] = vec(a.apply(j.anchor));
    if (j.type == "hinge" || j.type == "prismatic") {
      joint["axis"] = vec(a.rotate(j.axis));
      if (j.limited) joint["limits"] = {j.lo, j.hi};
      if (j.ref != 0.0) joint["position"] = j.ref;
    }
    if (j.collide) joint["collide"] = true;
    builder_.add_joint(std::move(joint));
  }
  std::set<std::pair<int, int>> done;
  for (auto [a, b] : excluded_) {
    if (a > b) std::swap(a, b);
    if (a != b && done.insert({a, b}).second) builder_.exclude(names[a], names[b]);
  }
}

}  // namespace import_detail::mjcf

ImportResult import_mjcf(const std::filesystem::path& file, const ImportOptions& options) {
  return import_detail::mjcf::Importer(file, options).run();
}

}  // namespace coulomb
