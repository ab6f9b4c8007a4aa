// Solver options as typed values: the keys every solver shares, and one struct per solver family
// with its own keys (enumerations are enum classes, not strings). Each registry entry parses the
// scene's "solver" object into a SolverOptions with its own parse function (solver.h), so a
// solver's inner code only reads plain fields.
//
// Shape: SolverOptions derives from CommonSolverOptions (so `opt.max_iterations` reads the same
// in every solver) and holds one part per family, `opt.pgs`, `opt.prox`, `opt.xpbd`. The chosen
// solver's parse function fills the common keys and its own part; the other parts keep their
// defaults and that solver never reads them. A plain struct rather than a std::variant, so that
// a tool can set up one SolverOptions for several solvers (`coulomb fclib` runs every solver on
// the same options) and a solver reads its part without a std::get on every call.
#pragma once
#include <coulomb/math.h>

#include <array>
#include <cstddef>
#include <optional>
#include <ostream>
#include <string_view>

namespace coulomb {

// The scene's spelling of an enumeration's values, indexed by the enumerator's value; each enum
// of the solver options specialises it, which gives it to_string, enum_from_string and the
// parse helpers' "expected one of" list.
template <class E>
struct EnumNames;

template <class E>
concept NamedEnum = requires { EnumNames<E>::names; };

template <NamedEnum E>
constexpr std::string_view to_string(E e) {
  return EnumNames<E>::names[static_cast<std::size_t>(e)];
}

template <NamedEnum E>
std::ostream& operator<<(std::ostream& os, E e) {
  return os << to_string(e);
}

// nullopt if no value of E has that name
template <NamedEnum E>
constexpr std::optional<E> enum_from_string(std::string_view name) {
  for (std::size_t i = 0; i < EnumNames<E>::names.size(); ++i)
    if (EnumNames<E>::names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

// Keys shared by all solvers. Which of them a solver accepts is in its SolverInfo::keys
// (xpbd-jacobi has no warm_start).
struct CommonSolverOptions {
  int max_iterations = 100;     // sweeps over all contacts
  double abs_tol = 1e-6;        // stop when ||lambda^{k+1} - lambda^k||_inf <= abs_tol (unit: N s)
  double rel_tol = 1e-6;        // ... or <= rel_tol * ||lambda^{k+1}||_inf
  bool warm_start = true;       // start from the previous step's impulses
  int threads = 1;              // worker threads available to the solver (not a scene key: --threads)
  bool record_history = false;  // fill SolverStats::history (studies; costs a merit per iteration)
  // Not a scene key (like threads); `coulomb fclib` sets it to --tol. When > 0, the velocity
  // solvers with an assembled form stop on the FCLib merit (merit.h) of their impulses instead of
  // their own test, and `converged` means that merit is <= merit_tol (issue 12, "honest
  // convergence"; solvers/README.md, "What converged means").
  double merit_tol = 0.0;
  // pgs and prox-gs on scenes: sweep the contacts colour by colour of the contact graph
  // (contact_coloring.h) instead of in index order, each colour in parallel with threads > 1.
  // Same result for every thread count; a different (equally valid) Gauss-Seidel order than
  // the default, so off by default. pgs uses it with the default ordering only (a scene that
  // asks for both is an input error). solve_islands solves a problem whose largest island holds
  // at least 15/16 of the contacts whole, coloured as one (island_solve.h).
  bool graph_coloring = false;
  // Not a scene key: false skips the FCLib merit of the result (SolverStats::merit stays NaN),
  // for a caller that never reads it (World's post-stabilisation, whose displacement problem's
  // merit was a pass over every contact per island and one more over all; coulomb-vs-bullet,
  // which computes the merit of both engines itself). pgs, prox-gs, prox-jacobi and
  // solve_islands honour it; the other solvers always evaluate it. The World accepts the NaN
  // merit of a solve that skipped it.
  bool evaluate_merit = true;
};

// pgs (seed 001): the contact permutations of section 5 (pgs.cpp)
enum class PgsOrdering { Default, Ipp, Cp, Esp, Gsp };
template <>
struct EnumNames<PgsOrdering> {
  static constexpr std::array<std::string_view, 5> names{"default", "ipp", "cp", "esp", "gsp"};
};

struct PgsOptions {
  double sor = 1.0;                              // successive over-relaxation factor in (0, 2)
  PgsOrdering ordering = PgsOrdering::Default;   // section 5
  Vec3 cp_axis = Vec3::UnitZ();                  // cp: contacts sorted by position along this (unit) axis
  bool cp_descending = false;                    // cp: from the top of the axis down
};

// prox-gs, prox-jacobi (seed 000): the r-factor strategies of section 4.2 (prox.cpp)
enum class RStrategy { Global, Local, Blocked };
template <>
struct EnumNames<RStrategy> {
  static constexpr std::array<std::string_view, 3> names{"global", "local", "blocked"};
};

// "r_factor": {"strategy", "initial", "nu"}. The defaults are local's: on the bundled Wall and
// Tower it is the strategy that keeps them standing within 100 sweeps (solvers/README.md).
struct ProxOptions {
  RStrategy strategy = RStrategy::Local;
  double r_initial = 1.0;  // global: the initial r, 0 = auto (1 / max_i A_ii);
                           // local/blocked: a factor on 1/A_ii (default 1)
  double r_nu = 0.9;       // back-tracking factor (0.5 global/blocked, 0.9 local)

  // The paper's values for a strategy, as an "r_factor" object giving only its strategy gets
  // them: global r auto and nu 0.5; local 1/A_ii and nu 0.9; blocked its inverse blocks and nu 0.5.
  static constexpr ProxOptions for_strategy(RStrategy s) {
    return {s, s == RStrategy::Global ? 0.0 : 1.0, s == RStrategy::Local ? 0.9 : 0.5};
  }
};

// xpbd-jacobi (seed 002)
struct XpbdOptions {
  double omega = 1.0;         // relaxation; Jacobi scales it by 1 / (incident constraints) per block
  bool nesterov = true;       // Nesterov momentum on the Jacobi update (eq. 35)
  bool gauss_seidel = false;  // the sequential variant (omega as given, no momentum)
};

// newton-pcr (seed 003): the non-smooth Newton method on the implicit system of eq. 46-50
enum class NcpFunction { FischerBurmeister, MinMap };  // s.4.1-4.2, appendix A
template <>
struct EnumNames<NcpFunction> {
  static constexpr std::array<std::string_view, 2> names{"fb", "minmap"};
};
// r of the NCP functions (s.7): eq. 66's effective mass times h^2 (normals) or h (friction), a
// constant h^2 (h for friction), or 1
enum class NcpScaling { Complementarity, Timestep, Identity };
template <>
struct EnumNames<NcpScaling> {
  static constexpr std::array<std::string_view, 3> names{"complementarity", "timestep", "identity"};
};
// the linear back end of each Newton iteration (s.8.2, figure 18); same order as gpu::LinearSolver
enum class NewtonLinear { Pcr, Cg, Jacobi, GaussSeidel, Direct };
template <>
struct EnumNames<NewtonLinear> {
  static constexpr std::array<std::string_view, 5> names{"pcr", "cg", "jacobi", "gauss-seidel", "direct"};
};
enum class ComputeDevice { Cpu, Cuda, Auto };
template <>
struct EnumNames<ComputeDevice> {
  static constexpr std::array<std::string_view, 3> names{"cpu", "cuda", "auto"};
};

// How a step's Newton loop is bounded. "fixed" is seed 003 Table 2's practice, a budget per step
// warm-started from the last step: max_iterations Newton iterations (default 20) of
// linear_iterations PCR iterations each (default 60); it stops early when the residual meets the
// tolerance and otherwise reports the residual it reached, unconverged. 60 linear iterations,
// not Table 2's 10-80 with 4-8 Newton ones, because a warm start carries a step's leftover error
// into the next one and stacks then creep (tools/bench/data/newton_budgets.csv). "tolerance" runs to abs_tol / rel_tol under
// a cap of max_iterations (default 30) with 40 linear iterations each.
enum class NewtonBudget { Fixed, Tolerance };
template <>
struct EnumNames<NewtonBudget> {
  static constexpr std::array<std::string_view, 2> names{"fixed", "tolerance"};
};
// u^0 of each step: eq. 67's zero, the free velocity u~, or the velocity that balances the
// warm-started impulses, u~ + M^-1 J^T P^0 (the momentum equation eq. 57 holds at the start)
enum class NewtonStart { Zero, Free, Warm };
template <>
struct EnumNames<NewtonStart> {
  static constexpr std::array<std::string_view, 3> names{"zero", "free", "warm"};
};

// The common max_iterations counts Newton iterations, abs_tol bounds the Newton residual and
// warm_start seeds the impulses with the last step's (solvers/src/newton_pcr.cpp says which); the
// defaults of the common keys are set by its parse function, per budget.
struct NewtonOptions {
  NewtonBudget budget = NewtonBudget::Fixed;
  NcpFunction ncp = NcpFunction::FischerBurmeister;
  NcpScaling scaling = NcpScaling::Complementarity;
  NewtonLinear linear = NewtonLinear::Pcr;
  int linear_iterations = 60;     // per Newton iteration (Table 2: 10-80; "tolerance": 40, as s.10.4)
  double linear_tol = 1e-4;       // relative residual at which the linear solve stops early
  double step = 0.75;             // damped Newton t (s.8.1)
  double epsilon = 1e-6;          // s.8.4 regularisation, relative to each row's J H^-1 J^T diagonal
  bool geometric_stiffness = true;  // s.8.3's diagonal secant approximation (eq. 71-74)
  NewtonStart start = NewtonStart::Zero;
  ComputeDevice device = ComputeDevice::Auto;

  // the budget's Newton iterations (max_iterations) and linear iterations when the scene gives neither
  static constexpr int default_newton_iterations(NewtonBudget b) { return b == NewtonBudget::Fixed ? 20 : 30; }
  static constexpr int default_linear_iterations(NewtonBudget b) { return b == NewtonBudget::Fixed ? 60 : 40; }
};

// newton-fb, newton-minmap (seed 003 on assembled local problems, newton_fclib.cpp): how the
// Newton system is solved each iteration. Ldlt and Pcr work on the symmetric (compliance) form of
// seed 003 eq. 59, with the symmetric part of W; Lu factorises the exact (unsymmetric) Jacobian.
enum class NewtonLinearSolver { Ldlt, Lu, Pcr };
template <>
struct EnumNames<NewtonLinearSolver> {
  static constexpr std::array<std::string_view, 3> names{"ldlt", "lu", "pcr"};
};

// How friction enters the Newton system: seed 003's fixed-point compliance W (eq. 33-37, 104-105),
// or the semismooth form of the same NCP function on the Coulomb cone (the cone's projection for
// the minimum map, i.e. Alart-Curnier; the second-order-cone Fischer-Burmeister function).
enum class NewtonFriction { FixedPoint, Cone };
template <>
struct EnumNames<NewtonFriction> {
  static constexpr std::array<std::string_view, 2> names{"fixed_point", "cone"};
};

// The defaults are the measured best on the ten FCLib problems of ../shared/fclib (solvers/README.md,
// "Non-smooth Newton on FCLib problems"): full steps, no line search, the cone form, LU.
struct NewtonFclibOptions {
  double damping = 1.0;              // t of seed 003 s.8.1, lambda += t dlambda (the paper's 0.75 converges linearly)
  bool line_search = false;          // halve t while ||phi|| does not decrease (at most 10 times, then take t)
  NewtonLinearSolver linear_solver = NewtonLinearSolver::Lu;  // ldlt and pcr need friction fixed_point
  NewtonFriction friction = NewtonFriction::Cone;
  int pcr_iterations = 200;          // pcr: at most this many iterations per Newton step
  double regularization = 0.01;      // epsilon of s.8.4 is this times ||phi|| / ||phi_0||, relative to each row's r-factor
  // Globalisation: after stall_iterations Newton iterations in which the best FCLib merit has not
  // halved, a projected Gauss-Seidel phase (seed 000's prox-gs with blocked contacts) of at most
  // prox_sweeps sweeps starts from the best iterate, then Newton resumes from the phase's best.
  int stall_iterations = 40;         // 0: pure Newton, never switch
  int prox_sweeps = 200;             // sweeps per projected phase
};

// cr-mlcp (seed 004): the preconditioner of s.3.4 (eq. 22)
enum class CrPreconditioner { Diag, Full };
template <>
struct EnumNames<CrPreconditioner> {
  static constexpr std::array<std::string_view, 2> names{"diag", "full"};
};

// The common max_iterations counts CR iterations over the whole step (all re-linearisations);
// abs_tol is eps_2 (unit: m: the band 0 <= C_k(x) < eps_2 every active constraint ends in, and the
// largest change of distance a state switch must make to be applied, Algorithm 2 line 19);
// rel_tol is eps_1 (||r|| < eps_1 ||d||, and the local-minimum test ||B C^-1 r|| < eps_1 ||d||).
// The defaults below are set by its parse function (cr_mlcp_options.cpp).
struct CrMlcpOptions {
  CrPreconditioner preconditioner = CrPreconditioner::Full;
  bool friction = true;                // static/kinetic friction rows (s.3.2); false: frictionless
  double mass_damping = 0.0;           // Rayleigh alpha of C_d = alpha M + beta K (unit: 1/s); beta is
                                       // each material's damping (unit: s)
  double compression_limit = 0.3;      // Neo-Hookean: principal stretches below it see the energy
                                       // extrapolated linearly (s.2.1, Stomakhin et al. 2012), in (0, 1]
  bool duplicate_scaling = true;       // Z of s.3.4.1 (false: Z = I, for studies)
  int max_relinearizations = 10;       // Algorithm 1 line 27 rounds per step
  bool update_normals = true;          // eq. 21: contact normals from the geometry at each
                                       // re-linearisation, turned at most 15 degrees (false: fixed)
  double theta_eps_deg = 1.2;          // eps_theta of Algorithm 3 (unit: degree)
  double theta_alpha = 0.01;           // alpha_theta of Algorithm 3
};

// What a solve function gets: the common keys and every family's part (see the top of this file).
// A new solver family adds its part here (solvers/README.md, "Adding a solver").
struct SolverOptions : CommonSolverOptions {
  PgsOptions pgs;
  ProxOptions prox;
  XpbdOptions xpbd;
  NewtonOptions newton;
  NewtonFclibOptions newton_fclib;
  CrMlcpOptions cr;
};

}  // namespace coulomb
