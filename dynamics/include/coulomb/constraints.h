// One constraint interface for every solver (DESIGN.md "Layers"): each constraint kind is a
// family of plain functions over flat arrays, evaluable at any configuration, that gives
//   - its rows' values C(q),
//   - its Jacobian blocks per degree of freedom (6 columns for a rigid body: translation, then
//     rotation as a world-frame rotation vector; 3 for a particle),
//   - its compliance (C + alpha f = 0, unit: m/N or 1/(N m)),
//   - the bounds of its multipliers (bilateral rows, unilateral limit and contact rows),
//   - and the diagonal of its geometric stiffness K = d(J^T lambda)/dq (seed 003 eq. 70), whose
//     secant form eq. 71-74 the Newton solver uses.
// Kinds: frictional contacts (normal + two friction rows), rigid joints (ball, hinge, prismatic,
// fixed, with limit rows), attachments (a particle glued to a rigid or world point) and FEM
// elements in compliance form (fem/element_constraint.h).
//
// A kind evaluates one block (one contact, joint, attachment or element) into a small fixed-size
// BlockRows on the stack, which a solver can use at once (xpbd-jacobi re-evaluates its blocks at
// every iterate); `append` lays blocks out in ConstraintRows, flat row and entry arrays in CSR
// form that a GPU kernel reads without pointers (newton-pcr, cr-mlcp).
//
// DOF numbering: rigid body i is DOF i, particle j is DOF num_rigid + j. Variations of a rigid
// body are (dx, dtheta) with q <- exp(dtheta) q (world frame), so the angular Jacobian columns
// multiply world angular velocities.
#pragma once
#include <coulomb/element_constraint.h>
#include <coulomb/materials.h>
#include <coulomb/math.h>

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

namespace coulomb {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// A configuration as flat arrays (no ownership). Rigid bodies: centre of mass x, orientation q
// and angular velocity w with the step h (the linearised lever arms of contacts rotate by h w,
// see ConstraintSide); particles: positions px.
struct Configuration {
  const Vec3* x = nullptr;
  const Quat* q = nullptr;
  const Vec3* w = nullptr;  // may be null when no side uses linearised arms
  double h = 0.0;
  int num_rigid = 0;
  const Vec3* px = nullptr;
  int num_particles = 0;
};

// One end of a point constraint: a point of a rigid body, a point on a soft body given by up to
// three particles with barycentric weights, or a fixed world point.
struct ConstraintSide {
  int rigid = -1;                           // rigid body index, or -1
  std::array<int, 3> particle{-1, -1, -1};  // particle indices (unused entries -1)
  Vec3 weight = Vec3::Zero();               // barycentric weights of the particles (sum 1)
  // rigid, body_frame: the point in the body frame relative to the centre of mass (exact, it
  // turns with q); rigid, !body_frame: the world lever arm r0 from the centre of mass at the start
  // of the step, and the point is x + r0 + h w x r0 (rotation linearised; dynamics/position_problem.h
  // says why contacts use it); world side: the fixed world point (unit: m)
  Vec3 anchor = Vec3::Zero();
  bool body_frame = false;

