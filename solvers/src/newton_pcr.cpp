// newton-pcr: the non-smooth Newton method of seed 003 on the implicit-Euler equations of rigid
// bodies, particles, joints, attachments, FEM elements in compliance form and frictional
// contacts (eq. 46-50), solved through the Schur complement (eq. 59) with PCR (s.8.2).
//
// Unknowns: the velocities u (6 per rigid body, 3 per particle) and the multipliers as impulses
// P = h lambda (unit: N s), per row of the constraint interface (dynamics/constraints.h). The
// configuration follows u: x = x^- + h v, q = normalise(q^- + h G(q^-) w), p = p^- + h v_p
// (eq. 50, 63). Each Newton iteration
//   1. evaluates every row at q(u): value c, Jacobian J, compliance;
//   2. builds the residuals: momentum g = M (u - u~) - J^T P (eq. 57) and one equation per row:
//        bilateral rows   c + alpha P / h = 0                          (eq. 47, s.3.2)
//        element rows     c + gamma J u + E P / h = 0                  (s.9, E = compliance,
//                         gamma the Rayleigh ratio of the material: seed 002's damping)
//        normal, limit    phi(c, r P / h) = 0                          (eq. 48, FB eq. 93 / min eq. 96)
//        friction (2)     J_f u + W P_f / h = 0, W the fixed point     (eq. 36, 104-106)
//   3. linearises each row as a J du + D dP = -rho (a the row's derivative scale: h for positional
//      rows, alpha h for NCP rows, 1 for friction) and divides by a, which makes the system
//      symmetric (eq. 53): rows whose a vanishes (an open contact, a released friction row) are
//      solved on their own for dP and moved to the right-hand side;
//   4. solves [J H^-1 J^T + C] dP = J H^-1 g - h (eq. 59) with H = M + the diagonal secant
//      geometric stiffness (eq. 71-74) and the eps regularisation of s.8.4, matrix-free, on the CPU
//      kernels or CUDA (gpu/schur.h);
//   5. takes the damped step t (eq. 61-63, s.8.1): P += t dP, u += t du with du = H^-1 (J^T dP - g).
//
// Start (s.8.1): P^0 = the last step's impulses of the same rows where the problem carries them
// (warm_start, the default: PositionProblem's *_impulse on entry, filled by the World from its
// State), else P^0 = 0 (eq. 68); u^0 = 0 (eq. 67), or "start": "free" u~, or "warm" the velocity
// that balances P^0, u~ + M^-1 J^T P^0 (eq. 57 with g = 0). The loop runs at most max_iterations
// Newton iterations of at most linear_iterations PCR iterations (the fixed budget of seed 003
// Table 2 by default, options "budget") and stops early at the tolerance. Stats: residual = the Newton
// residual, the largest of |M^-1 g| (m/s, rad/s) and the rows' residuals in velocity units
// (|rho| / h for positional rows, |phi_f| for friction); merit = the FCLib natural-map merit of
// the contact part (solvers/merit.h) with u_n = gap / h and u_T = J_T u, so that it compares with
// the other solvers'; converged = the residual reached abs_tol, or rel_tol times its value at
// the first iterate (rel_tol is 0 unless the scene sets it).
#include <coulomb/constraints.h>
#include <coulomb/error.h>
#include <coulomb/gpu/schur.h>
#include <coulomb/integrators.h>
#include <coulomb/merit.h>
#include <coulomb/ncp.h>
#include <coulomb/newton_device.h>
#include <coulomb/position_problem.h>
#include <coulomb/solver.h>
#include <coulomb/timer.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

namespace coulomb {

namespace {

using Mat6 = Eigen::Matrix<double, 6, 6>;

// seed 003 eq. 23-27 (FB, alpha = 0 and beta = 1 at (0, 0)) and eq. 18-22 (min-map): value and
// the partial derivatives alpha = dphi/da, beta = dphi/db (solvers/ncp.h)
struct Ncp {
  double phi, alpha, beta;
};
Ncp ncp(NcpFunction f, double a, double b) {
  const NcpValue v = f == NcpFunction::MinMap ? phi_min(a, b) : phi_fb(a, b);
  return {v.value, v.d_a, v.d_b};
}

// J^T x per DOF for the rows' Jacobian (x one value per row).
std::vector<Vec6> transpose_product(const ConstraintRows& rows, const std::vector<double>& x, int dofs) {
  std::vector<Vec6> out(std::size_t(dofs), Vec6::Zero());
  for (int r = 0; r < rows.rows(); ++r)
    for (int e = rows.entry_start[std::size_t(r)]; e < rows.entry_start[std::size_t(r) + 1]; ++e)
      out[std::size_t(rows.entry_dof[std::size_t(e)])] += rows.entry_J[std::size_t(e)] * x[std::size_t(r)];
  return out;
}

// a row's derivative scale below which it is solved on its own (an open contact)
constexpr double kDecoupled = 1e-9;

class Newton {
 public:
  Newton(PositionProblem& p, const SolverOptions& o) : p_(p), o_(o), n_(o.newton), h_(p.dt) {}
  SolverStats run();

