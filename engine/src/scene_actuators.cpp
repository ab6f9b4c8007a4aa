// The `actuators` section of a scene (scenes/README.md "Actuators"), and the joints' `drive`
// schedules, which become position servos: every actuator of a run is in SceneDef::actuators.
#include "scene_soft.h"

#include <coulomb/error.h>

#include <cmath>
#include <limits>
#include <string_view>
#include <unordered_map>

namespace coulomb {

const char* actuator_type_name(ActuatorType t) {
  switch (t) {
    case ActuatorType::Effort: return "effort";
    case ActuatorType::Velocity: return "velocity";
    case ActuatorType::Position: return "position";
  }
  return "?";
}

namespace detail {

namespace {

// [[t, value], ...] with increasing times within the time limit and values in `values`
std::vector<std::pair<double, double>> parse_schedule(const Json& j, const std::string& ptr, const Range& values) {
  if (!j.is_array() || j.empty()) throw InputError(ptr, "expected a non-empty array of [time, value] points");
  std::vector<std::pair<double, double>> out;
  double last = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < j.size(); ++i) {
    const Json& p = j[i];
    const std::string pp = ptr + "/" + std::to_string(i);
    if (!p.is_array() || p.size() != 2 || !p[0].is_number() || !p[1].is_number()) throw InputError(pp, "expected [time, value]");
    const double t = as_number(p[0], pp + "/0", Range::within(SceneLimits::kTime, "s"));
    const double v = as_number(p[1], pp + "/1", values);
    if (!(t > last)) throw InputError(pp, "times must increase");
    last = t;
    out.emplace_back(t, v);
  }
  return out;
}

}  // namespace

std::vector<std::pair<double, double>> parse_time_schedule(const Json& j, const std::string& pointer, Range values) {
  return parse_schedule(j, pointer, values);
}

void parse_actuators(ObjectReader& top, SceneDef& scene) {
  std::unordered_map<std::string, std::string> names;  // actuator name -> its pointer
  std::vector<std::string> driven(scene.joints.size());  // the pointer of each joint's drive or servo
  const auto add = [&](ActuatorDef a, const std::string& name_ptr) {
    auto [it, fresh] = names.emplace(a.name, a.pointer);
    if (!fresh) throw InputError(name_ptr, "duplicate actuator name '" + a.name + "' (also used by " + it->second + ")");
    if (a.type != ActuatorType::Effort) {
      std::string& owner = driven[std::size_t(a.joint)];
      if (!owner.empty())
        throw InputError(a.pointer, "joint '" + scene.joints[std::size_t(a.joint)].name +
                                        "' already has a position or velocity actuator (" + owner +
                                        "): a joint takes one, beside any number of effort actuators");
      owner = a.pointer;
    }
    scene.actuators.push_back(std::move(a));
  };
  if (const Json* j = top.find("actuators")) {
    as_array(*j, "/actuators");
    static constexpr std::string_view kTypes[] = {"effort", "velocity", "position"};
    for (std::size_t k = 0; k < j->size(); ++k) {
      ObjectReader r((*j)[k], child_pointer("/actuators", k));
      ActuatorDef a;
      a.pointer = r.pointer();
      a.name = r.required_string("name");
      if (a.name.empty()) throw InputError(r.pointer_of("name"), "an actuator needs a non-empty name");
      a.type = ActuatorType(r.required_choice("type", kTypes));
      const std::string joint = r.required_string("joint");
      for (std::size_t i = 0; i < scene.joints.size(); ++i)
        if (scene.joints[i].name == joint) a.joint = int(i);
      if (a.joint < 0) throw InputError(r.pointer_of("joint"), "no joint is named '" + joint + "'");
      const JointType jt = scene.joints[std::size_t(a.joint)].type;
      if (jt != JointType::Hinge && jt != JointType::Prismatic)
        throw InputError(r.pointer_of("joint"), "joint '" + joint + "' is a " + joint_type_name(jt) +
                                                    " joint: actuators drive hinge and prismatic joints");
      using L = SceneLimits;
      // MuJoCo's joint transmission: length gear * q, the joint gets gear * F
      a.gear = r.number("gear", 1.0, Range::within(L::kCoefficient, "a ratio"));
      if (a.gear == 0.0) throw InputError(r.pointer_of("gear"), "a gear of 0 transmits nothing: expected a non-zero ratio");
      a.max_effort = r.number("max_effort", kInfinity, Range::positive().capped(L::kForce, "N or N m"));
      if (a.type == ActuatorType::Position) {
        a.stiffness = r.number("stiffness", kInfinity, Range::non_negative().capped(L::kStiffness, "N/m or N m/rad"));
        a.damping = r.number("damping", 0.0, Range::non_negative().capped(L::kStiffness, "N s/m or N m s/rad"));
        if (a.stiffness == 0.0 && a.damping == 0.0)
          throw InputError(r.pointer_of("stiffness"), "a position servo with no stiffness and no damping does nothing");
      } else if (a.type == ActuatorType::Velocity) {  // F = damping (command - l'); none: a rigid motor
        a.damping = r.number("damping", 0.0, Range::positive().capped(L::kStiffness, "N s/m or N m s/rad"));
      }
      a.max_velocity = r.number("max_velocity", kInfinity, Range::positive().capped(L::kSpeed, "rad/s or m/s"));
      // the command by type: an effort, a velocity or a position (rad or m)
      const Range command = a.type == ActuatorType::Effort     ? Range::within(L::kForce, "N or N m")
                            : a.type == ActuatorType::Velocity ? Range::within(L::kSpeed, "m/s or rad/s")
                                                               : Range::within(L::kLength, "m or rad");
      if (const Json* cr = r.find("ctrl_range")) {
        const std::string ptr = r.pointer_of("ctrl_range");
        if (!cr->is_array() || cr->size() != 2) throw InputError(ptr, "expected [lo, hi], two numbers");
        a.ctrl_lo = as_number((*cr)[0], child_pointer(ptr, 0), command);
        a.ctrl_hi = as_number((*cr)[1], child_pointer(ptr, 1), command);
        if (!(a.ctrl_lo < a.ctrl_hi)) throw InputError(ptr, "expected lo < hi");
      }
      a.command = r.number("command", 0.0, command);
      if (const Json* s = r.find("schedule")) a.schedule = parse_schedule(*s, r.pointer_of("schedule"), command);
      r.finish();
      add(std::move(a), r.pointer_of("name"));
    }
  }
  // every joint drive is a position servo named after its joint
  for (std::size_t i = 0; i < scene.joints.size(); ++i) {
    const JointDef& d = scene.joints[i];
    if (d.drive.empty()) continue;
    ActuatorDef a;
    a.name = d.name;
    a.type = ActuatorType::Position;
    a.joint = int(i);
    a.stiffness = d.drive_compliance > 0.0 ? 1.0 / d.drive_compliance : kInfinity;
    a.schedule = d.drive;
    a.pointer = "/joints/" + std::to_string(i) + "/drive";
    add(std::move(a), a.pointer);
  }
}

}  // namespace detail
}  // namespace coulomb
