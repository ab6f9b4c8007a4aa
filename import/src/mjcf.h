// The MJCF importer's parts (import/README.md, "MJCF"): the XML files of a model with their
// includes (Documents), one model's compiler settings, default classes and assets (Model), and
// the walk over the body tree that collects the scene's bodies (Importer). Private to import/.
//
// MuJoCo works in generalised coordinates and the scene in maximal ones, so the importer
// regroups the tree: an MJCF body without a joint is welded to its parent and becomes part of
// the parent's scene body (its geoms and mass join it); a body with one joint is a scene body
// on that joint; a body with several joints is a chain of scene bodies, one joint each (the
// frames between them carry a small mass, kChainMassFraction); a free joint is a free body.
#pragma once
#include "model_builder.h"

#include <tinyxml2.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace coulomb::import_detail::mjcf {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;
using Json = nlohmann::json;

// The mass of each frame that a body with several joints puts between them (MuJoCo's frames
// there are massless), as a fraction of the body's mass and inertia: small enough to leave
// the dynamics as they are, large enough for the solvers' mass ratios.
inline constexpr double kChainMassFraction = 0.01;

// "geom 'thigh'" or "geom": an element for messages
std::string label(const XMLElement* e);

// The XML files of one import: the model, its includes and the models it attaches.
class Documents {
 public:
  explicit Documents(Diagnostics& diag) : diag_(diag) {}
  // the root element of `file`, which must be <mujoco>; `from` (may be null) is where it is
  // referred to, for the message when the file cannot be read
  const XMLElement* load(const fs::path& file, const XMLElement* from);
  // the child elements of `e` in order, each <include> replaced by the children of its file's
  // root (recursively; a file that includes itself is an error)
  std::vector<const XMLElement*> children(const XMLElement* e);
  const fs::path& file_of(const XMLElement* e) const;
  [[noreturn]] void fail(const XMLElement* e, const std::string& message) const;
  void warn(const XMLElement* e, const std::string& message);
  Diagnostics& diag() { return diag_; }

 private:
  void expand(const XMLElement* e, std::vector<const XMLElement*>& out);
  Diagnostics& diag_;
  std::vector<std::unique_ptr<tinyxml2::XMLDocument>> docs_;
  std::map<const tinyxml2::XMLDocument*, fs::path> files_;
  std::map<fs::path, const XMLElement*> roots_;
  std::vector<fs::path> including_;  // the include chain being expanded
  fs::path main_dir_;                // the first file's folder
};

// Unsupported attributes, reported once per element kind and attribute with the first place and
// a count, so that a model with a hundred geoms gives one line about `solref`.
class Unsupported {
 public:
  explicit Unsupported(Documents& docs) : docs_(docs) {}
  // checks every attribute of `e` against the table of `kind` ("geom", "joint", ...)
  void check(const XMLElement* e, const std::string& kind);
  // one entry about `what` at `e` (several calls with the same key count up)
  void note(const XMLElement* e, const std::string& key, const std::string& message);
  void report();  // the warnings, in order of first appearance

 private:
  struct Entry {
    const XMLElement* first;
    std::string message;
    int count = 0;
  };
  Documents& docs_;
  std::vector<std::string> order_;
  std::map<std::string, Entry> entries_;
};

struct Compiler {
  bool degree = true;             // angles in degrees (MuJoCo's default)
  std::string eulerseq = "xyz";
  fs::path meshdir;               // absolute
  bool autolimits = true;         // a given range makes a joint or actuator limited
  enum { kFalse, kTrue, kAuto } inertiafromgeom = kAuto;
  bool balanceinertia = false;
  double boundmass = 0.0, boundinertia = 0.0;
  double settotalmass = -1.0;     // > 0: every moving body's mass and inertia scaled to this sum
  bool strippath = false, discardvisual = false;
  int group_lo = 0, group_hi = 5;  // inertiagrouprange: geoms of these groups give mass
  bool global = false;            // coordinate="global", read as local (see Model)
};