 private:
  void setup();
  void set_configuration();
  void mass_blocks();
  double build_system(bool first);  // returns the Newton residual
  // its parts, in order
  std::vector<Vec6> evaluate_rows(bool first);  // J^T P per DOF
  void geometric_stiffness(const std::vector<Vec6>& JtP);
  void momentum_equations(const std::vector<Vec6>& JtP, double& residual);
  // one block of rows: its first row, size, and its C and compliance (both nb x nb, row-major)
  struct BlockView {
    int r0 = 0, nb = 0;
    double* C = nullptr;
    const double* E = nullptr;
  };
  void row_equations(double& residual);
  void element_rows(const BlockView& v, double& residual);
  void bilateral_row(const BlockView& v, int i, double& residual);
  void normal_row(const BlockView& v, int i, double& residual);
  void friction_rows(const BlockView& v, int i, double& residual);
  void system_jacobian();
  void known_steps_into_momentum();
  void schur_rhs();
  Configuration configuration() const { return p_.configuration(); }
  Vec6 velocity(int d) const {
    Vec6 u = Vec6::Zero();
    if (d < nr_) {
      u.head<3>() = p_.v[std::size_t(d)];
      u.tail<3>() = p_.w[std::size_t(d)];
    } else {
      u.head<3>() = p_.pv[std::size_t(d - nr_)];
    }
    return u;
  }
  void set_velocity(int d, const Vec6& u) {
    if (d < nr_) {
      p_.v[std::size_t(d)] = u.head<3>();
      p_.w[std::size_t(d)] = u.tail<3>();
    } else {
      p_.pv[std::size_t(d - nr_)] = u.head<3>();
    }
  }
  double row_inv_mass(int r) const;  // J_r M^-1 J_r^T
  void load_impulses();   // P^0 from the problem's *_impulse (the warm start)
  void store_impulses();
  std::pair<double*, int> impulse_of(int block);
  double contact_merit() const;

