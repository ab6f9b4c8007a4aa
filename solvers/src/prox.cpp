// PROX: proximal-operator Gauss-Seidel and Jacobi schemes for the contact problem
// (seed 000 section 4, algorithms 1 and 2).
//
// For every contact, z = lambda - R (A lambda + b) (eq. 22, 25) is mapped by the proximal
// operators of the normal cone, lambda_n = max(0, z_n) (eq. 21a), and of the Coulomb-Contensou
// ellipsoid, lambda_f = prox_F(z_f) (eq. 15b, 16, 21b, section 4.1). The r-factors R follow one
// of the strategies of section 4.2 (global: r I; local: r/A_ii per row, eq. 39; blocked:
// blockdiag(1/A_nn, A_ff^-1), eq. 40), and a sweep whose residual ||lambda^{k+1} - lambda^k||_inf
// (eq. 27) grows is rolled back with R <- nu R (algorithm 1-2, lines 11-15). The stopping test is
// eq. 27 per unit r <= abs_tol (or rel_tol ||lambda||_inf); with merit_tol > 0 (`coulomb fclib`)
// it is the FCLib merit <= merit_tol instead (merit.h), since eq. 27 can be met far from a
// solution (KaplasTower: step test met at merit 1.5e-4 with tol 1e-6).
//
// Both schemes are templates over the contact operator (matrix-free or assembled). The Jacobi
// sweep reads only lambda^k, so its contacts are independent: with threads > 1 it runs them in
// parallel (oneTBB) with results identical to one thread. With graph_coloring the Gauss-Seidel
// sweep goes colour by colour of the contact graph (contact_coloring.h), each colour in
// parallel: also identical for every thread count.
#include "cpu_clock.h"
#include "sweep.h"
#include "thread_scratch.h"

#include <coulomb/contact_coloring.h>
#include <coulomb/merit.h>
#include <coulomb/prox.h>
#include <coulomb/solver.h>
#include <tbb/task_arena.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <type_traits>

