// Non-smooth Newton on assembled local problems (FCLib: u = W r + q, one Coulomb cone per
// contact), seed 003 sections 4, 6-8 and appendix A: `newton-fb` (Fischer-Burmeister) and
// `newton-minmap` (minimum map).
//
// Why this shape. A local problem has no bodies, so the velocity-level unknowns of seed 003 are
// gone: u = W r + q is a function of the impulses r, and the Newton system of eq. 56 reduces to
// its Schur complement (eq. 59) with J M^-1 J^T = W. Each contact's residual phi_k(u_k, r_k) and
// its Jacobian blocks A_k = d phi_k / d u_k, B_k = d phi_k / d r_k come from ncp_contact.h, in
// velocity units, with the r-factors of eq. 66 taken from W's diagonal (rho_n = W_nn for the
// normal row, the mean of W_tt and W_ss for the friction rows); the Newton matrix is
// blockdiag(A) W + blockdiag(B).
//  - friction "fixed_point" (the paper's W, eq. 33-37): the blocks are diagonal, so dividing each
//    row by its a_i > 0 gives the symmetric compliance form (W + diag(b / a)) dr = -phi / a of
//    eq. 59, which SimplicialLDLT or PCR (section 8.2) solve; rows with a_i = 0 fix
//    dr_i = -phi_i / b_i. SparseLU on the exact matrix is the third choice.
//  - friction "cone" (the default): Alart-Curnier / Fischer-Burmeister on the second-order cone,
//    full 3x3 blocks, an unsymmetric matrix: SparseLU.
// The iterate moves by r += t dr (s.8.1; t = 1 by default, measured) from r = 0 (eq. 68) or a warm
// start, the matrix is regularised as in s.8.4 with an epsilon that shrinks with ||phi||, and the
// impulses returned are the best iterate by the FCLib merit, the stopping test.
// Globalisation. The generalized Jacobian of a pile's redundant contacts is near singular at the
// solution, and the undamped step without a merit line search (s.8.1) can wander there without
// decreasing the merit. When the best merit has not halved over stall_iterations Newton
// iterations (or a factorisation fails), a projected block Gauss-Seidel phase (ProjectedPhase:
// seed 000's prox-gs on the natural map, each contact's step scaled by its r-factor) of at most
// prox_sweeps sweeps starts from the best iterate; it decreases the merit linearly but without
// stalling, and Newton resumes from the phase's best iterate with its regularisation restarted.
// The minimum map's residual can stall at a point outside the range of its Jacobian (a non-zero
// stationary point of ||phi||, where the regularised step only drifts along the null space); its
// roots do not depend on the r-factors but such points do, so each phase halves them for it.
// Every phase is sequential and ordered, so a problem's result does not depend on anything but
// its data and options.
// solvers/README.md ("Non-smooth Newton on FCLib problems") has the measurements behind each choice.
#include <coulomb/merit.h>
#include <coulomb/ncp_contact.h>
#include <coulomb/solver.h>
#include <coulomb/timer.h>

#include <Eigen/Eigenvalues>
#include <Eigen/OrderingMethods>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseLU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace coulomb {

