// coulomb-orderings-paper: seed 001's experiment (section 6) as the paper ran it, on FCLib local
// problems (u = A lambda + b, one friction coefficient per contact). A program, not a test.
//
// The paper's setting, reproduced here rather than in the engine's PGS (pgs.cpp):
//  - A is a dense matrix (the paper's MatLab), rows ordered (normal, t1, t2) per contact;
//  - box friction, l_t = -mu lambda_n, u_t = mu lambda_n, l_n = 0, u_n = inf (section 3);
//  - PGS is the pseudocode of section 4: a forward loop over the rows, each
//    lambda_i <- clamp(lambda_i - (A_i. lambda + b_i) / A_ii), the friction bounds read from the
//    current normal impulse;
//  - ESP (eq. 19-21) sweeps the normal subproblem A_nn with b'_n = b_n + A_nt lambda_t, then the
//    friction subproblem A_tt with b'_t = b_t + A_tn lambda_n, every iteration; GSP sweeps the
//    subproblem whose share of Theta is larger, one iteration per subproblem sweep, b' refreshed
//    when it switches;
//  - the error is Theta = 1/2 H^T H (eq. 22-23), measured after every iteration outside the timed
//    part, and GSP's greedy choice reads those shares;
//  - the speedup (eq. 24) is t_PGS / t_heuristic of the time per iteration (the captions of
//    tables 2-3: "Numbers larger than 1 indicate smaller time usage per iteration"), over a fixed
//    number of iterations (the paper's plots run to k_max; it states no tolerance).
// The program also reports, for comparison, the iterations and time each ordering needs to bring
// Theta to --target times Theta(0), and eq. 24 on that time.
//
// Writes one CSV row per problem and ordering (--csv) and prints it as a table.
#include <coulomb/fclib_io.h>
#include <coulomb/timer.h>

#include <CLI/CLI.hpp>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

