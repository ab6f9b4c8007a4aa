// What the URDF and MJCF importers share: warnings (strict or not) and a builder that collects a
// robot's bodies, geometry, joints and actuators in world coordinates and writes the scene
// document (the scene format's keys, scenes/README.md). Private to import/.
#pragma once
#include <coulomb/import.h>
#include <coulomb/math.h>

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace coulomb::import_detail {

// Collects warnings for one model; with `strict` the first warning throws ImportError.
class Diagnostics {
 public:
  Diagnostics(std::filesystem::path file, bool strict) : file_(std::move(file)), strict_(strict) {}
  void warn(int line, const std::string& element, const std::string& message);
  // an ImportError naming the file, the line and the element
  [[noreturn]] void fail(int line, const std::string& element, const std::string& message) const;
  // the same for another file of the model (an included MJCF file)
  void warn(const std::filesystem::path& file, int line, const std::string& element, const std::string& message);
  [[noreturn]] void fail(const std::filesystem::path& file, int line, const std::string& element,
                         const std::string& message) const;
  std::vector<ImportWarning> take() { return std::move(warnings_); }
  const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  bool strict_;
  std::vector<ImportWarning> warnings_;
};

// One collision geometry of a body: a shape object of the scene format (`type` and its keys;
// mesh `file` paths absolute) at `pose` in the body's frame.
struct Geom {
  nlohmann::json shape;
  Pose pose;
  std::string material;  // a name returned by ModelBuilder::material
};

// One visual geometry of a body: what the viewer draws (BodyDef::visuals). `shape` is a shape
// object of the scene format (a `mesh` is drawn as it is, triangle soup or not), or empty to
// draw the body's collision geom number `geom`.
struct Visual {
  nlohmann::json shape;
  int geom = -1;
  Pose pose;                                   // in the body's frame (ignored with `geom`)
  std::optional<std::array<double, 4>> color;  // red, green, blue, alpha in [0, 1]
};

// Mass properties given by the model: mass, centre of mass and the full inertia tensor about it,
// in the body's frame (unit: kg, m, kg m^2).
struct Inertial {
  double mass = 0.0;
  Vec3 com = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
};

struct BodySpec {
  std::string name;
  Pose pose;                         // the body frame in the world
  std::vector<Geom> geoms;           // none: a body without collision geometry
  std::vector<Visual> visuals;       // none: the viewer draws the collision geometry
  std::optional<Inertial> inertial;  // none: from the geometry and the material's density
  bool fixed = false;
  unsigned contype = 1, conaffinity = 1;  // collision filter bits (scenes/README.md)
  int line = 0;                           // where the model defines it, for messages
};

class ModelBuilder {
 public:
  explicit ModelBuilder(Diagnostics& diag) : diag_(diag) {}

  // A material with these coefficients (and density), created once and named by its values.
  std::string material(double friction, double torsional_friction = 0.0, double restitution = 0.0,
                       double density = 1000.0);
  // Adds a body; returns its name (made unique if the model repeats one, with a warning). A
  // body's material is its first geom's.
  std::string add_body(BodySpec body);
  // A joint object of the scene format (`type`, `a`, `b`, anchor and axis in world coordinates,
  // ...); `name` made unique as for bodies.
  void add_joint(nlohmann::json joint);
  void add_actuator(nlohmann::json actuator);
  void exclude(const std::string& body_a, const std::string& body_b);  // collision.exclude

  // The scene document: top-level keys from `settings` (time, gravity, solver, ...), then the
  // materials, shapes, bodies, joints and actuators collected so far; a ground plane when asked.
  nlohmann::json scene(const nlohmann::json& settings, bool add_ground) const;

  // The lowest z of the moving bodies' collision geometry at load (+inf without any).
  double lowest_moving_point() const;

 private:
  Diagnostics& diag_;
  std::vector<BodySpec> bodies_;
  std::map<std::string, std::size_t> body_index_;
  std::vector<nlohmann::json> joints_, actuators_;
  std::vector<std::array<std::string, 2>> excluded_;
  nlohmann::json materials_ = nlohmann::json::object();
  std::map<std::string, int> body_names_, joint_names_, actuator_names_;  // uses of each name
};

// The inertia tensor of a solid of mass m about its centre, in its own frame: for the primitives
// both importers meet (unit: kg m^2).
Mat3 box_inertia(double mass, const Vec3& half_extents);
Mat3 sphere_inertia(double mass, double radius);
Mat3 cylinder_inertia(double mass, double radius, double half_height);  // axis z
Mat3 capsule_inertia(double mass, double radius, double half_height);   // axis z

// The lowest z of a shape object of the scene format placed at `pose` (meshes and convex files:
// their vertices; a file that cannot be read counts as +inf: the scene loader reports it).
double lowest_point(const Pose& pose, const nlohmann::json& shape);

// Raises the smallest principal moments so that each is at most the sum of the other two (no
// mass distribution has I_a + I_b < I_c), as MuJoCo's balanceinertia; returns whether it changed.
bool balance_inertia(Mat3& inertia);

// The numbers of an attribute or element text (separated by spaces or commas); throws
// std::invalid_argument when one is not a finite number.
std::vector<double> parse_numbers(const std::string& text);

}  // namespace coulomb::import_detail