struct MeshAsset {
  fs::path file;                  // absolute; empty with inline vertices
  std::vector<Vec3> vertices;     // inline `vertex`
  Vec3 scale = Vec3::Ones();
  const XMLElement* element = nullptr;
};

// One MJCF model: the file given to import_mjcf, or a model attached through <asset><model>.
class Model {
 public:
  Model(Documents& docs, Unsupported& unsupported, const fs::path& file, const XMLElement* from);

  Documents& docs;
  fs::path file, dir;
  const XMLElement* root = nullptr;
  Compiler compiler;
  std::map<std::string, MeshAsset> meshes;
  std::map<std::string, std::array<double, 4>> materials;  // <asset><material>: its rgba
  std::map<std::string, std::pair<fs::path, const XMLElement*>> models;  // <asset><model>
  std::map<std::string, std::unique_ptr<Model>> attached;                // loaded on first use

  // the top-level sections named `tag` (<worldbody>, <actuator>, ...) in file order
  std::vector<const XMLElement*> sections(const char* tag) const;
  // the default class an element uses: its `class`, else the enclosing `childclass`, else main
  int class_of(const XMLElement* e, int childclass) const;
  int class_named(const XMLElement* e, const char* name) const;  // error when unknown
  // the attribute `name` of `e`, else the default of class `cls` for elements of `kind`
  const char* attr(const XMLElement* e, const std::string& kind, const char* name, int cls) const;
  std::string text(const XMLElement* e, const std::string& kind, const char* name, int cls, const std::string& fallback) const;
  // the numbers of an attribute: between `min_count` and `max_count` of them (error otherwise);
  // `fallback` when absent
  std::vector<double> numbers(const XMLElement* e, const std::string& kind, const char* name, int cls,
                              std::size_t min_count, std::size_t max_count, std::vector<double> fallback = {}) const;
  double number(const XMLElement* e, const std::string& kind, const char* name, int cls, double fallback) const;
  bool flag(const XMLElement* e, const std::string& kind, const char* name, int cls, bool fallback) const;
  // "true", "false" or "auto" (MuJoCo's limited, ctrllimited, forcelimited): whether limited
  bool limited(const XMLElement* e, const std::string& kind, const char* limited_attr, const char* range_attr, int cls) const;
  double angle(double value) const { return compiler.degree ? value * 3.14159265358979323846 / 180.0 : value; }
  // a frame from pos and one of quat, axisangle, euler, xyaxes, zaxis (defaults of `kind`
  // apply when `cls` >= 0)
  Pose frame(const XMLElement* e, const std::string& kind, int cls) const;
  Quat orientation(const XMLElement* e, const std::string& kind, int cls) const;
  Quat euler(const Vec3& angles, const XMLElement* e) const;

 private:
  void read_compiler(const XMLElement* e);
  void read_defaults(const XMLElement* e, int parent);
  void read_assets(const XMLElement* e);
  Unsupported& unsupported_;
  struct DefaultClass {
    std::string name;
    std::map<std::string, std::map<std::string, std::string>> attrs;  // kind -> attribute -> value
  };
  std::vector<DefaultClass> classes_;
  std::map<std::string, int> class_index_;
};

// the shortest turn of +z onto `z` (MuJoCo's zaxis and fromto); half a turn about x for -z
Quat z_to(const Vec3& z);

// the defaults kind of an element tag: "actuator" for every actuator shortcut, else the tag
std::string default_kind(const std::string& tag);

// Names in an attached or replicated subtree: MuJoCo's prefix (attach) and suffix (replicate).
struct Scope {
  std::string prefix, suffix;
  std::string operator()(const std::string& name) const { return prefix + name + suffix; }
};

