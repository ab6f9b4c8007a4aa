// The URDF file as XML (tinyxml2), read before urdfdom parses it: urdfdom gives no line numbers
// and ignores what it does not know, so this pass finds where each link and joint is defined,
// which <limit> attributes are written, and warns about every element the scene does not carry.
// Private to import/.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "model_builder.h"

namespace coulomb::import_detail {

struct UrdfLinkXml {
  int line = 0;
  std::vector<int> collision_lines;  // each <collision>, in order
  std::vector<int> visual_lines;     // each <visual>, in order
  int inertial_line = 0;             // 0: no <inertial>
  // PyBullet's <contact> extension: lateral_friction and restitution (< 0: not given)
  double lateral_friction = -1.0, restitution = -1.0;
};

struct UrdfJointXml {
  int line = 0;
  int limit_line = 0;          // 0: no <limit>
  bool has_lower = false, has_upper = false;  // attributes of <limit>
  // <joint_properties damping friction>, the early spelling of <dynamics>, read when the joint
  // has no <dynamics> (unit: N m s/rad or N s/m, N m or N)
  double legacy_damping = 0.0, legacy_friction = 0.0;
};

struct UrdfXml {
  std::string text;                          // the file's contents, for urdfdom
  std::string robot_name;
  std::map<std::string, UrdfLinkXml> links;  // by name
  std::map<std::string, UrdfJointXml> joints;
  std::vector<std::string> link_order, joint_order;  // names in file order
};

// Reads and scans the URDF file. Throws ImportError (through diag) for a missing or unreadable
// file, malformed XML (tinyxml2's message and line) and a root element other than <robot>; warns
// (once per kind and model where noted) about elements that are not imported: textures of visuals (once),
// <transmission>, <gazebo>, joint <mimic>, <safety_controller>, <calibration>, the parts of
// PyBullet's <contact> other than lateral_friction and restitution, and unknown ones.
UrdfXml read_urdf_xml(const std::filesystem::path& file, Diagnostics& diag);

}  // namespace coulomb::import_detail