namespace {

using SpMat = Eigen::SparseMatrix<double>;  // column-major
using Vec = Eigen::VectorXd;

// The local problem in flat arrays: 3 rows per contact (normal, t, s); torsion rows dropped.
struct Local {
  int nc = 0, m = 0;
  SpMat W;                 // (m x m), every diagonal entry stored
  SpMat Wsym;              // (W + W^T) / 2, every diagonal entry stored
  Vec q;                   // (m)
  std::vector<double> mu;  // (nc)
  Vec rho;  // (m) r-factor of each row (eq. 66): W_nn for normal rows, (W_tt + W_ss) / 2 for friction rows
  double merit_scale = 1.0;  // 1 + sqrt(||q||), the FCLib merit's denominator
};

Local make_local(const AssembledProblem& p) {
  Local L;
  L.nc = p.num_contacts();
  L.m = 3 * L.nc;
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(p.block.size() * 9 + std::size_t(L.m));
  for (int k = 0; k < L.nc; ++k)
    for (int e = p.row_start[std::size_t(k)]; e < p.row_start[std::size_t(k) + 1]; ++e) {
      const int c = p.col[std::size_t(e)];
      const Mat4& B = p.block[std::size_t(e)];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          if (B(i, j) != 0.0) t.emplace_back(3 * k + i, 3 * c + j, B(i, j));
    }
  for (int i = 0; i < L.m; ++i) t.emplace_back(i, i, 0.0);  // the diagonal is always stored
  L.W.resize(L.m, L.m);
  L.W.setFromTriplets(t.begin(), t.end());
  L.W.makeCompressed();
  const SpMat Wt = L.W.transpose();
  L.Wsym = 0.5 * (L.W + Wt);
  L.Wsym.makeCompressed();
  L.q.resize(L.m);
  L.mu.resize(std::size_t(L.nc));
  L.rho.resize(L.m);
  double mean_diag = 0.0;
  int positive = 0;
  for (int i = 0; i < L.m; ++i)
    if (L.W.coeff(i, i) > 0.0) {
      mean_diag += L.W.coeff(i, i);
      ++positive;
    }
  mean_diag = positive > 0 ? mean_diag / positive : 1.0;
  for (int k = 0; k < L.nc; ++k) {
    L.q.segment<3>(3 * k) = p.b[std::size_t(k)].head<3>();
    L.mu[std::size_t(k)] = p.mu[std::size_t(k)][0];
    // eq. 66 with the Delassus diagonal; a row without response falls back to the mean diagonal
    const double wn = L.W.coeff(3 * k, 3 * k);
    const double wf = 0.5 * (L.W.coeff(3 * k + 1, 3 * k + 1) + L.W.coeff(3 * k + 2, 3 * k + 2));
    L.rho[3 * k] = wn > 0.0 ? wn : mean_diag;
    L.rho[3 * k + 1] = L.rho[3 * k + 2] = wf > 0.0 ? wf : mean_diag;
  }
  L.merit_scale = 1.0 + std::sqrt(L.q.norm());
  return L;
}

// FCLib's MERIT_1 (merit.h) of r with u = W r + q.
double merit_of(const Local& L, const Vec& r, const Vec& u) {
  double sum = 0.0;
  for (int k = 0; k < L.nc; ++k) {
    const Vec3 rk = r.segment<3>(3 * k), uk = u.segment<3>(3 * k);
    Vec3 u_hat = uk;
    u_hat[0] += L.mu[std::size_t(k)] * planar_norm(uk[1], uk[2]);
    sum += (rk - project_on_cone(rk - u_hat, L.mu[std::size_t(k)])).squaredNorm();
  }
  return std::sqrt(sum) / L.merit_scale;
}

// The residual phi(r) and the blocks of its Jacobian blockdiag(A) W + blockdiag(B) (seed 003
// eq. 53-59 with the velocity-level contact condition 0 <= u_n _|_ r_n >= 0 of a local problem).
struct Residual {
  Vec phi;                 // (m)
  std::vector<Mat3> A, B;  // (nc) d phi_k / d u_k, d phi_k / d r_k
};

struct Formulation {
  NcpFunction ncp;
  NewtonFriction friction;
};

void evaluate(const Local& L, Formulation f, const Vec& r, const Vec& u, Residual& out) {
  out.phi.resize(L.m);
  out.A.resize(std::size_t(L.nc));
  out.B.resize(std::size_t(L.nc));
  for (int k = 0; k < L.nc; ++k) {
    const int n = 3 * k;
    const Vec3 uk = u.segment<3>(n), rk = r.segment<3>(n);
    const double mu = L.mu[std::size_t(k)], rn = L.rho[n], rf = L.rho[n + 1];
    ContactNcp c;
    if (f.friction == NewtonFriction::FixedPoint) c = contact_ncp_fixed_point(f.ncp, uk, rk, mu, rn, rf);
    else if (f.ncp == NcpFunction::MinMap) c = contact_ncp_alart_curnier(uk, rk, mu, rn, rf);
    else c = contact_ncp_fb_cone(uk, rk, mu, rn);
    out.phi.segment<3>(n) = c.phi;
    out.A[std::size_t(k)] = c.d_u;
    out.B[std::size_t(k)] = c.d_r;
  }
}

// The regularisation's floor, which keeps an exactly singular Newton matrix factorisable.
constexpr double kMinRegularization = 1e-12;
// Line search: at most this many halvings of the step before the damped step is taken anyway.
constexpr int kMaxHalvings = 10;

// A row whose velocity coefficient is below this is fixed (dr_i = -phi_i / B_ii) instead of divided.
constexpr double kFixedRow = 1e-12;

// The Newton direction from the rows of the Jacobian, by one of the linear solvers.
class NewtonSystem {
 public:
  NewtonSystem(const Local& L, const NewtonFclibOptions& o, bool symmetric_form)
      : L_(L), o_(o), symmetric_form_(symmetric_form) {}