namespace coulomb {

Vec3 prox_ellipsoid(const Vec3& z_in, const Vec3& axes) {
  // a zero semi-axis: that coordinate of the set is {0}
  Vec3 z = z_in;
  for (int i = 0; i < 3; ++i)
    if (!(axes[i] > 0.0)) z[i] = 0.0;
  if (!(axes.maxCoeff() > 0.0)) return Vec3::Zero();
  // (z_i / a_i)^2, not z_i^2 / a_i^2: with a_i ~ 1e-160 (a contact whose normal impulse decays
  // towards the underflow, issue 11) a_i^2 is 0 and the quotient NaN
  double f = -1.0;  // eq. 28
  for (int i = 0; i < 3; ++i)
    if (axes[i] > 0.0) f += (z[i] / axes[i]) * (z[i] / axes[i]);
  if (!(f > 0.0)) return z;  // already inside
  // isotropic friction without torsion: the disc, in closed form
  if (axes[0] == axes[1] && !(axes[2] > 0.0)) {
    const double len = std::hypot(z[0], z[1]);
    return Vec3(z[0] * (axes[0] / len), z[1] * (axes[0] / len), 0.0);
  }
  // unit-cube scaling, eq. 37-38; sets so small that their squares underflow are scaled up too
  const double extent = std::max(axes.maxCoeff(), z.cwiseAbs().maxCoeff());
  const double unscale = extent < 1e-100 ? extent : std::max(1.0, extent), s = 1.0 / unscale;
  const Vec3 zs = s * z, as = s * axes;
  const Vec3 a2 = as.cwiseProduct(as);
  // The bracket of the root of g (eq. 33-35), in closed form where eq. 36 searches for t_max.
  // A left start: with a_min <= a_i <= a_max, 1 + g(t) >= a_min^2 |z|^2 / (a_max^2 + t)^2, so
  // g(t) >= 0 for t <= a_min |z| - a_max^2 (the root of a sphere's g when a_min = a_max).
  double a_min = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i)
    if (as[i] > 0.0) a_min = std::min(a_min, as[i]);
  const double a_max = as.maxCoeff();
  // The same bound from above, 1 + g(t) <= a_max^2 |z|^2 / (a_min^2 + t)^2, puts the root at or
  // left of a_max |z| - a_min^2: the bracket needs no search.
  const double zn = zs.norm();
  double lo = std::max(0.0, a_min * zn - a_max * a_max), hi = std::max(lo, a_max * zn - a_min * a_min);
  // Root search in the bracket, by Newton's method on psi(t) = (1 + g(t))^(-1/2) = 1 rather than
  // on g itself: psi = (sum_i (a_i z_i / (a_i^2 + t))^2)^(-1/2) is a power mean of exponent -2 of
  // the a_i^2 + t (up to a constant factor), so it is increasing and concave in t, and linear for
  // a sphere. A Newton step from a point left of the root therefore stays left of it and converges
  // monotonically, and for a round set it lands on the root at once. In terms of g the step is the
  // plain Newton step on g times 2 S / (1 + sqrt S), S = 1 + g (the Wall at prox-gs:10: 2.97
  // passes through the loop a call, against 11.1 for Newton on g with a stopping test on t alone).
  // Each step is still checked against the bracket and replaced by a bisection step if it leaves
  // it (the paper saw unguarded Newton diverge on the flat part of g). The answer, eq. 32, depends
  // on t through a_i^2 + t, so t is resolved relative to x = t + a_min^2: a root t far below
  // a_min^2 (a point just outside the set) needs no more digits of its own, which its g, rounded
  // at 1e-16, could not give. The error after a Newton step is at most psi'' / (2 psi') times the
  // square of the error before it, and |psi'' / psi'| <= 3 / x for this psi, so a step of at most
  // 1e-9 x leaves an error of at most 1.5e-18 x: that step is the last.
  const double a2_min = a_min * a_min;
  const Vec3 c = a2.cwiseProduct(zs).cwiseProduct(zs);  // g(t) = sum_i c_i / (a_i^2 + t)^2 - 1
  double t = lo;
  for (int it = 0; it < 100; ++it) {
    double g = -1.0, dg = 0.0;
    for (int i = 0; i < 3; ++i)
      if (a2[i] > 0.0) {
        const double iq = 1.0 / (a2[i] + t), w = c[i] * iq * iq;
        g += w;
        dg -= 2.0 * w * iq;
      }
    if (g > 0.0) lo = t;
    else hi = t;
    const double S = 1.0 + g;
    const double newton = dg < 0.0 ? t - 2.0 * S * g / ((1.0 + std::sqrt(S)) * dg) : t;
    if (dg < 0.0 && std::abs(newton - t) <= 1e-9 * (t + a2_min)) {
      t = newton;
      break;
    }
    const double next = newton > lo && newton < hi ? newton : 0.5 * (lo + hi);
    const bool done = hi - lo <= 1e-15 * (hi + a2_min);
    t = next;
    if (done) break;
  }
  Vec3 x = Vec3::Zero();
  for (int i = 0; i < 3; ++i)
    if (a2[i] > 0.0) x[i] = a2[i] * zs[i] / (a2[i] + t);  // eq. 32
  return x * unscale;
}

