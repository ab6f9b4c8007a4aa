// The solver registry: every entry is consistent with its problem kind, parses exactly the keys
// it lists, and its parse function gives the documented defaults and typed values.
#include <coulomb/error.h>
#include <coulomb/gpu/schur.h>
#include <coulomb/solver.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace coulomb {
namespace {

using nlohmann::json;

SolverOptions parse(const std::string& solver, json j) {
  j["type"] = solver;
  return parse_solver_options(*find_solver(solver), j, "/solver");
}

// the InputError of parsing {"type": solver, key: value}
InputError parse_error(const std::string& solver, const std::string& key, const json& value) {
  try {
    parse(solver, {{key, value}});
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << solver << " accepted " << key << " = " << value.dump();
  return InputError("", "");
}

TEST(Registry, EntriesMatchTheirProblemKind) {
  std::set<std::string> names;
  for (const SolverInfo& s : solver_registry()) {
    EXPECT_TRUE(names.insert(s.name).second) << s.name;
    EXPECT_NE(s.parse_options, nullptr) << s.name;
    EXPECT_EQ(s.rigid, simulates_scenes(s)) << s.name;  // FCLib-only solvers simulate no bodies
    EXPECT_EQ(s.keys.front(), "type") << s.name;
    switch (s.kind) {
      case ProblemKind::Velocity:
        EXPECT_TRUE(s.solve || s.solve_assembled) << s.name;
        EXPECT_EQ(s.solve_position, nullptr) << s.name;
        break;
      case ProblemKind::Position:
        EXPECT_NE(s.solve_position, nullptr) << s.name;
        EXPECT_EQ(s.solve, nullptr) << s.name;
        EXPECT_EQ(s.solve_assembled, nullptr) << s.name;
        break;
    }
  }
  EXPECT_EQ(find_solver("prox-gs")->kind, ProblemKind::Velocity);
  EXPECT_EQ(find_solver("pgs")->kind, ProblemKind::Velocity);
  EXPECT_EQ(find_solver("xpbd-jacobi")->kind, ProblemKind::Position);
  EXPECT_EQ(find_solver("nope"), nullptr);
  EXPECT_EQ(find_solver("newton-pcr")->kind, ProblemKind::Position);
  EXPECT_EQ(solver_names_with(&SolverInfo::soft), "xpbd-jacobi, newton-pcr, cr-mlcp");
  EXPECT_EQ(find_solver("cr-mlcp")->kind, ProblemKind::Position);
  EXPECT_EQ(solver_capabilities(*find_solver("cr-mlcp")), "rigid + soft + joints");
  EXPECT_EQ(solver_names_with(&SolverInfo::candidates), "cr-mlcp");
  EXPECT_EQ(solver_capabilities(*find_solver("xpbd-jacobi")), "rigid + soft + joints");
  EXPECT_EQ(solver_capabilities(*find_solver("pgs")), "rigid + joints");
  EXPECT_EQ(solver_capabilities(*find_solver("newton-pcr")), "rigid + soft + joints + gpu");
  EXPECT_EQ(solver_names_with(&SolverInfo::gpu), "newton-pcr");
}

TEST(Registry, FclibOnlySolversAreRefusedForScenes) {
  for (const char* name : {"newton-fb", "newton-minmap"}) {
    const SolverInfo& s = *find_solver(name);
    EXPECT_EQ(s.kind, ProblemKind::Velocity);
    EXPECT_EQ(s.solve, nullptr);
    EXPECT_NE(s.solve_assembled, nullptr);
    EXPECT_FALSE(simulates_scenes(s));
    EXPECT_EQ(solver_capabilities(s), "fclib only");
    try {
      check_simulates_scenes(s);
      ADD_FAILURE() << name;
    } catch (const InputError& e) {
      EXPECT_EQ(e.pointer(), "/solver/type");
      EXPECT_EQ(e.message(), "solver '" + std::string(name) +
                                 "' solves assembled FCLib problems only (coulomb fclib), not scenes; use one of "
                                 "prox-gs, prox-jacobi, pgs, xpbd-jacobi, newton-pcr, cr-mlcp");
    }
  }
  EXPECT_NO_THROW(check_simulates_scenes(*find_solver("prox-gs")));
  EXPECT_NO_THROW(check_simulates_scenes(*find_solver("xpbd-jacobi")));
}

TEST(Registry, EveryListedKeyIsParsedAndNoOther) {
  for (const SolverInfo& s : solver_registry()) {
    for (const std::string& key : s.keys) {
      if (key == "type") continue;
      // null is a wrong value for every key: the parser must know the key to say so
      const InputError e = parse_error(s.name, key, nullptr);
      EXPECT_EQ(e.pointer(), "/solver/" + key) << s.name;
      EXPECT_EQ(e.message().find("unknown key"), std::string::npos) << s.name << " " << key << ": " << e.message();
    }
    const InputError e = parse_error(s.name, "max_iter", 5);
    EXPECT_EQ(e.pointer(), "/solver/max_iter");
    EXPECT_NE(e.message().find("unknown key for solver '" + s.name + "'"), std::string::npos) << e.message();
  }
  // another solver's keys are unknown
  EXPECT_NE(parse_error("prox-gs", "ordering", "ipp").message().find("unknown key"), std::string::npos);
  EXPECT_NE(parse_error("pgs", "r_factor", json::object()).message().find("unknown key"), std::string::npos);
  EXPECT_NE(parse_error("xpbd-jacobi", "warm_start", true).message().find("unknown key"), std::string::npos);
  try {
    parse_solver_options(*find_solver("pgs"), {{"type", "prox-gs"}}, "/solver");
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/type");
    EXPECT_EQ(e.message(), "expected \"pgs\"");
  }
}

TEST(Registry, DefaultsAreThoseOfTheStructs) {
  const SolverOptions d;
  for (const SolverInfo& s : solver_registry()) {
    const SolverOptions o = parse(s.name, json::object());
    // newton-pcr's own defaults for the common keys (newton_options.cpp: the fixed budget's Newton
    // iterations, no relative test); the others keep the struct's
    const bool newton = s.name == "newton-pcr";
    // cr-mlcp's (cr_mlcp_options.cpp): CR iterations per step, eps_2 in metres, no warm start
    const bool cr = s.name == "cr-mlcp";
    EXPECT_EQ(o.max_iterations, newton ? 20 : cr ? 2000 : 100) << s.name;
    EXPECT_EQ(o.abs_tol, cr ? 1e-5 : 1e-6);
    EXPECT_EQ(o.rel_tol, newton ? 0.0 : 1e-6) << s.name;
    EXPECT_EQ(o.warm_start, !cr) << s.name;
    const NewtonOptions n;
    EXPECT_EQ(o.newton.ncp, n.ncp);
    EXPECT_EQ(o.newton.scaling, n.scaling);
    EXPECT_EQ(o.newton.linear, n.linear);
    EXPECT_EQ(o.newton.linear_iterations, n.linear_iterations);
    EXPECT_EQ(o.newton.step, n.step);
    EXPECT_EQ(o.newton.epsilon, n.epsilon);
    EXPECT_EQ(o.newton.device, n.device);
    EXPECT_FALSE(o.record_history);
    EXPECT_EQ(o.threads, 1);
    EXPECT_EQ(o.pgs.sor, d.pgs.sor);
    EXPECT_EQ(o.pgs.ordering, PgsOrdering::Default);
    EXPECT_EQ(o.pgs.cp_axis, Vec3::UnitZ());
    EXPECT_FALSE(o.pgs.cp_descending);
    EXPECT_EQ(o.prox.strategy, RStrategy::Local);
    EXPECT_EQ(o.prox.r_initial, 1.0);
    EXPECT_EQ(o.prox.r_nu, 0.9);
    EXPECT_EQ(o.xpbd.omega, 1.0);
    EXPECT_TRUE(o.xpbd.nesterov);
    EXPECT_FALSE(o.xpbd.gauss_seidel);
  }
}

TEST(Registry, CommonKeys) {
  const SolverOptions o = parse("pgs", {{"max_iterations", 7}, {"abs_tol", 1e-3}, {"rel_tol", 0}, {"warm_start", false},
                                        {"record_history", true}});
  EXPECT_EQ(o.max_iterations, 7);
  EXPECT_EQ(o.abs_tol, 1e-3);
  EXPECT_EQ(o.rel_tol, 0.0);
  EXPECT_FALSE(o.warm_start);
  EXPECT_TRUE(o.record_history);
  EXPECT_EQ(parse_error("pgs", "max_iterations", 0).message(), "expected an integer in [1, 100000000], got 0");
  // issue 11: 2e8 was rejected as "expected an integer >= 1"; the message gives the real limit,
  // and an integer written as a float within it is accepted
  EXPECT_EQ(parse_error("pgs", "max_iterations", 2e8).message(), "expected an integer in [1, 100000000], got 200000000.0");
  EXPECT_EQ(parse("pgs", {{"max_iterations", 5e2}}).max_iterations, 500);
  EXPECT_EQ(parse_error("pgs", "abs_tol", -1).message(), "expected a number >= 0");
  EXPECT_EQ(parse_error("pgs", "warm_start", 1).message(), "expected true or false");
}

TEST(Registry, PgsKeys) {
  const SolverOptions o = parse("pgs", {{"sor", 1.3}, {"ordering", "gsp"}, {"cp_axis", {0, 3, 4}}, {"cp_descending", true}});
  EXPECT_EQ(o.pgs.sor, 1.3);
  EXPECT_EQ(o.pgs.ordering, PgsOrdering::Gsp);
  EXPECT_NEAR((o.pgs.cp_axis - Vec3(0, 0.6, 0.8)).norm(), 0.0, 1e-15);
  EXPECT_TRUE(o.pgs.cp_descending);
  for (PgsOrdering ord : {PgsOrdering::Default, PgsOrdering::Ipp, PgsOrdering::Cp, PgsOrdering::Esp, PgsOrdering::Gsp})
    EXPECT_EQ(parse("pgs", {{"ordering", std::string(to_string(ord))}}).pgs.ordering, ord);
  EXPECT_EQ(parse_error("pgs", "ordering", "fast").message(),
            "expected one of \"default\", \"ipp\", \"cp\", \"esp\", \"gsp\"");
  EXPECT_EQ(parse_error("pgs", "sor", 2).message(), "expected a relaxation factor in (0, 2)");
  EXPECT_EQ(parse_error("pgs", "cp_axis", {0, 0}).message(), "expected an array of 3 numbers");
  EXPECT_EQ(parse_error("pgs", "cp_axis", {0, 0, 0}).message(), "expected a non-zero direction");
  // graph colouring is an order of its own: with another ordering it is an error, not ignored
  EXPECT_TRUE(parse("pgs", {{"graph_coloring", true}, {"ordering", "default"}}).graph_coloring);
  try {
    parse("pgs", {{"graph_coloring", true}, {"ordering", "gsp"}});
    ADD_FAILURE() << "graph_coloring with ordering gsp accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/graph_coloring");
    EXPECT_NE(e.message().find("\"ordering\": \"default\""), std::string::npos) << e.message();
  }
}

TEST(Registry, ProxRFactorTakesTheStrategysDefaults) {
  for (const char* solver : {"prox-gs", "prox-jacobi"}) {
    const auto r = [&](const json& rf) { return parse(solver, {{"r_factor", rf}}).prox; };
    ProxOptions p = r(json::object());
    EXPECT_EQ(p.strategy, RStrategy::Local);
    EXPECT_EQ(p.r_initial, 1.0);
    EXPECT_EQ(p.r_nu, 0.9);
    p = r({{"strategy", "global"}});
    EXPECT_EQ(p.strategy, RStrategy::Global);
    EXPECT_EQ(p.r_initial, 0.0);  // auto
    EXPECT_EQ(p.r_nu, 0.5);
    p = r({{"strategy", "blocked"}, {"initial", "auto"}});
    EXPECT_EQ(p.strategy, RStrategy::Blocked);
    EXPECT_EQ(p.r_initial, 1.0);
    EXPECT_EQ(p.r_nu, 0.5);
    p = r({{"strategy", "global"}, {"initial", 5}, {"nu", 0.7}});
    EXPECT_EQ(p.r_initial, 5.0);
    EXPECT_EQ(p.r_nu, 0.7);
    p = r({{"initial", 2}});
    EXPECT_EQ(p.strategy, RStrategy::Local);
    EXPECT_EQ(p.r_initial, 2.0);
    for (RStrategy s : {RStrategy::Global, RStrategy::Local, RStrategy::Blocked}) {
      const ProxOptions q = r({{"strategy", std::string(to_string(s))}});
      const ProxOptions want = ProxOptions::for_strategy(s);
      EXPECT_EQ(q.strategy, want.strategy);
      EXPECT_EQ(q.r_initial, want.r_initial);
      EXPECT_EQ(q.r_nu, want.r_nu);
    }
  }
  try {
    parse("prox-gs", {{"r_factor", {{"strategy", "adaptive"}}}});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/r_factor/strategy");
    EXPECT_EQ(e.message(), "expected one of \"global\", \"local\", \"blocked\"");
  }
  try {
    parse("prox-gs", {{"r_factor", {{"nu", 1.0}}}});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/r_factor/nu");
  }
  try {
    parse("prox-gs", {{"r_factor", {{"r", 1.0}}}});
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_EQ(e.pointer(), "/solver/r_factor/r");
    EXPECT_EQ(e.message(), "unknown key (known keys: strategy, initial, nu)");
  }
}

TEST(Registry, XpbdKeys) {
  const SolverOptions o = parse("xpbd-jacobi", {{"omega", 0.5}, {"nesterov", false}, {"gauss_seidel", true}});
  EXPECT_EQ(o.xpbd.omega, 0.5);
  EXPECT_FALSE(o.xpbd.nesterov);
  EXPECT_TRUE(o.xpbd.gauss_seidel);
  EXPECT_EQ(parse_error("xpbd-jacobi", "omega", 0).message(), "expected a relaxation factor in (0, 2)");
}

// The budget sets the defaults of the Newton and linear iterations (20 x 60 warm-started, or 30 x
// 40 to the tolerance); the scene's own values win over both.
TEST(Registry, NewtonBudgetSetsTheIterationDefaults) {
  const SolverOptions f = parse("newton-pcr", json::object());
  EXPECT_EQ(f.newton.budget, NewtonBudget::Fixed);
  EXPECT_EQ(f.max_iterations, 20);
  EXPECT_EQ(f.newton.linear_iterations, 60);
  EXPECT_TRUE(f.warm_start);
  const SolverOptions t = parse("newton-pcr", {{"budget", "tolerance"}});
  EXPECT_EQ(t.newton.budget, NewtonBudget::Tolerance);
  EXPECT_EQ(t.max_iterations, 30);
  EXPECT_EQ(t.newton.linear_iterations, 40);
  const SolverOptions given = parse("newton-pcr", {{"linear_iterations", 7}, {"budget", "tolerance"}, {"max_iterations", 9}});
  EXPECT_EQ(given.max_iterations, 9);
  EXPECT_EQ(given.newton.linear_iterations, 7);
  EXPECT_FALSE(parse("newton-pcr", {{"warm_start", false}}).warm_start);
}

TEST(Registry, NewtonKeys) {
  const SolverOptions o = parse("newton-pcr", {{"ncp", "minmap"}, {"scaling", "identity"}, {"linear", "gauss-seidel"},
                                               {"linear_iterations", 7}, {"linear_tol", 1e-3}, {"step", 1.0},
                                               {"epsilon", 0.0}, {"geometric_stiffness", false}, {"start", "free"},
                                               {"device", "cpu"}});
  EXPECT_EQ(o.newton.ncp, NcpFunction::MinMap);
  EXPECT_EQ(o.newton.scaling, NcpScaling::Identity);
  EXPECT_EQ(o.newton.linear, NewtonLinear::GaussSeidel);
  EXPECT_EQ(o.newton.linear_iterations, 7);
  EXPECT_EQ(o.newton.linear_tol, 1e-3);
  EXPECT_EQ(o.newton.step, 1.0);
  EXPECT_EQ(o.newton.epsilon, 0.0);
  EXPECT_FALSE(o.newton.geometric_stiffness);
  EXPECT_EQ(o.newton.start, NewtonStart::Free);
  EXPECT_EQ(o.newton.device, ComputeDevice::Cpu);
  EXPECT_NE(parse_error("newton-pcr", "ncp", "newton").message().find("expected one of \"fb\", \"minmap\""),
            std::string::npos);
  EXPECT_EQ(parse_error("newton-pcr", "step", 0).message(), "expected a damped Newton step in (0, 1]");
  EXPECT_EQ(parse_error("newton-pcr", "linear_iterations", 2.5).message(), "expected an integer in [1, 1000000]");
  EXPECT_NE(parse_error("newton-pcr", "start", "hot").message().find("expected one of"), std::string::npos);
  EXPECT_NE(parse_error("newton-pcr", "budget", "none").message().find("expected one of \"fixed\", \"tolerance\""),
            std::string::npos);
  if (!gpu::cuda_available()) {
    EXPECT_NE(parse_error("newton-pcr", "device", "cuda").message().find("needs a CUDA build and a visible GPU"),
              std::string::npos);
  } else {
    EXPECT_EQ(parse("newton-pcr", {{"device", "cuda"}}).newton.device, ComputeDevice::Cuda);
  }
}

TEST(Registry, EnumNames) {
  EXPECT_EQ(to_string(PgsOrdering::Ipp), "ipp");
  EXPECT_EQ(to_string(RStrategy::Blocked), "blocked");
  EXPECT_EQ(to_string(ProblemKind::Position), "position");
  EXPECT_EQ(enum_from_string<PgsOrdering>("esp"), PgsOrdering::Esp);
  EXPECT_EQ(enum_from_string<RStrategy>("Local"), std::nullopt);  // the scene's spelling only
  std::ostringstream os;
  os << RStrategy::Global << " " << ProblemKind::Velocity;
  EXPECT_EQ(os.str(), "global velocity");
}

}  // namespace
}  // namespace coulomb
