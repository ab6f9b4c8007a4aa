// What a URDF does not say and the URDF importer chooses (import/README.md, "Defaults"), and the
// repair of links' mass properties. Private to import/.
#pragma once
#include <urdf_model/link.h>

#include <optional>
#include <string>

#include "model_builder.h"

namespace coulomb::import_detail {

// one material for every link: URDF has no friction or restitution (unit: 1)
inline constexpr double kUrdfFriction = 0.8;
// time step and duration of an imported robot (unit: s); not yet checked on the test robots
// (import/README.md, "Defaults")
inline constexpr double kUrdfDt = 0.002;
inline constexpr double kUrdfDuration = 5.0;
// links collide with the ground and other bodies (bits 1, 1) but not with each other:
// (2 & 1) | (2 & 1) = 0 between two links, (2 & 1) | (1 & 1) = 1 with a body of bits 1, 1
inline constexpr unsigned kUrdfLinkContype = 2, kUrdfLinkConaffinity = 1;
// a link with no mass and nothing to take one from (unit: kg, m): 1 g, a 5 cm sphere's inertia
inline constexpr double kDefaultLinkMass = 1e-3;
inline constexpr double kDefaultLinkRadius = 0.05;

// The scene's solver object: `type` (default newton-pcr, as for MJCF: mjcf_import.cpp).
nlohmann::json urdf_solver(const std::optional<std::string>& type);

// The link's mass properties for BodySpec::inertial: the URDF's inertial rotated into the link
// frame (I' = R I R^T about the centre of mass at the inertial origin), repaired with a warning
// where the engine would refuse it: no inertial or mass <= 0 with collision geometry: none (the
// builder takes them from the geometry at the material's density); with no geometry either: a
// small default; a tensor that is not positive definite: its principal moments raised; one
// that breaks the triangle inequality: balanced (balance_inertia). A fixed link's mass is never
// used: a missing or broken one becomes the default without a warning.
std::optional<Inertial> link_inertial(const urdf::Link& link, const BodySpec& body, int inertial_line,
                                      Diagnostics& diag);

}  // namespace coulomb::import_detail