  bool is_rigid() const { return rigid >= 0; }
  bool is_world() const { return rigid < 0 && particle[0] < 0; }
};

// World position of a side's point at a configuration (unit: m).
Vec3 side_position(const Configuration& c, const ConstraintSide& s);
// World lever arm of a rigid side (point - centre of mass).
Vec3 side_arm(const Configuration& c, const ConstraintSide& s);

// A frictional contact: gap n . (p_b - p_a) - offset >= 0 with the normal n fixed over the step;
// friction rows along the tangent basis (t, s) of n, measured from the relative position
// `tangent_origin` of the two points when the contact was made, |f_T| <= mu f_n.
struct ContactConstraint {
  ConstraintSide a, b;
  Vec3 normal = Vec3::UnitZ();  // unit, from a towards b
  double offset = 0.0;          // (unit: m)
  double mu = 0.0;
  Vec3 tangent_origin = Vec3::Zero();
};

// A particle glued to a point (3 rows along the world axes, bilateral).
struct AttachmentConstraint {
  int particle = -1;
  ConstraintSide target;  // a rigid point or a world point
  double compliance = 0.0;
};

// A linear tetrahedron in the compliance form of fem/element_constraint.h.
struct ElementConstraintDef {
  std::array<int, 4> particle{};
  Mat3 Dm_inv = Mat3::Identity();
  double volume = 0.0;  // rest volume (unit: m^3)
  int material = 0;     // index into the material array handed to the element functions
};

struct ElementMaterial {
  MaterialModel model = MaterialModel::Corotational;
  Lame lame{0.0, 0.0};
  double damping = 0.0;  // Rayleigh ratio (seed 002 eq. 19-21) (unit: s)
};

enum class JointType : std::uint8_t { Ball, Hinge, Prismatic, Fixed };
const char* joint_type_name(JointType t);

// A rigid joint between bodies a and b (b = -1: the world). Frames are stored in each body's
// frame (relative to its centre of mass) so that the joint can be evaluated at any configuration:
//   ball       3 rows: p_b - p_a = 0 (world axes)
//   hinge      ball + 2 rows u1_a . n_b = 0, u2_a . n_b = 0 (the axis fixed in a stays parallel
//              to the axis fixed in b); limit rows on the angle about the axis
//   prismatic  2 rows t_i . (p_b - p_a) = 0 across the axis + 3 angular lock rows; limit rows on
//              the slide n . (p_b - p_a)
//   fixed      ball + 3 angular lock rows 2 vec(q_b q_rel^-1 q_a^-1) = 0
// Limit rows are unilateral (lambda >= 0): angle - lo >= 0 and hi - angle >= 0 (hinge, rad),
// slide - lo >= 0 and hi - slide >= 0 (prismatic, m), where the angle is a's rotation relative to
// b about the axis (right hand) and the slide is a's displacement relative to b along the axis,
// both `reference` at load time. `compliance` softens the linear rows (ball, prismatic and its
// limits), `angular_compliance` the angular ones (a bending stiffness k is angular_compliance 1/k).
//
// Coordinate rows (hinge, prismatic) follow the limits, in this order, each present when set:
//   drive     coordinate - drive_target = 0 with compliance drive_compliance, force within
//             [drive_lo, drive_hi] (a Bilateral row when both are infinite, an Actuator row
//             otherwise); the World sets them each step from the joint's actuator (engine/control.h:
//             a position servo or a velocity motor is this row with an effective target and
//             compliance);
//   damping   the joint's viscous damping c and armature a as one implicit row (World::actuate_drives):
//             coordinate - damping_target = 0 with compliance damping_compliance (Bilateral);
//   friction  the joint's dry friction: coordinate - friction_target = 0, rigid, force within
//             [-friction, friction] (an Actuator row), friction_target the coordinate at the
//             step's start, so that the row wants q' = 0.
// None is counted in joint_error: they act on the coordinate, they are not violations.
struct JointConstraint {
  JointType type = JointType::Ball;
  int a = -1, b = -1;  // rigid body indices; b (or a) -1 = the world
  // anchor point in a's and b's frames (world frame for a world side)
  Vec3 anchor_a = Vec3::Zero(), anchor_b = Vec3::Zero();
  // axis n and two unit vectors u1, u2 across it, in a's frame (world for a world side), and
  // the axis and reference vector in b's frame (hinge angle `reference` when u1_a . u_b = 1)
  Vec3 axis_a = Vec3::UnitZ(), u1_a = Vec3::UnitX(), u2_a = Vec3::UnitY();
  Vec3 axis_b = Vec3::UnitZ(), u1_b = Vec3::UnitX();
  Quat rel = Quat::Identity();  // rest relative orientation q_a^-1 q_b (angular lock rows)
  double reference = 0.0;       // the coordinate's value at load time (unit: rad or m)
  bool limited = false;
  double lo = 0.0, hi = 0.0;    // limits (rad or m)
  double compliance = 0.0;          // linear rows (unit: m/N)
  double angular_compliance = 0.0;  // angular rows: hinge axis, angular locks, hinge limits (rad/(N m))
  bool driven = false;
  double drive_target = 0.0;         // (unit: rad or m)
  double drive_compliance = 0.0;     // (unit: rad/(N m) or m/N)
  double drive_lo = -kInfinity, drive_hi = kInfinity;  // force bounds of the drive row (unit: N m or N)
  // viscous damping (unit: N m s/rad or N s/m) and armature (unit: kg m^2 or kg) of the
  // coordinate; the damping row exists when either is positive
  double damping = 0.0, armature = 0.0;
  double damping_target = 0.0, damping_compliance = 0.0;  // set each step by the World
  double friction = 0.0;         // dry friction bound (unit: N m or N); the row exists when positive
  double friction_target = 0.0;  // set each step by the World (unit: rad or m)
  // Hinge only: the unwrapped angle the joint had at the end of the last step. The angle is read
  // as the multi-turn value nearest to it, so that limits and targets work at any angle, across
  // +-pi too (the World updates it each step; it is part of the State).
  double angle_ref = 0.0;  // (unit: rad)