namespace {

// A Jacobi sweep must cut the residual by this fraction to count as progress. The paper's test
// is r^{k+1} > r^k; a Jacobi sweep with too large an r can settle into a period-2 cycle whose
// residual never grows (measured: 0.1549 for 3000 sweeps on a 4-contact box), which that test
// never catches. Gauss-Seidel keeps the strict test: its legitimately slow phases (ratios within
// 1e-6 of 1) would otherwise shrink r again and again until it stalls.
constexpr double kMinDecrease = 1e-6;

// The r-factors of one contact, R = scale * R0 (the back-tracking scales every R alike), and
// the proximal map of its friction set in the metric of R^-1:
//     lambda_f = argmin_{x in F} (x - z_f)^T R_f^-1 (x - z_f),   z = lambda - R v.
// Its fixed points satisfy -v_f in N_F(lambda_f) for every SPD R_f, i.e. they are the
// maximal-dissipation friction of eq. 8-9 exactly, also for the per-row r of the local strategy
// (eq. 39) and the full block of the blocked strategy (eq. 40), where a Euclidean projection
// would tilt the sliding direction whenever R_f is not a multiple of the identity. With
// C = R0_f^{-1/2} and C^-1 K C^-1 = Q diag(L) Q^T (K = diag(1/mu^2): F = {x^T K x <= lambda_n^2}),
// y = Q^T C z / sqrt(scale) maps F onto an axis-aligned ellipsoid with semi-axes
// lambda_n / sqrt(scale L_i), where prox_ellipsoid applies (section 4.1); for R_f = r I this is
// the plain Euclidean projection of eq. 21b.
// The hot part, read by every visit (96 bytes, contiguous over the contacts): a sticking contact
// with a diagonal R0 reads nothing else. ContactMetric holds the rest.
struct ContactMetric;
struct ContactR {
  Vec4 r_diag = Vec4::Zero();      // R0's diagonal, when it is diagonal
  Vec4 inv_mu_row = Vec4::Zero();  // 1 / mu per row (t, s, tau), 0 for the normal row and rows without friction
  std::array<int, 3> idx{};        // 0 = t, 1 = s, 2 = tau
  int nf = 0;                      // friction coordinates with mu > 0 (their indices in idx)
  bool diagonal = false;           // R0 is diagonal (global and local strategies)