  // Returns false if the factorisation failed. eps: the regularisation of this step (s.8.4).
  bool solve(const Residual& R, double eps, Vec& dr, int& linear_iterations) {
    eps_ = eps;
    if (!symmetric_form_ || o_.linear_solver == NewtonLinearSolver::Lu) return solve_lu(R, dr);
    return solve_symmetric(R, dr, linear_iterations);
  }

 private:
  // The pattern of J = blockdiag(A) W + blockdiag(B): block row k holds every column of W's three
  // rows of contact k (and its own three), in all three rows. Built once; `pos_` maps each
  // (contact, column, row) to J's value array.
  void build_pattern() {
    const Eigen::SparseMatrix<double, Eigen::RowMajor> Wr = L_.W;
    cols_.assign(std::size_t(L_.nc), {});
    wvals_.assign(std::size_t(L_.nc), {});
    std::vector<Eigen::Triplet<double>> t;
    for (int k = 0; k < L_.nc; ++k) {
      std::vector<int>& cols = cols_[std::size_t(k)];
      for (int i = 0; i < 3; ++i)
        for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Wr, 3 * k + i); it; ++it)
          cols.push_back(int(it.col()));
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      std::vector<Vec3>& vals = wvals_[std::size_t(k)];
      vals.assign(cols.size(), Vec3::Zero());
      for (int i = 0; i < 3; ++i)
        for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(Wr, 3 * k + i); it; ++it)
          vals[std::size_t(std::lower_bound(cols.begin(), cols.end(), int(it.col())) - cols.begin())][i] = it.value();
      for (int c : cols)
        for (int i = 0; i < 3; ++i) t.emplace_back(3 * k + i, c, 0.0);
    }
    J_.resize(L_.m, L_.m);
    J_.setFromTriplets(t.begin(), t.end());
    J_.makeCompressed();
    pos_.clear();
    pos_.reserve(t.size());
    for (const auto& e : t) {
      const int* first = J_.innerIndexPtr() + J_.outerIndexPtr()[e.col()];
      const int* last = J_.innerIndexPtr() + J_.outerIndexPtr()[e.col() + 1];
      pos_.push_back(int(std::lower_bound(first, last, e.row()) - J_.innerIndexPtr()));
    }
  }

  // SparseLU of J = blockdiag(A) W + blockdiag(B) + eps diag(rho) (the exact Jacobian)
  bool solve_lu(const Residual& R, Vec& dr) {
    if (J_.rows() == 0) build_pattern();
    double* v = J_.valuePtr();
    std::size_t e = 0;
    for (int k = 0; k < L_.nc; ++k) {
      const Mat3& A = R.A[std::size_t(k)];
      const Mat3& B = R.B[std::size_t(k)];
      const std::vector<int>& cols = cols_[std::size_t(k)];
      for (std::size_t c = 0; c < cols.size(); ++c) {
        Vec3 col = A * wvals_[std::size_t(k)][c];
        const int local = cols[c] - 3 * k;
        if (local >= 0 && local < 3) {
          col += B.col(local);
          col[local] += eps_ * L_.rho[cols[c]];
        }
        for (int i = 0; i < 3; ++i) v[pos_[e++]] = col[i];
      }
    }
    if (!lu_analyzed_) {
      lu_.analyzePattern(J_);
      lu_analyzed_ = true;
    }
    lu_.factorize(J_);
    if (lu_.info() != Eigen::Success) return false;
    dr = lu_.solve(-R.phi);
    return lu_.info() == Eigen::Success && dr.allFinite();
  }

  // The compliance form of eq. 59 (diagonal blocks only): rows with A_ii > 0 divided by A_ii,
  // rows with A_ii = 0 fixed.
  bool solve_symmetric(const Residual& R, Vec& dr, int& linear_iterations) {
    const int m = L_.m;
    fixed_.assign(std::size_t(m), 0);
    Vec d(m), rhs(m), fixed_step = Vec::Zero(m);
    for (int i = 0; i < m; ++i) {
      const double a = R.A[std::size_t(i / 3)](i % 3, i % 3), b = R.B[std::size_t(i / 3)](i % 3, i % 3);
      if (a > kFixedRow) {
        d[i] = b / a + eps_ * L_.rho[i];
        rhs[i] = -R.phi[i] / a;
      } else {
        fixed_[std::size_t(i)] = 1;
        fixed_step[i] = -R.phi[i] / b;
        d[i] = 1.0;
        rhs[i] = 0.0;
      }
    }
    // the fixed rows' steps move the free rows' velocities (with the true W)
    const Vec coupling = L_.W * fixed_step;
    for (int i = 0; i < m; ++i)
      if (!fixed_[std::size_t(i)]) rhs[i] -= coupling[i];
    Vec x;
    if (o_.linear_solver == NewtonLinearSolver::Ldlt) {
      if (!ldlt_factorize(d)) return false;
      x = ldlt_.solve(rhs);
      if (ldlt_.info() != Eigen::Success) return false;
    } else {
      linear_iterations += pcr(d, rhs, x);
    }
    dr = x;
    for (int i = 0; i < m; ++i)
      if (fixed_[std::size_t(i)]) dr[i] = fixed_step[i];
    return dr.allFinite();
  }

  bool ldlt_factorize(const Vec& d) {
    if (S_.rows() == 0) S_ = L_.Wsym;
    for (int j = 0; j < L_.m; ++j)
      for (SpMat::InnerIterator it(S_, j), w(L_.Wsym, j); it; ++it, ++w) {
        const int i = int(it.row());
        double v = w.value();
        if (fixed_[std::size_t(i)] || fixed_[std::size_t(j)]) v = 0.0;
        if (i == j) v = fixed_[std::size_t(i)] ? 1.0 : v + d[i];
        it.valueRef() = v;
      }
    if (!ldlt_analyzed_) {
      ldlt_.analyzePattern(S_);
      ldlt_analyzed_ = true;
    }
    ldlt_.factorize(S_);
    return ldlt_.info() == Eigen::Success;
  }

  // y = S x on the free rows (the fixed rows' x is zero and their y is left zero)
  void apply(const Vec& d, const Vec& x, Vec& y) const {
    y.noalias() = L_.Wsym * x;
    for (int i = 0; i < L_.m; ++i) y[i] = fixed_[std::size_t(i)] ? 0.0 : y[i] + d[i] * x[i];
  }

  // Preconditioned conjugate residual (seed 003 s.8.2) with the Jacobi preconditioner, from
  // x = 0: each iteration minimises the preconditioned residual over the Krylov space, so it
  // decreases monotonically and stops early at pcr_iterations or a relative residual of 1e-10.
  int pcr(const Vec& d, const Vec& b, Vec& x) {
    const int m = L_.m;
    Vec Minv(m);
    for (int i = 0; i < m; ++i) {
      const double diag = fixed_[std::size_t(i)] ? 1.0 : L_.Wsym.coeff(i, i) + d[i];
      Minv[i] = fixed_[std::size_t(i)] || !(diag > 0.0) ? 0.0 : 1.0 / diag;
    }
    x = Vec::Zero(m);
    Vec r = Minv.cwiseProduct(b), p = r, Ar(m), Ap(m);
    apply(d, r, Ar);
    Ap = Ar;
    double rAr = r.dot(Ar);
    const double r0 = r.norm();
    int it = 0;
    for (; it < o_.pcr_iterations && r.norm() > 1e-10 * r0 && rAr > 0.0; ++it) {
      const Vec MAp = Minv.cwiseProduct(Ap);
      const double denom = Ap.dot(MAp);
      if (!(denom > 0.0)) break;
      const double alpha = rAr / denom;
      x += alpha * p;
      r -= alpha * MAp;
      apply(d, r, Ar);
      const double rAr_next = r.dot(Ar);
      const double beta = rAr_next / rAr;
      rAr = rAr_next;
      p = r + beta * p;
      Ap = Ar + beta * Ap;
    }
    return it;
  }

  const Local& L_;
  const NewtonFclibOptions& o_;
  bool symmetric_form_;
  double eps_ = 0.0;
  std::vector<char> fixed_;
  SpMat J_, S_;
  std::vector<std::vector<int>> cols_;    // (nc) columns of block row k of J
  std::vector<std::vector<Vec3>> wvals_;  // (nc) W's three rows of contact k at those columns
  std::vector<int> pos_;                  // J's value index of each (contact, column, row)
  Eigen::SparseLU<SpMat, Eigen::COLAMDOrdering<int>> lu_;
  Eigen::SimplicialLDLT<SpMat, Eigen::Lower, Eigen::AMDOrdering<int>> ldlt_;
  bool lu_analyzed_ = false, ldlt_analyzed_ = false;
};