// A scene body being collected: one MJCF body and those welded to it, or a frame between two
// joints of one body.
struct SimBody {
  std::string name;
  const XMLElement* element = nullptr;
  int parent = -1;  // the scene body it hangs from (-1: the world)
  Pose pose;        // in the world at load
  bool fixed = false;
  std::vector<Geom> geoms;
  std::vector<Visual> visuals;
  std::vector<double> geom_friction;  // per geom: sliding, torsional (for the consistency check)
  unsigned contype = 0, conaffinity = 0;
  // mass properties about the body's origin, in its frame
  double mass = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 inertia = Mat3::Zero();
  int mass_of = -1;  // a frame of a joint chain: kChainMassFraction of this body's mass
  void add_mass(double m, const Vec3& com, const Mat3& inertia_about_com);
};

// A joint between a scene body (`a`) and its parent (`b`), anchor and axis in a's frame.
struct JointSpec {
  Json json;  // name, type and the keys that need no frame
  std::string type;
  int a = -1, b = -1;
  Vec3 anchor = Vec3::Zero(), axis = Vec3::UnitZ();
  double ref = 0.0;
  bool limited = false;
  double lo = 0.0, hi = 0.0;
  bool collide = false;
  const XMLElement* element = nullptr;
};

// An MJCF body or joint by its (scoped) name.
struct BodyRef {
  int sim = -1;  // -1: the world
  Pose in_sim;   // the MJCF body's frame in the scene body's frame
};
struct JointRef {
  std::string name, type;  // the scene joint's name and type
};

// Where the elements of a body (or frame, or replicate) land.
struct Place {
  int sim = -1;             // the scene body (-1: the world)
  Pose body;                // the MJCF body's frame in the world
  Pose frame;               // the enclosing <frame>s in the body's frame
  int childclass = 0;
  Scope scope;
  struct BodyMass* mass = nullptr;  // the MJCF body's geoms' mass (null in the world)
};

struct BodyMass {
  SimBody geoms;  // only the mass fields are used: the geoms' sum in the scene body's frame
  bool has_inertial = false;
  SimBody inertial;
};

class Importer {
 public:
  Importer(const fs::path& file, const ImportOptions& options);
  ImportResult run();

 private:
  // the body tree (mjcf_bodies.cpp)
  void content(Model& m, const XMLElement* parent, const Place& place);
  void body(Model& m, const XMLElement* e, const Place& place);
  void geom(Model& m, const XMLElement* e, const Place& place);
  void inertial(Model& m, const XMLElement* e, const Place& place);
  // the scene bodies and joints of a body with joints; returns the body's scene body
  int joints(Model& m, const XMLElement* body, const std::vector<const XMLElement*>& joints, int childclass,
             const Place& parent, const std::string& name, const Pose& world);
  void replicate(Model& m, const XMLElement* e, const Place& place);
  void attach(Model& m, const XMLElement* e, const Place& place);
  void check_global(Model& m);
  int new_body(SimBody body);
  // the sections (mjcf_import.cpp)
  void option(Model& m);
  void actuators(Model& m, const Scope& scope, bool attached);
  void contact(Model& m, const Scope& scope, bool attached);
  void equality(Model& m, const Scope& scope, bool attached);
  void pose_into_limits();
  void emit();
  const BodyRef* find_body(const XMLElement* e, const std::string& name, bool attached, bool required);

  fs::path file_;
  ImportOptions options_;
  Diagnostics diag_;
  Documents docs_;
  Unsupported unsupported_;
  std::unique_ptr<Model> main_;
  ModelBuilder builder_;
  Json settings_ = Json::object();
  std::vector<SimBody> bodies_;
  std::vector<JointSpec> joints_;
  std::map<std::string, BodyRef> body_names_;
  std::map<std::string, JointRef> joint_names_;
  std::set<std::string> scene_names_;
  std::vector<std::pair<Model*, Scope>> attached_;  // attached models' sections, to read after the tree
  std::vector<std::array<int, 2>> excluded_;
  int unnamed_ = 0;
  bool has_plane_ = false;
};

// numbers of `text`, or an error naming the element and attribute
std::vector<double> numbers_of(Documents& docs, const XMLElement* e, const char* name, const char* text);

}  // namespace coulomb::import_detail::mjcf