  Vec3 prox(const Vec3& z, double lambda_n, double scale, const ContactMetric& m) const;
};

// A full R0 and the friction metric, for sliding contacts and the blocked strategy
struct ContactMetric {
  Mat4 R0 = Mat4::Identity();
  Mat3 to_y = Mat3::Identity();    // Q^T C (active block)
  Mat3 from_y = Mat3::Identity();  // C^-1 Q (active block)
  Vec3 axis_unit = Vec3::Zero();   // 1 / sqrt(L_i)
};

Vec3 ContactR::prox(const Vec3& z, double lambda_n, double scale, const ContactMetric& m) const {
  Vec3 out = Vec3::Zero();
  if (nf == 0 || !(lambda_n > 0.0)) return out;
  // (a sticking contact, z_f inside F, took prox_update's fast path and does not get here)
  Vec3 za = Vec3::Zero();
  for (int i = 0; i < nf; ++i) za[i] = z[idx[std::size_t(i)]];
  if (diagonal) {
    // to_y and from_y are diagonal, and the map is homogeneous (scaling z and the axes by
    // 1 / sqrt(scale) scales the answer alike): no matrix products and no sqrt
    Vec3 y = Vec3::Zero(), axes = Vec3::Zero();
    for (int i = 0; i < nf; ++i) {
      y[i] = m.to_y(i, i) * za[i];
      axes[i] = lambda_n * m.axis_unit[i];
    }
    const Vec3 x = prox_ellipsoid(y, axes);
    for (int i = 0; i < nf; ++i) out[idx[std::size_t(i)]] = m.from_y(i, i) * x[i];
    return out;
  }
  const double rs = std::sqrt(scale);
  Vec3 axes = Vec3::Zero();
  for (int i = 0; i < nf; ++i) axes[i] = lambda_n * m.axis_unit[i] / rs;
  const Vec3 x = rs * (m.from_y * prox_ellipsoid(m.to_y * za / rs, axes));
  for (int i = 0; i < nf; ++i) out[idx[std::size_t(i)]] = x[i];
  return out;
}

// R0 of the chosen strategy (section 4.2): global r I, local 1 / A_ii per row (eq. 39),
// blocked blockdiag(1 / A_nn, A_ff^-1) (eq. 40); then the friction metric for that R0.
void make_r(const Mat4& A, const Vec3& mu, const ProxOptions& opt, double global_r, ContactR& c, ContactMetric& m) {
  c = ContactR{};
  m = ContactMetric{};
  m.R0.setZero();
  for (int i = 0; i < 3; ++i)
    if (mu[i] > 0.0) {
      c.inv_mu_row[i + 1] = 1.0 / mu[i];
      c.idx[std::size_t(c.nf++)] = i;
    }
  auto inv_diag = [&](int row) { return A(row, row) > 0.0 ? opt.r_initial / A(row, row) : 1.0; };
  if (opt.strategy == RStrategy::Global) {
    m.R0 = global_r * Mat4::Identity();
  } else {
    m.R0(0, 0) = inv_diag(0);
    for (int i = 1; i < 4; ++i) m.R0(i, i) = inv_diag(i);
    if (opt.strategy == RStrategy::Blocked && c.nf > 0) {
      // the inverse of the friction block over the coordinates that carry friction
      Eigen::MatrixXd Af(c.nf, c.nf);
      for (int i = 0; i < c.nf; ++i)
        for (int j = 0; j < c.nf; ++j) Af(i, j) = A(1 + c.idx[std::size_t(i)], 1 + c.idx[std::size_t(j)]);
      Eigen::LDLT<Eigen::MatrixXd> ldlt(Af);
      if (ldlt.info() == Eigen::Success && ldlt.isPositive() && Af.diagonal().minCoeff() > 0.0) {
        const Eigen::MatrixXd inv = opt.r_initial * Af.inverse();
        for (int i = 0; i < c.nf; ++i)
          for (int j = 0; j < c.nf; ++j) m.R0(1 + c.idx[std::size_t(i)], 1 + c.idx[std::size_t(j)]) = inv(i, j);
      }
    }
  }
  c.diagonal = m.R0 == Mat4(m.R0.diagonal().asDiagonal());
  c.r_diag = m.R0.diagonal();
  if (c.nf == 0) return;
  // a diagonal R0_f (global, local, or blocked without an invertible block): C = diag(1/sqrt(r_i)),
  // Q = I and L_i = r_i / mu_i^2, so no decomposition is needed
  bool diagonal = true;
  for (int i = 0; i < c.nf; ++i)
    for (int j = 0; j < c.nf; ++j)
      if (i != j && m.R0(1 + c.idx[std::size_t(i)], 1 + c.idx[std::size_t(j)]) != 0.0) diagonal = false;
  if (diagonal) {
    m.to_y.setZero();
    m.from_y.setZero();
    for (int i = 0; i < c.nf; ++i) {
      const double r = m.R0(1 + c.idx[std::size_t(i)], 1 + c.idx[std::size_t(i)]);
      m.to_y(i, i) = 1.0 / std::sqrt(r);
      m.from_y(i, i) = std::sqrt(r);
      m.axis_unit[i] = mu[c.idx[std::size_t(i)]] / std::sqrt(r);
    }
    return;
  }
  // active block of R0_f, its inverse square root C, and C^-1 K C^-1 = Q L Q^T
  Eigen::MatrixXd Rf(c.nf, c.nf), K = Eigen::MatrixXd::Zero(c.nf, c.nf);
  for (int i = 0; i < c.nf; ++i) {
    K(i, i) = 1.0 / (mu[c.idx[std::size_t(i)]] * mu[c.idx[std::size_t(i)]]);
    for (int j = 0; j < c.nf; ++j) Rf(i, j) = m.R0(1 + c.idx[std::size_t(i)], 1 + c.idx[std::size_t(j)]);
  }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> er(Rf);
  const Eigen::MatrixXd C =
      er.eigenvectors() * er.eigenvalues().cwiseInverse().cwiseSqrt().asDiagonal() * er.eigenvectors().transpose();
  const Eigen::MatrixXd Cinv =
      er.eigenvectors() * er.eigenvalues().cwiseSqrt().asDiagonal() * er.eigenvectors().transpose();
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> ek(Cinv * K * Cinv);
  const Eigen::MatrixXd to_y = ek.eigenvectors().transpose() * C, from_y = Cinv * ek.eigenvectors();
  for (int i = 0; i < c.nf; ++i) {
    m.axis_unit[i] = 1.0 / std::sqrt(ek.eigenvalues()[i]);
    for (int j = 0; j < c.nf; ++j) {
      m.to_y(i, j) = to_y(i, j);
      m.from_y(i, j) = from_y(i, j);
    }
  }
  for (int i = c.nf; i < 3; ++i) m.to_y(i, i) = m.from_y(i, i) = 0.0;
  return;
}

// One contact's proximal update (eq. 21a, 21b in the R^-1 metric); the friction set uses
// lambda_n^k for Jacobi (algorithm 1 line 8) and lambda_n^{k+1} for Gauss-Seidel (algorithm 2).
// Fast path for a sticking contact: z_f inside F = {sum (x_i / mu_i)^2 <= lambda_n^2} is its own
// projection in every metric, so the ellipsoid map is skipped (most contacts of a resting
// stack). The test is eq. 28's f <= 0 with the y-scaling cancelled: no division; it runs on whole
// 4-vectors (1/mu = 0 outside the friction rows), so that the common visit passes no 3-vector
// through memory (a store-forwarding stall per call, issue 12). An underflowing lambda_n^2 or a
// non-finite z fails it and takes the careful path of ContactR::prox.
inline Vec4 prox_update(const Vec4& l, const Vec4& v, const ContactR& r, const ContactMetric& m, double scale,
                        bool gauss_seidel) {
  // R0 v as a product of diagonals where R0 is diagonal (the default local strategy)
  const Vec4 z = r.diagonal ? Vec4(l - scale * r.r_diag.cwiseProduct(v)) : Vec4(l - scale * (m.R0 * v));
  const double n = std::max(0.0, z[0]);
  const double lambda_n = gauss_seidel ? n : l[0];
  const Vec4 q = z.cwiseProduct(r.inv_mu_row);
  // summed in row order as the old loop over the friction rows did (a row without friction adds 0)
  if (lambda_n > 0.0 && (q[1] * q[1] + q[2] * q[2]) + q[3] * q[3] <= lambda_n * lambda_n)
    return Vec4(n, r.inv_mu_row[1] > 0.0 ? z[1] : 0.0, r.inv_mu_row[2] > 0.0 ? z[2] : 0.0,
                r.inv_mu_row[3] > 0.0 ? z[3] : 0.0);
  Vec4 out;
  out[0] = n;
  out.tail<3>() = r.prox(z.tail<3>(), lambda_n, scale, m);
  return out;
}

Vec4 feasible(const Vec4& l, const Vec3& mu) {
  Vec4 out;
  out[0] = std::max(0.0, l[0]);
  out.tail<3>() = prox_friction(l.tail<3>(), mu, out[0]);
  return out;
}

// ProxSolve's work arrays, kept per thread between solves (thread_scratch.h: every entry is written
// before it is read). The r-factors' hot and cold halves are separate arrays, so that a sweep
// streams 80 bytes of r-factors per contact and touches the metric only for a sliding contact or
// a full R0.
struct ProxScratch {
  std::vector<ContactR> R;
  std::vector<ContactMetric> metric;
  std::vector<Vec4> next, velocity;  // velocity: the Jacobi sweep's only
  std::vector<double> merit_terms;
};

// Global r: the paper hardwires 5, which suits its heavy bodies (A_ii ~ 1e-3 .. 3e-2); "auto"
// takes the reciprocal of the largest diagonal entry of A, a scale-free stand-in for the theory's
// 1 / (|lambda_min| + |lambda_max|) (section 4.2) that keeps each Gauss-Seidel block update
// non-expansive.
template <class Op>
double global_r_factor(const Op& op, const ProxOptions& opt) {
  if (opt.r_initial > 0.0) return opt.r_initial;
  double a_max = 0.0;
  for (int k = 0; k < op.size(); ++k) a_max = std::max(a_max, op.diag(k).diagonal().maxCoeff());
  return a_max > 0.0 ? 1.0 / a_max : 1.0;
}

// How ProxSolve sweeps: Gauss-Seidel (algorithm 2) in order, or colour by colour on a team started
// by the caller before it coloured the contacts; or Jacobi (algorithm 1).
struct ProxSchedule {
  bool gauss_seidel = true;
  const ContactColoring* coloring = nullptr;  // with team: coloured
  detail::SweepTeam* team = nullptr;
};

// One PROX solve: the r-factors, the sweeps with the back-tracking of R (lines 11-15) and the
// stopping test, the merit at the end. Joint rows (contact_operator.h) follow the contacts in
// every sweep: their proximal step with the r-factor of each joint's own block, R = (A_jj + E)^-1
// (exact for the equality rows when r_scale = 1), in the same Gauss-Seidel or Jacobi fashion as
// the contacts; they take part in the residual and are rolled back with the contacts on a
// divergence.
template <class Op>
class ProxSolve {
 public:
  ProxSolve(Op& op, const SolverOptions& opt, std::vector<Vec4>& lambda, std::vector<double>& joint_lambda,
            const ProxSchedule& schedule)
      : op_(op),
        opt_(opt),
        lambda_(lambda),
        joint_lambda_(joint_lambda),
        gauss_seidel_(schedule.gauss_seidel),
        coloring_(schedule.coloring),
        nc_(op.size()),
        nj_(op.joint_rows()),
        team_(schedule.coloring && schedule.team ? *schedule.team : own_team_) {}