// Projected block Gauss-Seidel on the natural map (seed 000 eq. 20 and 25, with the De Saxce
// velocity u_hat of the FCLib problem): contact by contact, r_a <- P_C(r_a - nu_a u_hat_a) until
// its local change vanishes, u_a = (W r + q)_a kept current. nu_a is the scalar r-factor of
// contact a, 1 / lambda_max of its diagonal block's symmetric part: seed 003 eq. 66 (and seed 000
// eq. 39) take W's diagonal, but the fixed point is the Coulomb solution only for one scalar per
// contact, and the block's largest eigenvalue keeps the local iteration a contraction.
class ProjectedPhase {
 public:
  explicit ProjectedPhase(const Local& L) : L_(L), Wr_(L.W), nu_(std::size_t(L.nc)), Waa_(std::size_t(L.nc)) {
    for (int k = 0; k < L.nc; ++k) {
      Mat3 B = Mat3::Zero();
      for (int i = 0; i < 3; ++i)
        for (RowMat::InnerIterator it(Wr_, 3 * k + i); it; ++it)
          if (it.col() >= 3 * k && it.col() < 3 * k + 3) B(i, int(it.col()) - 3 * k) = it.value();
      Waa_[std::size_t(k)] = B;
      const double lmax = Eigen::SelfAdjointEigenSolver<Mat3>(0.5 * (B + B.transpose()), Eigen::EigenvaluesOnly)
                              .eigenvalues()
                              .maxCoeff();
      nu_[std::size_t(k)] = lmax > 0.0 ? 1.0 / lmax : 0.0;  // no response: the contact is left alone
    }
  }

