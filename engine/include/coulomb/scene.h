// The scene definition: plain settings structs that map 1:1 to the JSON scene format
// (../shared/SCENE_FORMAT.md, STYLE.md lesson 8). The loader fills them and validates every
// value; the World is built from a SceneDef and never sees JSON.
#pragma once
#include <coulomb/constraints.h>
#include <coulomb/math.h>
#include <coulomb/mesh_io.h>
#include <coulomb/shapes.h>
#include <coulomb/sleep.h>
#include <coulomb/solver.h>
#include <coulomb/tet_mesh.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace coulomb {

enum class IntegratorType { Moreau, ImplicitEuler, SemiImplicit };
enum class StabilizationType { None, Post, Baumgarte };
const char* integrator_name(IntegratorType t);

// Magnitude caps on a scene's numbers, by quantity kind (scenes/README.md "Limits"). A value
// within its cap keeps everything the engine derives from it (norms, squares, m g h, m r^2,
// k x, a contact's push-out) far from overflow, while every physical scene lies far inside.
// The loader rejects a value beyond its cap with the value's JSON pointer.
struct SceneLimits {
  static constexpr double kLength = 1e9;        // coordinates, sizes, distances, anchors, thickness (unit: m)
  static constexpr double kSpeed = 1e9;         // velocity components (unit: m/s), angular ones (unit: rad/s)
  static constexpr double kAcceleration = 1e9;  // gravity components (unit: m/s^2)
  static constexpr double kTime = 1e9;          // dt, durations, schedule times, Rayleigh damping (unit: s)
  static constexpr double kDensity = 1e12;      // (unit: kg/m^3)
  static constexpr double kStiffness = 1e15;    // Young's modulus (Pa), servo stiffness and damping (N/m, N s/m, per rad)
  static constexpr double kForce = 1e15;        // actuator efforts and their bounds (unit: N, N m)
  static constexpr double kCompliance = 1e9;    // joint and drive compliance (unit: m/N, rad/(N m))
  static constexpr double kCoefficient = 1e6;   // friction coefficients, mesh scale factors, actuator gear (dimensionless)
  static constexpr double kMass = 1e15;         // joint armature (unit: kg, kg m^2)
};

// How two materials' coefficients combine into a pair's (collision.friction_combine,
// collision.restitution_combine), unless a contact_materials entry gives the pair's value.
enum class CombineRule : std::uint8_t { Average, Min, Max, Multiply, Geometric };
const char* combine_rule_name(CombineRule r);
double combine(CombineRule r, double a, double b);

// What the World does with bodies that overlap at load by more than collision.overlap_tolerance
// (collision.initial_overlap): refuse the scene (an InputError naming the pair and the depth),
// run it as it is and report the overlaps (World::initial_overlaps), or translate the movable
// bodies apart before step 1.
enum class InitialOverlap : std::uint8_t { Error, Warn, Resolve };

struct MaterialDef {
  std::string name;
  double density = 1000.0;            // (unit: kg/m^3)
  double friction_s = 0.5;            // Coulomb coefficient along the first tangent
  double friction_t = 0.5;            // ... along the second tangent (== friction_s when isotropic)
  double torsional_friction = 0.0;    // Coulomb-Contensou spin coefficient (seed 000 eq. 15b) (unit: m)
  double restitution = 0.0;           // Newton coefficient (seed 000 eq. 14)
  double young = 1e6;                 // soft bodies only (unit: Pa)
  double poisson = 0.3;               // soft bodies only
  std::string model = "corotational"; // soft bodies only
  double damping = 0.0;               // soft bodies only
};

// Per-pair override of friction and restitution (`contact_materials`).
struct ContactMaterialDef {
  int a = -1, b = -1;  // material indices
  double friction_s = 0.5, friction_t = 0.5, torsional_friction = 0.0, restitution = 0.0;
};

// What the viewer draws of a body in place of its collision shape (an imported link's visual
// geometry): a shape of SceneDef::shapes or a triangle mesh read from a file (any triangle soup:
// it is only drawn), at a pose in the body's shape frame, with a colour. It has no mass and takes
// no part in contact.
struct VisualDef {
  int shape = -1;  // index into SceneDef::shapes (not a plane); -1: `mesh`
  std::shared_ptr<const TriangleMesh> mesh;  // scaled to metres
  Vec3 position = Vec3::Zero();  // (unit: m)
  Quat orientation = Quat::Identity();
  std::optional<std::array<double, 4>> color;  // red, green, blue, alpha in [0, 1]; none: the material's
};