  bool damped() const { return damping > 0.0 || armature > 0.0; }
  bool bounded_drive() const { return drive_lo > -kInfinity || drive_hi < kInfinity; }
  // how many coordinate rows (drive, damping, friction) end the joint's block
  int coordinate_rows() const { return (driven ? 1 : 0) + (damped() ? 1 : 0) + (friction > 0.0 ? 1 : 0); }
};

// A hinge's or a prismatic joint's coordinate: the unwrapped angle of a relative to b about the
// axis (rad), or a's slide relative to b along the axis (m), with its Jacobian on each body's
// (v, omega) (world frame; zero for a world side), so that J_a u_a + J_b u_b is its rate. The
// generalised force tau on the coordinate acts on body a as the wrench J_a^T tau and on b as
// J_b^T tau.
struct JointCoordinate {
  double value = 0.0;
  Vec6 J_a = Vec6::Zero(), J_b = Vec6::Zero();
};
JointCoordinate joint_coordinate(const Configuration& c, const JointConstraint& j);
// The multi-turn angle nearest to `ref` that equals `angle` modulo 2 pi (unit: rad).
double unwrap_angle(double angle, double ref);

// The rows a joint has (without limits): 3 ball, 5 hinge, 5 prismatic, 6 fixed.
int joint_equality_rows(JointType t);

// What a row is, and so how a solver treats its multiplier.
enum class RowKind : std::uint8_t {
  ContactNormal,    // lambda >= 0
  ContactFriction,  // |lambda_t, lambda_s| <= mu lambda_n (the two rows after the normal row)
  Bilateral,        // joint and attachment equality rows, lambda free
  Limit,            // joint limit rows, lambda >= 0
  Element,          // FEM element rows (compliance form, lambda free)
  Actuator          // a drive row with a bounded force: lo <= f <= hi (BlockRows::lo/hi, unit: N or N m)
};

// a hinge: 5 equality rows, 2 limit rows and 3 coordinate rows (drive, damping, friction)
inline constexpr int kMaxBlockRows = 10;
inline constexpr int kMaxBlockDofs = 6;

// One block's rows at one configuration. Entry (r, d) of the Jacobian is the 1x6 block
// J.block<1, 6>(r, 6 d) for DOF dof[d] (a particle uses its first 3 columns).
struct BlockRows {
  int rows = 0, dofs = 0;
  std::array<int, kMaxBlockDofs> dof{};
  std::array<RowKind, kMaxBlockRows> kind{};
  Eigen::Matrix<double, kMaxBlockRows, 1> value, lo, hi;
  // compliance of the block's rows: diagonal for every kind but FEM elements, whose strain rows
  // couple (fem/element_constraint.h, C^-1 of the 6 strain components)
  Eigen::Matrix<double, kMaxBlockRows, kMaxBlockRows> compliance;
  Eigen::Matrix<double, kMaxBlockRows, 6 * kMaxBlockDofs> J;