  // One sweep over the contacts in index order.
  void sweep(Vec& r) const {
    for (int k = 0; k < L_.nc; ++k) {
      const double nu = nu_[std::size_t(k)], mu = L_.mu[std::size_t(k)];
      if (nu == 0.0) continue;
      Vec3 u = L_.q.segment<3>(3 * k);
      for (int i = 0; i < 3; ++i)
        for (RowMat::InnerIterator it(Wr_, 3 * k + i); it; ++it) u[i] += it.value() * r[it.col()];
      Vec3 rk = r.segment<3>(3 * k);
      for (int local = 0; local < kLocalIterations; ++local) {
        Vec3 u_hat = u;
        u_hat[0] += mu * planar_norm(u[1], u[2]);
        const Vec3 next = project_on_cone(rk - nu * u_hat, mu);
        const Vec3 d = next - rk;
        rk = next;
        u += Waa_[std::size_t(k)] * d;
        if (d.norm() <= 1e-14 * (1.0 + rk.norm())) break;
      }
      r.segment<3>(3 * k) = rk;
    }
  }

 private:
  using RowMat = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  // a contact's local fixed-point iterations per visit (one visit is one local solve)
  static constexpr int kLocalIterations = 20;
  const Local& L_;
  RowMat Wr_;
  std::vector<double> nu_;  // (nc) scalar r-factor of each contact
  std::vector<Mat3> Waa_;   // (nc) diagonal block of W
};