struct BodyDef {
  std::string name;
  int shape = -1;      // index into SceneDef::shapes; -1: no shape (mass and inertia given, collides with nothing)
  int material = 0;    // index into SceneDef::materials
  Vec3 position = Vec3::Zero();   // of the shape frame (unit: m)
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();          // of the shape-frame origin (unit: m/s)
  Vec3 angular_velocity = Vec3::Zero();  // (unit: rad/s)
  bool fixed = false;
  // moved by the program (World::set_kinematic_velocity, move_kinematic), not by forces: it
  // pushes the bodies it touches and is not pushed (infinite mass, like a fixed body)
  bool kinematic = false;
  std::optional<double> mass;   // overrides density * volume (unit: kg)
  // the inertia tensor about the centre of mass in the shape frame's axes: its diagonal
  // (Ixx, Iyy, Izz) and products (Ixy, Ixz, Iyz); zero products: principal moments about the
  // shape's own axes (unit: kg m^2)
  std::optional<Vec3> inertia;
  Vec3 inertia_products = Vec3::Zero();
  std::optional<Vec3> center_of_mass;  // in the shape frame; needs mass and inertia (unit: m)
  // MuJoCo's collision filter: two bodies may collide iff (contype_a & conaffinity_b) != 0 or
  // (contype_b & conaffinity_a) != 0
  std::uint32_t contype = 1, conaffinity = 1;
  std::vector<VisualDef> visuals;  // none: the viewer draws the collision shape
  std::string pointer;          // JSON pointer of its definition, for errors ("" = /bodies/INDEX)
};

// A soft body (SCENE_FORMAT.md "Soft bodies"): its tetrahedral mesh already built, checked and
// placed in the world by the loader, so every meshing error carries a JSON pointer.
struct SoftBodyDef {
  std::string name;
  int material = 0;
  TetMesh mesh;                      // rest positions in the world (unit: m)
  Vec3 velocity = Vec3::Zero();      // initial velocity of every vertex (unit: m/s)
  std::vector<std::uint8_t> pinned;  // (nv) 1 = infinite mass (the `pinned` selection)
};

// `attach` joint: soft-body vertices glued to a rigid body (or to the world when body = -1).
struct AttachDef {
  std::string name;
  int soft = -1;              // index into SceneDef::soft_bodies
  std::vector<int> vertices;  // selected vertices of that soft body
  int body = -1;              // index into SceneDef::bodies, -1 = the world
};

// A rigid joint (SCENE_FORMAT.md "Joints"): ball, hinge, prismatic or fixed between body a and
// body b (-1 = the world), with the anchor and axis in world coordinates at load time.
struct JointDef {
  std::string name;
  JointType type = JointType::Ball;
  int a = -1, b = -1;               // indices into SceneDef::bodies; b = -1: the world
  Vec3 anchor = Vec3::Zero();       // (unit: m)
  Vec3 axis = Vec3::UnitZ();        // unit (hinge, prismatic)
  bool limited = false;
  double lo = 0.0, hi = 0.0;        // limits (unit: rad for hinge, m for prismatic)
  double compliance = 0.0;          // (unit: m/N, rad/(N m))
  double angular_compliance = -1.0; // angular rows only (rad/(N m)); < 0: `compliance`
  // "drive" (hinge, prismatic): the joint coordinate follows a piecewise-linear schedule of
  // (time s, target rad or m) points, held before the first and after the last
  std::vector<std::pair<double, double>> drive;
  double drive_compliance = 0.0;
  bool collide = false;             // whether a and b still collide with each other
  double position = 0.0;            // the coordinate at load time (MuJoCo's ref) (unit: rad or m)
  double damping = 0.0;             // viscous (unit: N m s/rad or N s/m)
  double friction = 0.0;            // dry friction bound (unit: N m or N)
  double armature = 0.0;            // rotor inertia on the coordinate (unit: kg m^2 or kg)
};

// An actuator on a hinge or prismatic joint (`actuators`, scenes/README.md; engine/control.h).
// Its command is an effort (N m or N), a target velocity (rad/s or m/s) or a target position
// (rad or m), set by the program (World::set_command) or fed by a schedule.
enum class ActuatorType : std::uint8_t { Effort, Velocity, Position };
const char* actuator_type_name(ActuatorType t);