  SolverStats run() {
    detail::start_impulses(opt_, nc_, nj_, lambda_, joint_lambda_);
    joint_next_ = joint_lambda_;
    const double scale = setup();
    scratch_->next.resize(std::size_t(nc_));
    if (!gauss_seidel_) scratch_->velocity.resize(std::size_t(nc_));  // the closing merit no longer keeps velocities
    // The first sweep has no predecessor to be compared with (r^0 = infinity in algorithms 1-2),
    // yet a Gauss-Seidel sweep with too large an r amplifies from contact to contact (measured:
    // velocities of 1e12 m/s in the first step of the Wall with r = 5). It must stay within a
    // generous multiple of the problem's own impulse scale, or it counts as a divergence.
    double r_prev = 100.0 * scale + std::numeric_limits<double>::min();
    stats_.converged = nc_ == 0 && nj_ == 0;
    int accepted = 0;  // sweeps not rolled back
    const double loop_start =
        nc_ > 0 ? detail::process_cpu_ms() : 0.0;  // a solve without contacts has no sweep cost to time
    for (int it = 0; it < opt_.max_iterations && nc_ + nj_ > 0; ++it) {
      const detail::SweepMax s = sweep();  // delta: r^{k+1} of eq. 27
      stats_.iterations = it + 1;
      if (s.delta > r_prev * (gauss_seidel_ ? 1.0 : 1.0 - kMinDecrease)) {
        reject();
        continue;
      }
      accept();
      r_prev = s.delta;
      // The residual reported, recorded and tested is eq. 27 per unit of r: back-tracking shrinks
      // R and with it every ||lambda^{k+1} - lambda^k||, so eq. 27 alone ends a stalled solve as
      // "converged" (FCLib's KaplasTower with global r ended at merit 0.65 so).
      const double step = s.delta / r_scale_;
      stats_.residual = step;
      if (opt_.record_history) stats_.history.push_back(step);
      // with merit_tol, the FCLib merit every kMeritCheckInterval accepted sweeps instead (merit.h)
      if (stopping_test_met(op_, lambda_, opt_.merit_tol, ++accepted,
                            step <= opt_.abs_tol || step <= opt_.rel_tol * s.lambda)) {
        stats_.converged = true;
        break;
      }
    }
    stats_.sweep_ms = nc_ > 0 ? detail::process_cpu_ms() - loop_start : 0.0;
    stats_.contact_sweeps = double(nc_) * stats_.iterations;
    // w is current: an accepted Gauss-Seidel sweep moved it with every update, and a rejected one
    // or a Jacobi sweep reset it to lambda^k
    const bool merit_wanted = opt_.evaluate_merit || opt_.merit_tol > 0.0;
    stats_.merit = merit_wanted ? detail::team_fclib_merit(team_, op_, lambda_, scratch_->merit_terms)
                                : std::numeric_limits<double>::quiet_NaN();  // not asked for (SolverOptions)
    team_.finish();
    // with merit_tol, converged is the merit of the impulses returned, however the loop ended
    if (opt_.merit_tol > 0.0) stats_.converged = stats_.merit <= opt_.merit_tol;
    stats_.time_ms = watch_.ms();
    return stats_;
  }