// The projected phase checks its merit after every this many sweeps, and stops when the merit
// has not fallen by kStallRatio over kPhaseStallChecks checks.
constexpr int kPhaseCheckEvery = 5;
constexpr int kPhaseStallChecks = 8;
// Newton's stall test: the best merit must fall below this fraction of its value at the start of
// a window of stall_iterations iterations.
constexpr double kStallRatio = 0.5;
// The minimum map's r-factors are multiplied by this at each projected phase (measured on
// RockPile_tob1: solvers/README.md, "Globalisation").
constexpr double kStallRhoFactor = 0.5;

// The damped step r + t dr (s.8.1) into trial, u_trial and R_trial; with line_search, t is halved
// while ||phi|| does not decrease from ||phi(r)||^2 = theta
void damped_step(const Local& L, const Formulation& f, const NewtonFclibOptions& o, const Vec& r, const Vec& dr,
                 double theta, Vec& trial, Vec& u_trial, Residual& R_trial) {
  const auto at = [&](double t) {
    trial = r + t * dr;
    u_trial = L.W * trial + L.q;
    evaluate(L, f, trial, u_trial, R_trial);
  };
  double t = o.damping;
  for (int halvings = 0;; ++halvings) {
    at(t);
    if (!o.line_search || R_trial.phi.squaredNorm() <= (1.0 - 2e-4 * t) * theta) return;
    if (halvings == kMaxHalvings) return at(o.damping);  // no decrease along dr: the damped step anyway (non-monotone)
    t *= 0.5;
  }
}

// The projected phase from `best` (of merit best_merit): at most prox_sweeps sweeps, the merit
// checked every kPhaseCheckEvery of them, until tol or kPhaseStallChecks checks without progress;
// best and best_merit become the best iterate met. Returns the sweeps run.
int projected_phase(ProjectedPhase& phase, const Local& L, const NewtonFclibOptions& o, double tol, Vec& best,
                    double& best_merit) {
  Vec x = best;
  double check_ref = best_merit;
  int checks_without_progress = 0, sweeps = 0;
  for (int s = 1; s <= o.prox_sweeps; ++s) {
    phase.sweep(x);
    ++sweeps;
    if (s % kPhaseCheckEvery != 0 && s != o.prox_sweeps) continue;
    const Vec ux = L.W * x + L.q;
    const double mx = merit_of(L, x, ux);
    if (!std::isfinite(mx)) break;
    if (mx < best_merit) {
      best_merit = mx;
      best = x;
    }
    if (best_merit <= tol) break;
    if (best_merit <= kStallRatio * check_ref) {
      check_ref = best_merit;
      checks_without_progress = 0;
    } else if (++checks_without_progress == kPhaseStallChecks) {
      break;
    }
  }
  return sweeps;
}

