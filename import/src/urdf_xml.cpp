// The XML pass over a URDF file: see urdf_xml.h.
#include "urdf_xml.h"

#include <tinyxml2.h>

#include <fstream>
#include <set>
#include <sstream>

namespace coulomb::import_detail {

namespace {

using tinyxml2::XMLElement;

// Largest URDF file read (a guard against /dev/zero or a wrong file), as for scene files.
constexpr std::uintmax_t kMaxUrdfBytes = std::uintmax_t(256) << 20;

std::string read_text(const std::filesystem::path& file, Diagnostics& diag) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) diag.fail(0, "robot", "no such file");
  if (!std::filesystem::is_regular_file(file, ec)) diag.fail(0, "robot", "not a regular file");
  if (std::filesystem::file_size(file, ec) > kMaxUrdfBytes)
    diag.fail(0, "robot", "larger than 256 MiB: not a URDF file");
  std::ifstream in(file, std::ios::binary);
  if (!in) diag.fail(0, "robot", "cannot be opened for reading");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string name_of(const XMLElement* e) {
  const char* n = e->Attribute("name");
  return n ? n : "";
}

// Children of `e` outside `known` (and outside `ignored`, which are warned about by the caller)
// each become a warning "WHAT: <child> is not imported".
void warn_unknown_children(const XMLElement* e, const std::set<std::string>& known, const std::string& what,
                           Diagnostics& diag) {
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement())
    if (!known.count(c->Name()))
      diag.warn(c->GetLineNum(), what, std::string("<") + c->Name() + "> is not a URDF element this importer knows: ignored");
}

void scan_link(const XMLElement* e, UrdfXml& xml, bool& texture_warned, Diagnostics& diag) {
  const std::string name = name_of(e);
  UrdfLinkXml& link = xml.links[name];
  link.line = e->GetLineNum();
  xml.link_order.push_back(name);
  const std::string what = "link '" + name + "'";
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "collision") {
      link.collision_lines.push_back(c->GetLineNum());
      warn_unknown_children(c, {"origin", "geometry"}, what + " collision", diag);
    } else if (tag == "inertial") {
      link.inertial_line = c->GetLineNum();
      warn_unknown_children(c, {"origin", "mass", "inertia"}, what + " inertial", diag);
    } else if (tag == "visual") {
      link.visual_lines.push_back(c->GetLineNum());
      warn_unknown_children(c, {"origin", "geometry", "material"}, what + " visual", diag);
      const XMLElement* material = c->FirstChildElement("material");
      if (material && material->FirstChildElement("texture") && !texture_warned) {
        diag.warn(material->GetLineNum(), what + " visual material",
                  "textures are not imported: the viewer draws the material's colour (said once per model)");
        texture_warned = true;
      }
    } else if (tag == "contact") {
      // PyBullet's extension: its friction and restitution make the link's material
      for (const XMLElement* k = c->FirstChildElement(); k; k = k->NextSiblingElement()) {
        const std::string key = k->Name();
        const double value = k->DoubleAttribute("value", -1.0);
        if (key == "lateral_friction" && value >= 0.0) link.lateral_friction = value;
        else if (key == "restitution" && value >= 0.0) link.restitution = value;
        else
          diag.warn(k->GetLineNum(), what + " contact/" + key,
                    "not imported (PyBullet's contact extension: lateral_friction and restitution are)");
      }
    } else {
      diag.warn(c->GetLineNum(), what, "<" + tag + "> is not a URDF element this importer knows: ignored");
    }
  }
}