// Actuator units: the actuator's length is gear * q (q the joint coordinate, MuJoCo's joint
// transmission); its command, max_effort, stiffness, damping, ctrl_range and max_velocity are in
// those units, and the joint gets gear times its force.
struct ActuatorDef {
  std::string name;
  ActuatorType type = ActuatorType::Effort;
  int joint = -1;                      // index into SceneDef::joints (hinge or prismatic)
  double gear = 1.0;                   // non-zero
  double max_effort = kInfinity;       // |effort| bound (unit: N m or N); infinite = unbounded
  double stiffness = kInfinity;        // position servo (unit: N m/rad or N/m); infinite = rigid
  // position servo; velocity: > 0 makes the motor the damper F = damping (command - l'), 0 rigid
  // (unit: N m s/rad or N s/m)
  double damping = 0.0;
  // every command is clamped into [ctrl_lo, ctrl_hi] (MuJoCo's ctrlrange)
  double ctrl_lo = -kInfinity, ctrl_hi = kInfinity;
  // |l'| bound: a velocity command is clamped to it; an effort or position actuator applies no
  // force that pushes the joint further while |l'| >= max_velocity (unit: rad/s or m/s)
  double max_velocity = kInfinity;
  double command = 0.0;                // the initial command
  // a piecewise-linear schedule of (time s, command) points, held before the first and after the
  // last, which feeds the command until the program sets one
  std::vector<std::pair<double, double>> schedule;
  std::string pointer;                 // JSON pointer of its definition, for errors
};

struct SceneDef {
  std::string name, description;
  std::filesystem::path base_dir;   // folder of the scene file (mesh paths are relative to it)
  Vec3 gravity{0.0, 0.0, -9.81};    // (unit: m/s^2)
  double dt = 0.01;                 // (unit: s)
  int steps = 0;
  IntegratorType integrator = IntegratorType::Moreau;
  std::string solver = "prox-gs";
  SolverOptions solver_options;
  StabilizationType stabilization = StabilizationType::None;
  double baumgarte_beta = 0.2;
  double envelope = 0.01;           // contacts are created below this separation (unit: m)
  double margin = 0.0;              // collision margin added to every shape's AABB (unit: m)
  bool ccd = false;                 // rigid CCD: clamp fast bodies at their first impact (collision/README.md)
  bool self_contacts = false;       // soft bodies: VertexTriangle contacts within one body (collision.self_contacts)
  bool edge_edge = false;           // soft bodies: EdgeEdge contacts (collision.edge_edge)
  double thickness = 0.0;           // soft surfaces' collision thickness (collision.thickness) (unit: m)
  // material pair rules (collision.friction_combine, collision.restitution_combine): friction
  // (both tangents and torsion) by geometric mean, restitution by the larger, as Box2D and Jolt,
  // so that a bouncy ball bounces on a ground of the default material
  CombineRule friction_combine = CombineRule::Geometric;
  CombineRule restitution_combine = CombineRule::Max;
  InitialOverlap initial_overlap = InitialOverlap::Error;  // collision.initial_overlap
  // body pairs (a < b, indices into bodies) that never collide (collision.exclude)
  std::vector<std::pair<int, int>> excluded_pairs;
  // deepest overlap at load that passes as resting contact (collision.overlap_tolerance); < 0:
  // the envelope (unit: m)
  double overlap_tolerance = -1.0;
  SleepSettings sleep;              // sleeping islands (`sleep`; off by default)
  std::vector<MaterialDef> materials;              // index 0 is "default" unless redefined
  std::vector<ContactMaterialDef> contact_materials;
  ShapeLibrary shapes;
  std::vector<std::string> shape_names;            // parallel to shapes.shapes (named shapes)
  std::vector<BodyDef> bodies;                     // explicit bodies first, then generated ones
  std::vector<SoftBodyDef> soft_bodies;
  std::vector<AttachDef> attachments;              // the `attach` joints
  std::vector<JointDef> joints;                    // the rigid joints
  // the actuators: those of `actuators`, then one position servo per joint `drive` (named after
  // its joint, its schedule the drive's target, its stiffness 1 / the drive's compliance)
  std::vector<ActuatorDef> actuators;
  int output_every = 1;                            // write a frame every N steps
  bool output_contacts = false;                    // frames also carry contact points and normals
};

// Loads and validates a scene file. `overrides` are "--set" strings "POINTER=VALUE" applied to
// the JSON before validation (VALUE is parsed as JSON, or taken as a string if it is not JSON).
// Throws InputError with the JSON pointer of the first mistake.
SceneDef load_scene(const std::filesystem::path& file, const std::vector<std::string>& overrides = {});
// Validates an already-parsed scene document. Mesh paths are resolved against `base_dir`.
SceneDef parse_scene(const nlohmann::json& doc, const std::filesystem::path& base_dir);
// Applies one "POINTER=VALUE" override to a scene document. Throws InputError.
void apply_override(nlohmann::json& doc, const std::string& assignment);

}  // namespace coulomb