 private:
  // Each contact's r-factors and its warm start made feasible, in the same pass as the first
  // reset (on the team where there is one). Returns the problem's impulse scale: the largest of
  // |lambda^0|, |R b| and the joints'.
  double setup() {
    const double global_r = global_r_factor(op_, opt_.prox);
    std::vector<ContactR>& R = scratch_->R;
    std::vector<ContactMetric>& metric = scratch_->metric;
    R.resize(std::size_t(nc_));
    metric.resize(std::size_t(nc_));
    std::vector<detail::Padded<double>> member_scale(std::size_t(team_.size()));
    detail::colored_reset(team_, coloring_, op_, lambda_, [&](int k, int member) {
      double& scale = member_scale[std::size_t(member)].value;
      const auto i = std::size_t(k);
      make_r(op_.diag(k), op_.mu(k), opt_.prox, global_r, R[i], metric[i]);
      lambda_[i] = feasible(lambda_[i], op_.mu(k));
      scale = std::max({scale, lambda_[i].cwiseAbs().maxCoeff(), (metric[i].R0 * op_.b(k)).cwiseAbs().maxCoeff()});
    });
    double scale = op_.joint_scale();
    for (const auto& m : member_scale) scale = std::max(scale, m.value);
    return scale;
  }

  // one sweep over the contacts, then the joints: next = lambda^{k+1}, and its step and impulses
  detail::SweepMax sweep() {
    detail::SweepMax s = gauss_seidel_ ? gauss_seidel_sweep() : jacobi_sweep();
    if (nj_ > 0) {
      const JointSweep js = gauss_seidel_ ? op_.template sweep_joints<true>(joint_lambda_, joint_next_, r_scale_)
                                          : op_.template sweep_joints<false>(joint_lambda_, joint_next_, r_scale_);
      s.delta = std::max(s.delta, js.max_delta);
      s.lambda = std::max(s.lambda, js.max_lambda);
    }
    return s;
  }