  void clear() {
    rows = dofs = 0;
    J.setZero();
    compliance.setZero();
  }
  // Column block of DOF `d`, added on first use; returns its local index.
  int dof_slot(int global_dof);
  int add_row(RowKind k, double c, double alpha, double lower, double upper);
};

// Every kind's block at a configuration. DOF indices count rigid bodies first (Configuration::
// num_rigid), then particles. A rigid body with zero inverse mass still gets its columns: which
// DOFs move is the solver's business.
void contact_rows(const Configuration& c, const ContactConstraint& k, BlockRows& out);
void joint_rows(const Configuration& c, const JointConstraint& j, BlockRows& out);
void attachment_rows(const Configuration& c, const AttachmentConstraint& a, BlockRows& out);
// rows = 0 when the material has no constraint form (fem/element_constraint.h)
void element_rows(const Configuration& c, const ElementConstraintDef& e, const ElementMaterial& m, BlockRows& out);

// The joint's positional (m) and angular (rad) violation of its equality rows and limits.
struct JointError {
  double linear = 0.0, angular = 0.0;
};
JointError joint_error(const Configuration& c, const JointConstraint& j);

// Adds the diagonal of the geometric stiffness K = d(J^T lambda)/dq (seed 003 eq. 70) of one
// block with row multipliers lambda (block order) to diag (per DOF, 6 entries; particles use 3),
// exact for every kind but the corotational and Neo-Hookean elements, whose K diagonal is taken
// by central differences of J^T lambda (those forms have no closed-form second derivative here;
// seed 003 eq. 71-73 approximates K the same way, by differences of J^T lambda along the step).
void add_geometric_stiffness(const Configuration& c, const ContactConstraint& k, const double* lambda,
                             std::vector<Vec6>& diag);
void add_geometric_stiffness(const Configuration& c, const JointConstraint& j, const double* lambda,
                             std::vector<Vec6>& diag);
void add_geometric_stiffness(const Configuration& c, const AttachmentConstraint& a, const double* lambda,
                             std::vector<Vec6>& diag);
void add_geometric_stiffness(const Configuration& c, const ElementConstraintDef& e, const ElementMaterial& m,
                             const double* lambda, std::vector<Vec6>& diag);

// Seed 003 eq. 73: the secant estimate c_k of K's diagonal from two iterates, g the constraint
// force J^T lambda at each, du their difference (per coordinate; 0 where du_k = 0), and eq. 74's
// shift of the mass diagonal, max(0, -c_k) (positive, so that H stays positive definite).
double secant_stiffness(double g_new, double g_old, double M_du, double du);
inline double stiffness_shift(double c_k) { return c_k < 0.0 ? -c_k : 0.0; }

// All of a system's rows laid out flat (CSR): row r has entries entry_start[r] ..
// entry_start[r + 1], each a DOF and its 1x6 Jacobian block. Block b owns rows block_start[b] ..
// block_start[b + 1] and its dense compliance (n x n, row-major, n its row count) starts at
// compliance_start[b]. A GPU kernel reads it as is.
struct ConstraintRows {
  std::vector<RowKind> kind;        // (rows)
  std::vector<int> block;           // (rows) index of the block in its kind's list
  std::vector<double> value, lo, hi;
  std::vector<int> entry_start{0};  // (rows + 1)
  std::vector<int> entry_dof;       // (entries)
  std::vector<Vec6> entry_J;        // (entries)
  std::vector<int> block_start{0};  // (blocks + 1)
  std::vector<int> compliance_start{0};
  std::vector<double> compliance;   // dense per block

  int rows() const { return int(value.size()); }
  void clear();
  void append(const BlockRows& b, int block_index);
};

// The constraints of one system, by kind, and their materials.
struct ConstraintSet {
  std::vector<ContactConstraint> contacts;
  std::vector<JointConstraint> joints;
  std::vector<AttachmentConstraint> attachments;
  std::vector<ElementConstraintDef> elements;
  std::vector<ElementMaterial> materials;
};

// Evaluates every block at c into out, kind by kind (contacts, joints, attachments, elements).
void evaluate_constraints(const Configuration& c, const ConstraintSet& set, ConstraintRows& out);

}  // namespace coulomb