  PositionProblem& p_;
  const SolverOptions& o_;
  const NewtonOptions& n_;
  const double h_;
  int nr_ = 0, np_ = 0, nd_ = 0;
  ConstraintSet set_;
  std::vector<Vec6> ufree_;
  std::vector<Mat6> Minv_;     // M^-1 at q^- (zero for a DOF that does not move)
  std::vector<char> moves_;
  std::vector<Vec6> shift_;    // diagonal geometric stiffness shift of H (eq. 74)
  ConstraintRows rows_, prev_rows_;
  std::vector<double> P_;      // impulses per row
  std::vector<Vec6> prev_u_;
  bool have_prev_ = false;
  // per Newton iteration
  gpu::SchurSystem sys_;
  std::vector<double> rhs_, dP_, known_;  // known_: dP of decoupled rows (NaN for coupled rows)
  std::vector<Vec6> Hinv_g_;
  std::vector<Mat6> Hinv_;
  std::vector<char> coupled_;
  bool cuda_visible_ = false;  // "auto" only: whether it may choose CUDA (newton_uses_cuda)
};

void Newton::setup() {
  nr_ = p_.num_rigid();
  np_ = p_.num_particles();
  nd_ = nr_ + np_;
  if (p_.x0.size() != p_.x.size() || p_.q0.size() != p_.q.size()) {
    // a problem built by hand: the start of the step from the prediction (x~ = x^- + h v~)
    p_.x0.resize(p_.x.size());
    p_.q0.resize(p_.q.size());
    for (int i = 0; i < nr_; ++i) {
      const auto k = std::size_t(i);
      p_.x0[k] = p_.x[k] - h_ * p_.v[k];
      const Eigen::Vector4d dq = h_ * quaternion_rate(p_.q[k], p_.w[k]);
      p_.q0[k] = Quat(p_.q[k].w() - dq[0], p_.q[k].x() - dq[1], p_.q[k].y() - dq[2], p_.q[k].z() - dq[3]).normalized();
    }
  }
  if (p_.px0.size() != p_.px.size()) {
    p_.px0.resize(p_.px.size());
    for (int i = 0; i < np_; ++i) p_.px0[std::size_t(i)] = p_.px[std::size_t(i)] - h_ * p_.pv[std::size_t(i)];
  }
  set_.contacts = p_.contacts;
  set_.joints = p_.joints;
  set_.attachments = p_.attachments;
  set_.elements = p_.elements;
  set_.materials = p_.materials;

  ufree_.resize(std::size_t(nd_));
  moves_.resize(std::size_t(nd_));
  for (int d = 0; d < nd_; ++d) {
    ufree_[std::size_t(d)] = velocity(d);
    moves_[std::size_t(d)] = d < nr_ ? p_.inv_mass[std::size_t(d)] > 0.0 : p_.p_inv_mass[std::size_t(d - nr_)] > 0.0;
  }
  mass_blocks();
  shift_.assign(std::size_t(nd_), Vec6::Zero());
  // eq. 67: u^0 = 0 for what moves (a DOF that does not move keeps its prescribed velocity);
  // "warm" starts from u~ here and moves to u~ + M^-1 J^T P^0 once the rows are evaluated
  if (n_.start == NewtonStart::Zero)
    for (int d = 0; d < nd_; ++d)
      if (moves_[std::size_t(d)]) set_velocity(d, Vec6::Zero());
  cuda_visible_ = n_.device == ComputeDevice::Auto && gpu::cuda_available();
}

void Newton::mass_blocks() {
  Minv_.assign(std::size_t(nd_), Mat6::Zero());
  for (int d = 0; d < nd_; ++d) {
    if (!moves_[std::size_t(d)]) continue;
    Mat6& m = Minv_[std::size_t(d)];
    if (d < nr_) {
      const auto k = std::size_t(d);
      const Mat3 R = p_.q0[k].toRotationMatrix();
      m.topLeftCorner<3, 3>() = p_.inv_mass[k] * Mat3::Identity();
      m.bottomRightCorner<3, 3>() = R * p_.inv_inertia[k].asDiagonal() * R.transpose();
    } else {
      m.topLeftCorner<3, 3>() = p_.p_inv_mass[std::size_t(d - nr_)] * Mat3::Identity();
    }
  }
}

void Newton::set_configuration() {
  for (int i = 0; i < nr_; ++i) {
    const auto k = std::size_t(i);
    if (!moves_[k] && p_.v[k].isZero() && p_.w[k].isZero()) continue;
    p_.x[k] = p_.x0[k] + h_ * p_.v[k];
    const Eigen::Vector4d dq = h_ * quaternion_rate(p_.q0[k], p_.w[k]);  // eq. 50 with G at q^-
    p_.q[k] = Quat(p_.q0[k].w() + dq[0], p_.q0[k].x() + dq[1], p_.q0[k].y() + dq[2], p_.q0[k].z() + dq[3]).normalized();
  }
  for (int i = 0; i < np_; ++i) p_.px[std::size_t(i)] = p_.px0[std::size_t(i)] + h_ * p_.pv[std::size_t(i)];
}

double Newton::row_inv_mass(int r) const {
  double d = 0.0;
  for (int e = rows_.entry_start[std::size_t(r)]; e < rows_.entry_start[std::size_t(r) + 1]; ++e) {
    const Vec6& J = rows_.entry_J[std::size_t(e)];
    d += J.dot(Minv_[std::size_t(rows_.entry_dof[std::size_t(e)])] * J);
  }
  return d;
}

// Evaluates the rows at q(u) and fills the Schur system, its right-hand side and the decoupled
// rows' steps; returns the Newton residual (see the top of the file).
double Newton::build_system(bool first) {
  const std::vector<Vec6> JtP = evaluate_rows(first);
  if (n_.geometric_stiffness && have_prev_) geometric_stiffness(JtP);
  double residual = 0.0;
  momentum_equations(JtP, residual);
  row_equations(residual);
  system_jacobian();
  known_steps_into_momentum();
  schur_rhs();
  return residual;
}

// The rows at this configuration and J^T P per DOF; on the first iteration the impulses start
// (zero, or the warm start), and a "warm" start moves u to u~ + M^-1 J^T P^0 and evaluates the
// rows again there.
std::vector<Vec6> Newton::evaluate_rows(bool first) {
  const Configuration cfg = configuration();
  if (!first) std::swap(prev_rows_, rows_);
  evaluate_constraints(cfg, set_, rows_);
  const int m = rows_.rows();
  if (first) {
    P_.assign(std::size_t(m), 0.0);
    if (o_.warm_start) load_impulses();
  }
  std::vector<Vec6> JtP = transpose_product(rows_, P_, nd_);
  if (first && n_.start == NewtonStart::Warm) {
    for (int d = 0; d < nd_; ++d)
      if (moves_[std::size_t(d)]) set_velocity(d, ufree_[std::size_t(d)] + Minv_[std::size_t(d)] * JtP[std::size_t(d)]);
    set_configuration();
    evaluate_constraints(configuration(), set_, rows_);
    JtP = transpose_product(rows_, P_, nd_);
  }
  return JtP;
}

// eq. 71-74: the diagonal secant of d(J^T P)/du along the last step (the same P at both
// configurations), added to H where it makes H larger than M (see solvers/README.md)
void Newton::geometric_stiffness(const std::vector<Vec6>& JtP) {
  const std::vector<Vec6> JtP_old = transpose_product(prev_rows_, P_, nd_);
  for (int d = 0; d < nd_; ++d) {
    if (!moves_[std::size_t(d)]) continue;
    const Vec6 du = velocity(d) - prev_u_[std::size_t(d)];
    for (int c = 0; c < 6; ++c) {
      if (std::abs(du[c]) < 1e-12) continue;
      const double k = secant_stiffness(JtP[std::size_t(d)][c], JtP_old[std::size_t(d)][c], 0.0, du[c]);  // -dF/du
      shift_[std::size_t(d)][c] = std::max(0.0, k);
    }
  }
}

// H^-1 = (1 + M^-1 S)^-1 M^-1 per DOF, and H^-1 g with M^-1 g = (u - u~) - M^-1 J^T P
void Newton::momentum_equations(const std::vector<Vec6>& JtP, double& residual) {
  Hinv_.assign(std::size_t(nd_), Mat6::Zero());
  Hinv_g_.assign(std::size_t(nd_), Vec6::Zero());
  for (int d = 0; d < nd_; ++d) {
    if (!moves_[std::size_t(d)]) continue;
    const Mat6& Mi = Minv_[std::size_t(d)];
    const Mat6 T = (Mat6::Identity() + Mi * shift_[std::size_t(d)].asDiagonal()).inverse();
    Hinv_[std::size_t(d)] = T * Mi;
    const Vec6 Mig = velocity(d) - ufree_[std::size_t(d)] - Mi * JtP[std::size_t(d)];
    residual = std::max(residual, Mig.cwiseAbs().maxCoeff());
    Hinv_g_[std::size_t(d)] = T * Mig;
  }
}

// The rows' equations, block by block: each block's C (the compliance part of the Schur
// system), the right-hand side, and the decoupled rows' known steps.
void Newton::row_equations(double& residual) {
  const int m = rows_.rows();
  rhs_.assign(std::size_t(m), 0.0);
  known_.assign(std::size_t(m), std::nan(""));
  coupled_.assign(std::size_t(m), 1);
  sys_ = gpu::SchurSystem{};
  sys_.rows = m;
  sys_.dofs = nd_;
  sys_.row_block.resize(std::size_t(m));
  sys_.block_start.assign(1, 0);
  sys_.c_start.clear();
  sys_.C.clear();
  const int nblocks = int(rows_.block_start.size()) - 1;
  for (int b = 0; b < nblocks; ++b) {
    const int r0 = rows_.block_start[std::size_t(b)], r1 = rows_.block_start[std::size_t(b) + 1], nb = r1 - r0;
    sys_.c_start.push_back(int(sys_.C.size()));
    sys_.C.resize(sys_.C.size() + std::size_t(nb * nb), 0.0);
    BlockView v{r0, nb, sys_.C.data() + sys_.c_start.back(), rows_.compliance.data() + rows_.compliance_start[std::size_t(b)]};
    for (int r = r0; r < r1; ++r) sys_.row_block[std::size_t(r)] = b;
    sys_.block_start.push_back(r1);
    if (rows_.kind[std::size_t(r0)] == RowKind::Element) {
      element_rows(v, residual);
      continue;
    }
    for (int i = 0; i < nb; ++i) {
      const RowKind kind = rows_.kind[std::size_t(r0 + i)];
      if (kind == RowKind::Bilateral || kind == RowKind::Actuator) {
        bilateral_row(v, i, residual);
      } else if (kind == RowKind::ContactNormal || kind == RowKind::Limit) {
        normal_row(v, i, residual);
      } else {
        friction_rows(v, i, residual);
        ++i;  // the s row was done with the t row
      }
    }
  }
}

// c + gamma J u + E P / h = 0: a = h + gamma, D = E / h (dense)
void Newton::element_rows(const BlockView& v, double& residual) {
  const int r0 = v.r0, nb = v.nb;
  double* Cb = v.C;
  const double* E = v.E;
  const auto& mat = set_.materials[std::size_t(set_.elements[std::size_t(rows_.block[std::size_t(r0)])].material)];
  const double s = h_ + mat.damping;
  for (int i = 0; i < nb; ++i) {
    const int r = r0 + i;
    double Ju = 0.0;
    for (int e = rows_.entry_start[std::size_t(r)]; e < rows_.entry_start[std::size_t(r) + 1]; ++e)
      Ju += rows_.entry_J[std::size_t(e)].dot(velocity(rows_.entry_dof[std::size_t(e)]));
    double rho = rows_.value[std::size_t(r)] + mat.damping * Ju;
    for (int j = 0; j < nb; ++j) {
      rho += E[i * nb + j] * P_[std::size_t(r0 + j)] / h_;
      Cb[i * nb + j] = E[i * nb + j] / (h_ * s);
    }
    rhs_[std::size_t(r)] = rho / s;
    residual = std::max(residual, std::abs(rho) / s);
  }
}

// A bilateral row, or a drive: a drive with a force bound is the box NCP
// P = mid(lo h, P - rho / (h w), hi h), w the row's inverse mass: bilateral inside the box, its
// impulse known at a bound.
void Newton::bilateral_row(const BlockView& v, int i, double& residual) {
  const int r = v.r0 + i, nb = v.nb;
  const RowKind kind = rows_.kind[std::size_t(r)];
  const double* E = v.E;
  const double c = rows_.value[std::size_t(r)];
  const double P = P_[std::size_t(r)];
  double& C = v.C[i * nb + i];
  const double box_lo = rows_.lo[std::size_t(r)] * h_, box_hi = rows_.hi[std::size_t(r)] * h_;
  const double trial = kind == RowKind::Actuator
                           ? P - (c + E[i * nb + i] * P / h_) / (h_ * std::max(row_inv_mass(r), 1e-300))
                           : 0.0;
  if (kind == RowKind::Bilateral || (trial > box_lo && trial < box_hi)) {
    const double alpha = E[i * nb + i];
    const double rho = c + alpha * P / h_;
    C = alpha / (h_ * h_);
    rhs_[std::size_t(r)] = rho / h_;
    residual = std::max(residual, std::abs(rho) / h_);
  } else {
    const double bound = trial <= box_lo ? box_lo : box_hi;
    coupled_[std::size_t(r)] = 0;
    known_[std::size_t(r)] = bound - P;
    C = 1.0;
    residual = std::max(residual, std::abs(bound - P) * row_inv_mass(r));
  }
}

// A contact's normal row or a joint limit: the NCP of eq. 93-98, decoupled while open.
void Newton::normal_row(const BlockView& v, int i, double& residual) {
  const int r = v.r0 + i, nb = v.nb;
  const double c = rows_.value[std::size_t(r)];
  const double P = P_[std::size_t(r)];
  double& C = v.C[i * nb + i];
  const double alpha_c = v.E[i * nb + i];  // a limit's compliance (contacts: 0)
  const double rn = n_.scaling == NcpScaling::Complementarity ? h_ * h_ * std::max(row_inv_mass(r), 1e-300)
                    : n_.scaling == NcpScaling::Timestep     ? h_ * h_
                                                             : 1.0;
  const Ncp f = ncp(n_.ncp, c + alpha_c * P / h_, rn * P / h_);  // eq. 93-98
  residual = std::max(residual, std::abs(f.phi) / h_);
  const double a = f.alpha * h_;  // the row's derivative scale
  const double D = f.beta * rn / h_ + f.alpha * alpha_c / h_;
  if (f.alpha < kDecoupled) {
    coupled_[std::size_t(r)] = 0;
    known_[std::size_t(r)] = D > 0.0 ? -f.phi / D : 0.0;
    C = 1.0;
  } else {
    C = D / a;
    rhs_[std::size_t(r)] = f.phi / a;
  }
}

// A contact's friction rows r (t) and r + 1 (s), its normal at r - 1: eq. 33-35 with
// r-scaling (eq. 99-105), W = (|v_T| - psi) / (|lambda_f| + psi / r).
void Newton::friction_rows(const BlockView& v, int i, double& residual) {
  const int r = v.r0 + i, nb = v.nb;
  double* Cb = v.C;
  const double P = P_[std::size_t(r)];
  const int rn_row = r - 1;
  const double mu = set_.contacts[std::size_t(rows_.block[std::size_t(r)])].mu;
  const double lambda_n = P_[std::size_t(rn_row)] / h_;
  const Eigen::Vector2d Pf(P, P_[std::size_t(r) + 1]);
  const double dm = 0.5 * (row_inv_mass(r) + row_inv_mass(r + 1));
  Eigen::Vector2d vT = Eigen::Vector2d::Zero();
  for (int j = 0; j < 2; ++j)
    for (int e = rows_.entry_start[std::size_t(r + j)]; e < rows_.entry_start[std::size_t(r + j) + 1]; ++e)
      vT[j] += rows_.entry_J[std::size_t(e)].dot(velocity(rows_.entry_dof[std::size_t(e)]));
  const double rf = n_.scaling == NcpScaling::Complementarity ? h_ * std::max(dm, 1e-300)
                    : n_.scaling == NcpScaling::Timestep     ? h_
                                                             : 1.0;
  const double lf = Pf.norm() / h_, speed = vT.norm();
  const double psi = mu * lambda_n > 0.0 ? ncp(n_.ncp, speed, rf * (mu * lambda_n - lf)).phi : 0.0;
  const double num = speed - psi, den = lf + psi / rf;
  if (mu * lambda_n > 0.0) {
    // the residual of eq. 31-32: the NCP value and the misalignment of the force with the slip
    const double align = lf > 0.0 ? (vT + speed * Pf / Pf.norm()).norm() : speed;
    residual = std::max(residual, std::max(std::abs(psi), lf > 0.0 || speed > 0.0 ? align : 0.0));
  }
  if (!(mu * lambda_n > 0.0) || !(den > 1e-9 * mu * lambda_n)) {
    // eq. 106 inactive (or the fixed point asks for a friction force of at most zero): the
    // friction rows are removed and their impulse returns to zero
    for (int j = 0; j < 2; ++j) {
      coupled_[std::size_t(r + j)] = 0;
      known_[std::size_t(r + j)] = -Pf[j];
      Cb[(i + j) * nb + i + j] = 1.0;
      if (!(mu * lambda_n > 0.0)) residual = std::max(residual, std::abs(Pf[j]) * dm);
    }
  } else {
    const double W = num > 0.0 ? num / den : 0.0;
    for (int j = 0; j < 2; ++j) {
      Cb[(i + j) * nb + i + j] = W / h_;                  // eq. 53, a = 1
      rhs_[std::size_t(r + j)] = vT[j] + W * Pf[j] / h_;  // eq. 36
    }
  }
}

// J in the system: coupled rows only (a decoupled row's dP is known and goes to the right-hand
// side), and H^-1.
void Newton::system_jacobian() {
  const int m = rows_.rows();
  sys_.entry_start.assign(1, 0);
  sys_.entry_dof.clear();
  sys_.entry_J.clear();
  for (int r = 0; r < m; ++r) {
    if (coupled_[std::size_t(r)])
      for (int e = rows_.entry_start[std::size_t(r)]; e < rows_.entry_start[std::size_t(r) + 1]; ++e) {
        const int d = rows_.entry_dof[std::size_t(e)];
        if (!moves_[std::size_t(d)]) continue;
        sys_.entry_dof.push_back(d);
        const Vec6& J = rows_.entry_J[std::size_t(e)];
        sys_.entry_J.insert(sys_.entry_J.end(), J.data(), J.data() + 6);
      }
    sys_.entry_start.push_back(int(sys_.entry_dof.size()));
  }
  sys_.Hinv.resize(36 * std::size_t(nd_));
  for (int d = 0; d < nd_; ++d)
    Eigen::Map<Eigen::Matrix<double, 6, 6, Eigen::RowMajor>>(sys_.Hinv.data() + 36 * d) = Hinv_[std::size_t(d)];
  sys_.build_transpose();
}

// the decoupled rows' known steps enter the momentum balance: g' = g - J^T dP_known, so that
// H^-1 g' = H^-1 g - H^-1 J^T dP_known
void Newton::known_steps_into_momentum() {
  const int m = rows_.rows();
  for (int r = 0; r < m; ++r) {
    if (coupled_[std::size_t(r)] || known_[std::size_t(r)] == 0.0) continue;
    for (int e = rows_.entry_start[std::size_t(r)]; e < rows_.entry_start[std::size_t(r) + 1]; ++e) {
      const int d = rows_.entry_dof[std::size_t(e)];
      if (moves_[std::size_t(d)])
        Hinv_g_[std::size_t(d)] -= Hinv_[std::size_t(d)] * rows_.entry_J[std::size_t(e)] * known_[std::size_t(r)];
    }
  }
}

// eq. 59's right-hand side J H^-1 g - h; s.8.4's eps on the coupled rows' diagonal
void Newton::schur_rhs() {
  const int m = rows_.rows();
  std::vector<double> diag(rhs_.size());
  gpu::schur_diagonal(sys_, diag.data());
  for (int r = 0; r < m; ++r) {
    if (!coupled_[std::size_t(r)]) {
      rhs_[std::size_t(r)] = 0.0;  // C_rr = 1, no J: the row stays 0 in the solve, its step is known_
      continue;
    }
    double JHg = 0.0;
    for (int e = sys_.entry_start[std::size_t(r)]; e < sys_.entry_start[std::size_t(r) + 1]; ++e)
      JHg += Eigen::Map<const Vec6>(sys_.entry_J.data() + 6 * e).dot(Hinv_g_[std::size_t(sys_.entry_dof[std::size_t(e)])]);
    rhs_[std::size_t(r)] = JHg - rhs_[std::size_t(r)];
    const int b = sys_.row_block[std::size_t(r)];
    const int nb = sys_.block_start[std::size_t(b) + 1] - sys_.block_start[std::size_t(b)];
    const int i = r - sys_.block_start[std::size_t(b)];
    const double C = sys_.C[std::size_t(sys_.c_start[std::size_t(b)] + i * nb + i)];
    sys_.C[std::size_t(sys_.c_start[std::size_t(b)] + i * nb + i)] += n_.epsilon * std::max(diag[std::size_t(r)] - C, 0.0);
  }
}

// Block b's rows in the problem's impulse arrays (a contact's, element's, joint's or
// attachment's) and how many of them the block has.
std::pair<double*, int> Newton::impulse_of(int b) {
  const int r0 = rows_.block_start[std::size_t(b)], nb = rows_.block_start[std::size_t(b) + 1] - r0;
  const auto i = std::size_t(rows_.block[std::size_t(r0)]);
  const RowKind k = rows_.kind[std::size_t(r0)];
  if (k == RowKind::ContactNormal) return {p_.contact_impulse[i].data(), 3};
  if (k == RowKind::Element) return {p_.element_impulse[i].data(), nb};
  if (b < int(set_.contacts.size() + set_.joints.size()) && b >= int(set_.contacts.size()))
    return {p_.joint_impulse[i].data(), nb};
  return {p_.attachment_impulse[i].data(), 3};
}

// P^0 from the problem's arrays (sized to the constraints, zero where the World had no impulse
// for them), and back after the solve.
void Newton::load_impulses() {
  p_.size_impulses();
  const int nblocks = int(rows_.block_start.size()) - 1;
  for (int b = 0; b < nblocks; ++b) {
    if (rows_.block_start[std::size_t(b) + 1] == rows_.block_start[std::size_t(b)]) continue;
    const auto [impulse, n] = impulse_of(b);
    std::copy_n(impulse, n, P_.data() + rows_.block_start[std::size_t(b)]);
  }
}

void Newton::store_impulses() {
  p_.size_impulses();
  const int nblocks = int(rows_.block_start.size()) - 1;
  for (int b = 0; b < nblocks; ++b) {
    if (rows_.block_start[std::size_t(b) + 1] == rows_.block_start[std::size_t(b)]) continue;
    const auto [impulse, n] = impulse_of(b);
    std::copy_n(P_.data() + rows_.block_start[std::size_t(b)], n, impulse);
  }
}

double Newton::contact_merit() const {
  const std::size_t nc = set_.contacts.size();
  if (nc == 0) return 0.0;
  std::vector<Vec3> r(nc), u(nc);
  std::vector<double> mu(nc);
  double q2 = 0.0;
  for (std::size_t k = 0; k < nc; ++k) {
    const int r0 = rows_.block_start[k];
    for (int j = 0; j < 3; ++j) {
      double Ju = 0.0, Jf = 0.0;
      for (int e = rows_.entry_start[std::size_t(r0 + j)]; e < rows_.entry_start[std::size_t(r0 + j) + 1]; ++e) {
        const int d = rows_.entry_dof[std::size_t(e)];
        Ju += rows_.entry_J[std::size_t(e)].dot(velocity(d));
        Jf += rows_.entry_J[std::size_t(e)].dot(ufree_[std::size_t(d)]);
      }
      r[k][j] = P_[std::size_t(r0 + j)];
      u[k][j] = j == 0 ? rows_.value[std::size_t(r0)] / h_ : Ju;  // normal: gap rate of the step
      q2 += Jf * Jf;
    }
    mu[k] = set_.contacts[k].mu;
  }
  return fclib_natural_map_merit(r, u, mu, std::sqrt(q2));
}

SolverStats Newton::run() {
  const Stopwatch watch;
  SolverStats st;
  setup();
  gpu::LinearOptions lo;
  lo.method = static_cast<gpu::LinearSolver>(n_.linear);
  lo.max_iterations = n_.linear_iterations;
  lo.rel_tol = n_.linear_tol;
  st.converged = false;
  double first_residual = 0.0;
  for (int it = 0;; ++it) {
    set_configuration();
    const double residual = build_system(it == 0);
    if (!std::isfinite(residual)) throw std::runtime_error("newton-pcr: the Newton residual is not finite");
    st.residual = residual;
    if (o_.record_history) st.history.push_back(residual);
    if (it == 0) first_residual = residual;
    if (residual <= o_.abs_tol || residual <= o_.rel_tol * first_residual) {
      st.converged = true;
      break;
    }
    if (it == o_.max_iterations) break;
    // eq. 59 for dP (decoupled rows return their known step), then eq. 60 for du
    dP_.assign(rhs_.size(), 0.0);
    const gpu::Device device = newton_uses_cuda(n_, sys_.rows, cuda_visible_) ? gpu::Device::Cuda : gpu::Device::Cpu;
    const gpu::LinearResult lr = gpu::solve_linear(device, sys_, rhs_, dP_, lo);
    st.linear_iterations += lr.iterations;
    for (std::size_t r = 0; r < dP_.size(); ++r)
      if (!coupled_[r]) dP_[r] = known_[r];
    std::vector<Vec6> JtdP(std::size_t(nd_), Vec6::Zero());
    for (int r = 0; r < sys_.rows; ++r)
      for (int e = sys_.entry_start[std::size_t(r)]; e < sys_.entry_start[std::size_t(r) + 1]; ++e)
        JtdP[std::size_t(sys_.entry_dof[std::size_t(e)])] += Eigen::Map<const Vec6>(sys_.entry_J.data() + 6 * e) * dP_[std::size_t(r)];
    prev_u_.resize(std::size_t(nd_));
    const double t = n_.step;
    for (int d = 0; d < nd_; ++d) {
      prev_u_[std::size_t(d)] = velocity(d);
      if (!moves_[std::size_t(d)]) continue;
      const Vec6 du = Hinv_[std::size_t(d)] * JtdP[std::size_t(d)] - Hinv_g_[std::size_t(d)];  // eq. 60
      set_velocity(d, velocity(d) + t * du);  // eq. 62
    }
    for (std::size_t r = 0; r < P_.size(); ++r) P_[r] += t * dP_[r];  // eq. 61
    have_prev_ = true;
    st.iterations = it + 1;
  }
  store_impulses();
  st.merit = contact_merit();
  st.time_ms = watch.ms();
  return st;
}

}  // namespace

SolverStats solve_newton_pcr(PositionProblem& problem, const SolverOptions& options) {
  Newton n(problem, options);
  return n.run();
}

}  // namespace coulomb