void scan_joint(const XMLElement* e, UrdfXml& xml, bool& legacy_warned, Diagnostics& diag) {
  const std::string name = name_of(e);
  UrdfJointXml& joint = xml.joints[name];
  joint.line = e->GetLineNum();
  xml.joint_order.push_back(name);
  const std::string what = "joint '" + name + "'";
  for (const XMLElement* c = e->FirstChildElement(); c; c = c->NextSiblingElement()) {
    const std::string tag = c->Name();
    if (tag == "limit") {
      joint.limit_line = c->GetLineNum();
      joint.has_lower = c->Attribute("lower") != nullptr;
      joint.has_upper = c->Attribute("upper") != nullptr;
    } else if (tag == "mimic") {
      diag.warn(c->GetLineNum(), what + " mimic",
                "not imported: the joint moves on its own instead of following joint '" +
                    std::string(c->Attribute("joint") ? c->Attribute("joint") : "?") + "'");
    } else if (tag == "safety_controller") {
      diag.warn(c->GetLineNum(), what + " safety_controller", "not imported (soft limits and gains of a controller)");
    } else if (tag == "calibration") {
      diag.warn(c->GetLineNum(), what + " calibration", "not imported (reference positions of a real robot)");
    } else if (tag == "joint_properties") {
      if (e->FirstChildElement("dynamics")) {
        diag.warn(c->GetLineNum(), what + " joint_properties", "ignored: the joint has <dynamics>");
        continue;
      }
      joint.legacy_damping = c->DoubleAttribute("damping", 0.0);
      joint.legacy_friction = c->DoubleAttribute("friction", 0.0);
      if (!legacy_warned)
        diag.warn(c->GetLineNum(), what + " joint_properties",
                  "read as <dynamics> (its early spelling) for this and every other joint (said once per model)");
      legacy_warned = true;
    } else if (tag != "origin" && tag != "parent" && tag != "child" && tag != "axis" && tag != "dynamics") {
      diag.warn(c->GetLineNum(), what, "<" + tag + "> is not a URDF element this importer knows: ignored");
    }
  }
}

}  // namespace

UrdfXml read_urdf_xml(const std::filesystem::path& file, Diagnostics& diag) {
  UrdfXml xml;
  xml.text = read_text(file, diag);
  tinyxml2::XMLDocument doc;
  if (doc.Parse(xml.text.data(), xml.text.size()) != tinyxml2::XML_SUCCESS) {
    // tinyxml2's ErrorStr() is "Error=NAME ErrorID=N (0xN) Line number=L: DETAIL": the name and detail
    const std::string full = doc.ErrorStr() ? doc.ErrorStr() : "";
    const std::size_t at = full.find(": ", full.find("Line number="));
    diag.fail(doc.ErrorLineNum(), "XML",
              std::string(doc.ErrorName()) + (at == std::string::npos ? "" : " (" + full.substr(at + 2) + ")"));
  }
  const XMLElement* robot = doc.RootElement();
  if (!robot) diag.fail(0, "XML", "no root element");
  if (std::string(robot->Name()) != "robot")
    diag.fail(robot->GetLineNum(), robot->Name(), "the root element of a URDF file must be <robot>");
  xml.robot_name = name_of(robot);
  bool texture_warned = false, legacy_warned = false;
  for (const XMLElement* e = robot->FirstChildElement(); e; e = e->NextSiblingElement()) {
    const std::string tag = e->Name();
    if (tag == "link") scan_link(e, xml, texture_warned, diag);
    else if (tag == "joint") scan_joint(e, xml, legacy_warned, diag);
    else if (tag == "material" && e->FirstChildElement("texture") && !texture_warned) {  // colours of visuals
      diag.warn(e->GetLineNum(), "material", "textures are not imported: the viewer draws the material's colour (said once per model)");
      texture_warned = true;
    } else if (tag == "material")
      continue;
    else if (tag == "transmission")
      diag.warn(e->GetLineNum(), "transmission '" + name_of(e) + "'",
                "not imported: each joint with a <limit effort> gets an effort actuator of its own");
    else if (tag == "gazebo")
      diag.warn(e->GetLineNum(), "gazebo", "Gazebo-specific settings are not imported");
    else
      diag.warn(e->GetLineNum(), "robot", "<" + tag + "> is not a URDF element this importer knows: ignored");
  }
  return xml;
}

}  // namespace coulomb::import_detail