  // Algorithm 2: always the freshest impulses; w follows every contact (eq. 25-26). Each contact
  // is visited once per sweep, so until its visit its impulse is still lambda^k. The matrix-free
  // velocity reads w only and next[k] is written at k's visit, so the copy of lambda^k into next
  // is needed only where velocity() reads the impulses themselves.
  detail::SweepMax gauss_seidel_sweep() {
    Op& op = op_;
    const std::vector<Vec4>& lambda = lambda_;
    std::vector<Vec4>& next = scratch_->next;
    const std::vector<ContactR>& R = scratch_->R;
    const std::vector<ContactMetric>& metric = scratch_->metric;
    const double r_scale = r_scale_;
    if constexpr (!std::is_same_v<Op, MatrixFreeOperator>) next = lambda;
    // d = lambda^{k+1} - lambda^k: the residual of eq. 27 is taken here, not in a second pass
    const auto update = [&](int k, detail::SweepMax& m) {
      const auto i = std::size_t(k);
      const Vec4 v = op.velocity(k, next);
      const Vec4 l = prox_update(lambda[i], v, R[i], metric[i], r_scale, true);
      const Vec4 d = l - lambda[i];
      next[i] = l;
      if (d != Vec4::Zero()) op.applied(k, d);
      m.delta = std::max(m.delta, d.cwiseAbs().maxCoeff());
      m.lambda = std::max(m.lambda, l.cwiseAbs().maxCoeff());
    };
    if (!coloring_) return detail::ordered_sweep(op, nullptr, nc_, update);
    return detail::colored_sweep(team_, *coloring_, op, member_max_, update, [&](int k) {
      const auto i = std::size_t(k);  // the kernel's own data
      __builtin_prefetch(&lambda[i]);
      __builtin_prefetch(&next[i], 1);
      __builtin_prefetch(&R[i]);
      __builtin_prefetch(reinterpret_cast<const char*>(&R[i]) + sizeof(ContactR) - 1);
    });
  }