namespace {

using Dense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;

struct Problem {
  std::string name;
  int nc = 0;
  Dense A;                 // (3 nc x 3 nc) rows (n, t1, t2) per contact
  Vec b;                   // (3 nc)
  std::vector<double> mu;  // (nc)
  // the subproblems of eq. 19: normal rows N = {3k}, friction rows T = {3k+1, 3k+2}
  Dense Ann, Ant, Atn, Att;
};

Problem load(const std::filesystem::path& file) {
  const coulomb::AssembledProblem p = coulomb::read_fclib_local(file);
  Problem P;
  P.name = file.stem().string();
  P.nc = p.num_contacts();
  const int m = 3 * P.nc;
  P.A = Dense::Zero(m, m);
  P.b.resize(m);
  for (int k = 0; k < P.nc; ++k) {
    for (int e = p.row_start[std::size_t(k)]; e < p.row_start[std::size_t(k) + 1]; ++e)
      P.A.block<3, 3>(3 * k, 3 * p.col[std::size_t(e)]) = p.block[std::size_t(e)].topLeftCorner<3, 3>();
    P.b.segment<3>(3 * k) = p.b[std::size_t(k)].head<3>();
    P.mu.push_back(p.mu[std::size_t(k)][0]);
  }
  const int nc = P.nc;
  P.Ann.resize(nc, nc);
  P.Ant.resize(nc, 2 * nc);
  P.Atn.resize(2 * nc, nc);
  P.Att.resize(2 * nc, 2 * nc);
  auto t_row = [](int j) { return 3 * (j / 2) + 1 + j % 2; };
  for (int i = 0; i < nc; ++i) {
    for (int j = 0; j < nc; ++j) P.Ann(i, j) = P.A(3 * i, 3 * j);
    for (int j = 0; j < 2 * nc; ++j) P.Ant(i, j) = P.A(3 * i, t_row(j));
  }
  for (int i = 0; i < 2 * nc; ++i) {
    for (int j = 0; j < nc; ++j) P.Atn(i, j) = P.A(t_row(i), 3 * j);
    for (int j = 0; j < 2 * nc; ++j) P.Att(i, j) = P.A(t_row(i), t_row(j));
  }
  return P;
}

// The impulses in the split form: lambda_n (nc), lambda_t (2 nc).
struct Split {
  Vec n, t;
};

double clamp_row(double x, double lo, double hi) { return std::min(hi, std::max(lo, x)); }

// seed 001 eq. 22-23 for the rows of one set (normal or friction), from y = A lambda + b.
void theta_shares(const Problem& P, const Vec& lambda, double& normal, double& friction) {
  const Vec y = P.A * lambda + P.b;
  normal = friction = 0.0;
  for (int k = 0; k < P.nc; ++k) {
    const double ln = lambda[3 * k];
    {
      const double h = std::min(std::numeric_limits<double>::infinity() - ln, -std::min(ln, y[3 * k]));
      normal += 0.5 * h * h;
    }
    for (int r = 1; r < 3; ++r) {
      const double hi = P.mu[std::size_t(k)] * ln, lo = -hi, l = lambda[3 * k + r];
      const double h = std::min(hi - l, -std::min(l - lo, y[3 * k + r]));
      friction += 0.5 * h * h;
    }
  }
}

// One PGS iteration over all rows (section 4's pseudocode).
void pgs_sweep(const Problem& P, Vec& lambda) {
  const int m = 3 * P.nc;
  for (int i = 0; i < m; ++i) {
    const double aii = P.A(i, i);
    if (!(aii > 0.0)) continue;
    const double x = lambda[i] - (P.A.row(i).dot(lambda) + P.b[i]) / aii;
    const int k = i / 3;
    if (i % 3 == 0) lambda[i] = std::max(0.0, x);
    else lambda[i] = clamp_row(x, -P.mu[std::size_t(k)] * lambda[3 * k], P.mu[std::size_t(k)] * lambda[3 * k]);
  }
}

// A sweep over the normal subproblem (eq. 20) with bn = b'_n.
void normal_sweep(const Problem& P, const Vec& bn, Split& s) {
  for (int i = 0; i < P.nc; ++i) {
    const double aii = P.Ann(i, i);
    if (!(aii > 0.0)) continue;
    s.n[i] = std::max(0.0, s.n[i] - (P.Ann.row(i).dot(s.n) + bn[i]) / aii);
  }
}

// A sweep over the friction subproblem (eq. 21) with bt = b'_t; bounds from lambda_n.
void friction_sweep(const Problem& P, const Vec& bt, Split& s) {
  for (int i = 0; i < 2 * P.nc; ++i) {
    const double aii = P.Att(i, i);
    if (!(aii > 0.0)) continue;
    const double hi = P.mu[std::size_t(i / 2)] * s.n[i / 2];
    s.t[i] = clamp_row(s.t[i] - (P.Att.row(i).dot(s.t) + bt[i]) / aii, -hi, hi);
  }
}

Vec join(const Split& s, int nc) {
  Vec l(3 * nc);
  for (int k = 0; k < nc; ++k) l.segment<3>(3 * k) << s.n[k], s.t[2 * k], s.t[2 * k + 1];
  return l;
}

struct Run {
  std::vector<double> theta;    // (iterations + 1) Theta after each iteration, [0] at lambda = 0
  std::vector<double> seconds;  // (iterations + 1) cumulated timed seconds
  int normal_sweeps = 0, friction_sweeps = 0;
};

enum class Ordering { Pgs, Esp, Gsp };
const char* name_of(Ordering o) { return o == Ordering::Pgs ? "pgs" : o == Ordering::Esp ? "esp" : "gsp"; }

Run run(const Problem& P, Ordering ord, int iterations) {
  Run out;
  const int nc = P.nc;
  Vec lambda = Vec::Zero(3 * nc);
  Split s{Vec::Zero(nc), Vec::Zero(2 * nc)};
  Vec bn = P.b(Eigen::seqN(0, nc, 3)), bt(2 * nc);
  for (int k = 0; k < nc; ++k) bt.segment<2>(2 * k) = P.b.segment<2>(3 * k + 1);
  const Vec bn0 = bn, bt0 = bt;
  double tn, tf;
  theta_shares(P, lambda, tn, tf);
  out.theta.push_back(tn + tf);
  out.seconds.push_back(0.0);
  double elapsed = 0.0;
  int last_set = -1;  // GSP: 0 normal, 1 friction
  for (int it = 0; it < iterations; ++it) {
    const coulomb::Stopwatch watch;
    if (ord == Ordering::Pgs) {
      pgs_sweep(P, lambda);
    } else if (ord == Ordering::Esp) {
      bn.noalias() = bn0 + P.Ant * s.t;
      normal_sweep(P, bn, s);
      bt.noalias() = bt0 + P.Atn * s.n;
      friction_sweep(P, bt, s);
      ++out.normal_sweeps;
      ++out.friction_sweeps;
    } else {
      // the set with the larger share of Theta (the normal set first)
      const int set = it == 0 ? 0 : (tn >= tf ? 0 : 1);
      if (set == 0) {
        if (last_set != 0) bn.noalias() = bn0 + P.Ant * s.t;
        normal_sweep(P, bn, s);
        ++out.normal_sweeps;
      } else {
        if (last_set != 1) bt.noalias() = bt0 + P.Atn * s.n;
        friction_sweep(P, bt, s);
        ++out.friction_sweeps;
      }
      last_set = set;
    }
    elapsed += watch.seconds();
    if (ord != Ordering::Pgs) lambda = join(s, nc);
    theta_shares(P, lambda, tn, tf);
    out.theta.push_back(tn + tf);
    out.seconds.push_back(elapsed);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"seed 001's PGS orderings in the paper's setting (dense A, box friction, time per iteration)"};
  std::vector<std::string> files;
  int iterations = 500, repeats = 5;
  double target = 1e-6;
  std::string csv;
  app.add_option("files", files, "FCLib local problems (.hdf5)")->required();
  app.add_option("--iterations", iterations, "iterations per ordering (the paper's k_max)")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--repeats", repeats, "runs per ordering; each iteration's fastest time is kept")
      ->check(CLI::Range(1, 1000));
  app.add_option("--target", target, "Theta target, relative to Theta(0)")->check(CLI::Range(0.0, 1.0));
  app.add_option("--csv", csv, "write the rows to this CSV file");
  CLI11_PARSE(app, argc, argv);

  std::ofstream out;
  if (!csv.empty()) {
    out.open(csv);
    if (!out) {
      std::fprintf(stderr, "coulomb-orderings-paper: cannot write %s\n", csv.c_str());
      return 1;
    }
    out << "problem,contacts,ordering,iterations,ms_per_iteration,speedup_per_iteration,theta_final_rel,"
           "normal_sweeps,friction_sweeps,iterations_to_target,ms_to_target,speedup_to_target\n";
  }
  std::printf("%-28s %5s %-4s %10s %8s %10s %9s %9s %9s\n", "problem", "nc", "ord", "ms/iter", "speedup", "theta_rel",
              "it_to_tgt", "ms_to_tgt", "speedup");
  for (const std::string& file : files) {
    Problem P;
    try {
      P = load(file);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "coulomb-orderings-paper: %s\n", e.what());
      return 1;
    }
    double pgs_ms = 0.0, pgs_target_ms = 0.0;
    for (Ordering ord : {Ordering::Pgs, Ordering::Esp, Ordering::Gsp}) {
      // every repeat does the same work: each iteration's time is its fastest over the repeats
      // (the machine is shared), and the cumulated times are rebuilt from those
      Run best;
      std::vector<double> fastest(std::size_t(iterations), std::numeric_limits<double>::infinity());
      for (int rep = 0; rep < repeats; ++rep) {
        Run r = run(P, ord, iterations);
        for (int k = 0; k < iterations; ++k)
          fastest[std::size_t(k)] =
              std::min(fastest[std::size_t(k)], r.seconds[std::size_t(k) + 1] - r.seconds[std::size_t(k)]);
        if (rep == 0) best = std::move(r);
      }
      for (int k = 0; k < iterations; ++k)
        best.seconds[std::size_t(k) + 1] = best.seconds[std::size_t(k)] + fastest[std::size_t(k)];
      const double ms_per_it = 1e3 * best.seconds.back() / iterations;
      const double theta0 = std::max(best.theta.front(), 1e-300);
      int hit = -1;
      for (int k = 0; k <= iterations; ++k)
        if (best.theta[std::size_t(k)] <= target * theta0) {
          hit = k;
          break;
        }
      const double ms_target = hit >= 0 ? 1e3 * best.seconds[std::size_t(hit)] : std::nan("");
      if (ord == Ordering::Pgs) {
        pgs_ms = ms_per_it;
        pgs_target_ms = ms_target;
      }
      const double speedup = pgs_ms / ms_per_it, speedup_target = pgs_target_ms / ms_target;
      std::printf("%-28s %5d %-4s %10.4f %8.2f %10.2e %9d %9.3f %9.2f\n", P.name.c_str(), P.nc, name_of(ord), ms_per_it,
                  speedup, best.theta.back() / theta0, hit, ms_target, speedup_target);
      std::fflush(stdout);
      if (out)
        out << P.name << ',' << P.nc << ',' << name_of(ord) << ',' << iterations << ',' << ms_per_it << ',' << speedup
            << ',' << best.theta.back() / theta0 << ',' << best.normal_sweeps << ',' << best.friction_sweeps << ','
            << hit << ',' << ms_target << ',' << speedup_target << '\n';
    }
  }
  return 0;
}