SolverStats newton(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol, NcpFunction ncp) {
  const Stopwatch watch;
  const NewtonFclibOptions& o = opt.newton_fclib;
  SolverStats stats;
  stats.converged = false;
  Local L = make_local(p);  // its r-factors shrink at each stall of the minimum map
  const int nc = L.nc;
  const Formulation f{ncp, o.friction};

  // zero start (eq. 68) or the caller's impulses
  Vec r = Vec::Zero(L.m);
  if (opt.warm_start && int(sol.lambda.size()) == nc)
    for (int k = 0; k < nc; ++k) r.segment<3>(3 * k) = sol.lambda[std::size_t(k)].head<3>();
  Vec u = L.W * r + L.q;
  Residual R;
  evaluate(L, f, r, u, R);
  double merit = merit_of(L, r, u), theta = R.phi.squaredNorm();
  const double theta0 = std::max(theta, 1e-300);
  Vec best = r;
  double best_merit = merit;

  NewtonSystem system(L, o, f.friction == NewtonFriction::FixedPoint);
  Vec dr, trial, u_trial;
  Residual R_trial;
  // the FCLib merit is already the stopping test, computed every iteration (cheap beside the
  // factorisation); merit_tol (`coulomb fclib`'s --tol) can only tighten abs_tol
  const double tol = opt.merit_tol > 0.0 ? std::min(opt.abs_tol, opt.merit_tol) : opt.abs_tol;
  // the regularisation's reference ||phi||^2: the start's, then each resumption's
  double theta_ref = theta0;
  std::optional<ProjectedPhase> phase;  // built at the first stall
  int sweeps = 0;
  // the projected phase from the best iterate; Newton resumes from the best iterate after it
  auto project_then_resume = [&] {
    if (!phase) phase.emplace(L);
    sweeps += projected_phase(*phase, L, o, tol, best, best_merit);
    if (ncp == NcpFunction::MinMap) L.rho *= kStallRhoFactor;
    r = best;
    u = L.W * r + L.q;
    evaluate(L, f, r, u, R);
    theta = R.phi.squaredNorm();
    merit = best_merit;
    // a restarted regularisation damps the first steps from the new iterate as from the start
    theta_ref = std::max(theta, 1e-300);
  };
  // the stall test's window: its first iteration and the best merit then
  int window_start = 0;
  double window_best = best_merit;
  for (int it = 0; it < opt.max_iterations && nc > 0 && !(best_merit <= tol); ++it) {
    stats.iterations = it + 1;
    // s.8.4's regularisation, shrinking with the residual (Levenberg-Marquardt style): a constant
    // epsilon suited some problems and stalled others (solvers/README.md)
    const double eps = o.regularization * std::sqrt(theta / theta_ref) + kMinRegularization;
    if (!system.solve(R, eps, dr, stats.linear_iterations)) {
      if (o.stall_iterations == 0) break;
      project_then_resume();
      window_start = it + 1;
      window_best = best_merit;
      continue;
    }
    damped_step(L, f, o, r, dr, theta, trial, u_trial, R_trial);
    r.swap(trial);
    u.swap(u_trial);
    std::swap(R, R_trial);
    theta = R.phi.squaredNorm();
    merit = merit_of(L, r, u);
    if (opt.record_history) stats.history.push_back(std::sqrt(theta));
    if (!std::isfinite(merit) && o.stall_iterations == 0) break;
    if (merit < best_merit) {
      best_merit = merit;
      best = r;
    }
    if (best_merit <= tol) break;
    if (best_merit <= kStallRatio * window_best) {
      window_start = it + 1;
      window_best = best_merit;
    } else if (o.stall_iterations > 0 && (it + 1 - window_start >= o.stall_iterations || !std::isfinite(merit))) {
      project_then_resume();
      window_start = it + 1;
      window_best = best_merit;
    }
  }
  stats.contact_sweeps = double(sweeps) * nc;

  sol.lambda.assign(std::size_t(nc), Vec4::Zero());
  for (int k = 0; k < nc; ++k) sol.lambda[std::size_t(k)].head<3>() = best.segment<3>(3 * k);
  sol.joint_lambda.clear();
  {
    const Vec ub = L.W * best + L.q;
    Residual Rb;
    evaluate(L, f, best, ub, Rb);
    stats.residual = Rb.phi.norm();
  }
  AssembledOperator op(p);
  stats.merit = fclib_merit(op, sol.lambda);
  stats.converged = stats.merit <= tol;
  stats.time_ms = watch.ms();
  return stats;
}

}  // namespace

SolverStats solve_newton_fb_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  return newton(p, opt, sol, NcpFunction::FischerBurmeister);
}
SolverStats solve_newton_minmap_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  return newton(p, opt, sol, NcpFunction::MinMap);
}

}  // namespace coulomb