  // Algorithm 1: every contact from lambda^k, in parallel blocks; then the residual of eq. 27
  detail::SweepMax jacobi_sweep() {
    Op& op = op_;
    const std::vector<Vec4>& lambda = lambda_;
    std::vector<Vec4>& next = scratch_->next;
    std::vector<Vec4>& velocity = scratch_->velocity;
    const std::vector<ContactR>& R = scratch_->R;
    const std::vector<ContactMetric>& metric = scratch_->metric;
    const double r_scale = r_scale_;
    const auto sweep = [&](int begin, int end) {
      for (int k = begin; k != end; ++k) {
        const auto i = std::size_t(k);
        velocity[i] = op.velocity(k, lambda);
        next[i] = prox_update(lambda[i], velocity[i], R[i], metric[i], r_scale, false);
      }
    };
    if (opt_.threads > 1) arena_.execute([&] { detail::jacobi_sweep(nc_, opt_.threads, sweep); });
    else detail::jacobi_sweep(nc_, 1, sweep);
    detail::SweepMax s;
    for (int k = 0; k < nc_; ++k) {
      s.delta = std::max(s.delta, (next[std::size_t(k)] - lambda[std::size_t(k)]).cwiseAbs().maxCoeff());
      s.lambda = std::max(s.lambda, next[std::size_t(k)].cwiseAbs().maxCoeff());
    }
    return s;
  }

  // divergence: keep lambda^k, shrink every r (lines 11-12); Gauss-Seidel's w moved with the
  // rejected sweep and is rebuilt from lambda^k
  void reject() {
    r_scale_ *= opt_.prox.r_nu;
    ++stats_.divergence_detections;
    if (gauss_seidel_) detail::colored_reset(team_, coloring_, op_, lambda_);
    if (opt_.record_history) stats_.history.push_back(stats_.residual);
  }

  // accept (line 14); Jacobi's w follows the new impulses
  void accept() {
    lambda_.swap(scratch_->next);
    joint_lambda_.swap(joint_next_);
    if (!gauss_seidel_) op_.reset(lambda_);
  }

  const Stopwatch watch_;
  Op& op_;
  const SolverOptions& opt_;
  std::vector<Vec4>& lambda_;
  std::vector<double>& joint_lambda_;
  const bool gauss_seidel_;
  const ContactColoring* const coloring_;
  const int nc_, nj_;
  detail::SweepTeam own_team_{1};
  detail::SweepTeam& team_;  // the colour stages' helpers, for the whole solve, and the passes over all contacts
  detail::ThreadScratch<ProxScratch> scratch_;
  std::vector<double> joint_next_;
  std::vector<detail::Padded<detail::SweepMax>> member_max_;  // a coloured sweep's
  tbb::task_arena arena_{std::max(1, opt_.threads)};
  double r_scale_ = 1.0;  // R = r_scale * R0; back-tracking multiplies it by nu
  SolverStats stats_;
};

}  // namespace

SolverStats solve_prox_gs(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  MatrixFreeOperator op(p, &sol.joint_lambda);
  const SolverStats stats =
      opt.graph_coloring
          ? detail::colored_solve(p, opt.threads,
                                  [&](const ContactColoring& c, detail::SweepTeam& team) {
                                    return ProxSolve(op, opt, sol.lambda, sol.joint_lambda, {true, &c, &team}).run();
                                  })
          : ProxSolve(op, opt, sol.lambda, sol.joint_lambda, {true}).run();
  op.copy_response(sol.response);  // current on exit (ProxSolve::run)
  return stats;
}
SolverStats solve_prox_gs_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  AssembledOperator op(p);
  sol.response.clear();  // an assembled problem has no bodies
  return ProxSolve(op, opt, sol.lambda, sol.joint_lambda, {true}).run();
}
SolverStats solve_prox_jacobi(const ContactProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  MatrixFreeOperator op(p, &sol.joint_lambda);
  const SolverStats stats = ProxSolve(op, opt, sol.lambda, sol.joint_lambda, {false}).run();
  op.copy_response(sol.response);
  return stats;
}
SolverStats solve_prox_jacobi_assembled(const AssembledProblem& p, const SolverOptions& opt, ContactSolution& sol) {
  AssembledOperator op(p);
  sol.response.clear();
  return ProxSolve(op, opt, sol.lambda, sol.joint_lambda, {false}).run();
}

}  // namespace coulomb
