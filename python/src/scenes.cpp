// coulomb.Scene, load_scene, validate, read_scene, apply_overrides, import_model, solvers, info,
// fclib_solve.
#include "scenes.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <coulomb/build_info.h>
#include <coulomb/error.h>
#include <coulomb/fclib_io.h>
#include <coulomb/import.h>
#include <coulomb/log.h>
#include <coulomb/solver.h>
#include <coulomb/world.h>

#include <filesystem>

#include "json_convert.h"

namespace py = pybind11;
namespace fs = std::filesystem;

namespace coulomb::python {

namespace {

// each import warning as a Python UserWarning ("FILE:LINE: ELEMENT: MESSAGE")
void warn_about(const std::vector<ImportWarning>& warnings) {
  py::object warn = py::module_::import("warnings").attr("warn");
  for (const ImportWarning& w : warnings) warn(w.text(), py::module_::import("builtins").attr("UserWarning"), 3);
}

bool is_path(py::handle obj) {
  return py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__");
}

fs::path to_path(py::handle obj) { return fs::path(py::module_::import("os").attr("fspath")(obj).cast<std::string>()); }

}  // namespace

SceneOverrides make_overrides(py::handle solver, py::handle overrides, py::handle steps, py::handle dt) {
  SceneOverrides o;
  if (!solver.is_none()) o.solver = solver.cast<std::string>();
  if (py::isinstance<py::dict>(overrides)) {
    for (auto item : overrides.cast<py::dict>()) {
      if (!py::isinstance<py::str>(item.first))
        throw py::type_error("overrides: keys must be JSON pointers (str), got " + py::repr(item.first).cast<std::string>());
      const auto pointer = item.first.cast<std::string>();
      // the value as JSON text, which apply_override parses back exactly (like --set POINTER=VALUE)
      o.set.push_back(pointer + "=" + to_json(item.second, pointer).dump());
    }
  } else if (py::isinstance<py::list>(overrides) || py::isinstance<py::tuple>(overrides)) {
    for (auto item : overrides) {
      if (!py::isinstance<py::str>(item))
        throw py::type_error("overrides: a list holds \"POINTER=VALUE\" strings, got " + py::repr(item).cast<std::string>());
      o.set.push_back(item.cast<std::string>());
    }
  } else if (!overrides.is_none()) {
    throw py::type_error("overrides: expected a dict {pointer: value} or a list of \"POINTER=VALUE\" strings");
  }
  if (!steps.is_none()) {
    const long long n = steps.cast<long long>();
    if (n < 1 || n > 1000000000) throw InputError("steps", "must be between 1 and 1000000000, got " + std::to_string(n));
    o.steps = int(n);
  }
  if (!dt.is_none()) {
    o.dt = dt.cast<double>();
    if (!(o.dt > 0.0)) throw InputError("dt", "must be positive, got " + py::repr(dt).cast<std::string>());
  }
  return o;
}

SceneDef make_scene(py::handle scene, const SceneOverrides& o, py::handle base_dir) {
  if (py::isinstance<PyScene>(scene)) {
    if (!o.solver.empty() || !o.set.empty() || o.steps > 0 || o.dt > 0.0)
      throw py::value_error(
          "a coulomb.Scene is already validated: give solver=, overrides=, steps= and dt= to load_scene() instead");
    return *scene.cast<const PyScene&>().def;
  }
  if (is_path(scene)) {
    const fs::path file = to_path(scene);
    if (!model_format(file).empty()) {  // a URDF or MJCF model, imported with the defaults
      ImportResult imported;
      {
        py::gil_scoped_release unlocked;
        imported = import_model(file);
      }
      warn_about(imported.warnings);
      py::gil_scoped_release unlocked;
      return load_imported(std::move(imported.scene), file, o);
    }
    py::gil_scoped_release unlocked;  // TetGen and mesh files can take a while
    return load_scene(file, o);
  }
  if (py::isinstance<py::dict>(scene)) {
    nlohmann::json doc = to_json(scene);
    const fs::path base = base_dir.is_none() ? fs::current_path() : to_path(base_dir);
    py::gil_scoped_release unlocked;
    apply_overrides(doc, o);
    return parse_scene(doc, base);
  }
  throw py::type_error("scene: expected a path (str or os.PathLike), a dict or a coulomb.Scene, got " +
                       py::str(py::type::of(scene).attr("__name__")).cast<std::string>());
}

namespace {

py::list names_of_bodies(const SceneDef& s) {
  py::list out;
  for (const BodyDef& b : s.bodies) out.append(b.name);
  return out;
}

py::dict solver_dict(const SolverInfo& s) {
  py::dict d;
  d["name"] = s.name;
  d["description"] = s.description;
  d["kind"] = std::string(to_string(s.kind));
  d["rigid"] = s.rigid;
  d["soft"] = s.soft;
  d["joints"] = s.joints;
  d["gpu"] = s.gpu;
  d["keys"] = s.keys;
  d["assembled"] = s.solve_assembled != nullptr;
  return d;
}

py::dict fclib_solve(const std::string& path, const std::string& solver, double tol, int max_iterations,
                     const std::string& r_strategy) {
  const SolverInfo* s = find_solver(solver);
  if (!s) throw InputError("solver", "unknown solver '" + solver + "' (known: " + solver_names() + ")");
  if (!s->solve_assembled) throw InputError("solver", "solver '" + solver + "' cannot solve assembled (FCLib) problems");
  const auto strategy = enum_from_string<RStrategy>(r_strategy);
  if (!strategy) throw InputError("r_strategy", "expected global, local or blocked, got '" + r_strategy + "'");
  if (!(tol >= 0.0)) throw InputError("tol", "must be >= 0");
  if (max_iterations < 1) throw InputError("max_iterations", "must be >= 1");
  // the options of `coulomb fclib` (tools/cli/fclib_command.cpp): a cold start, the paper's PROX defaults
  SolverOptions opt;
  opt.max_iterations = max_iterations;
  opt.abs_tol = tol;
  opt.rel_tol = tol;
  opt.merit_tol = tol;  // converged means FCLib merit <= tol (solvers/README.md)
  opt.warm_start = false;
  opt.prox = ProxOptions::for_strategy(*strategy);
  const fs::path file(path);
  AssembledProblem problem;
  ContactSolution sol;
  SolverStats stats;
  double fclib_merit = 0.0;
  {
    py::gil_scoped_release unlocked;
    problem = read_fclib_local(file);
    stats = s->solve_assembled(problem, opt, sol);
    fclib_merit = libfclib_merit(file, sol.lambda);
  }
  py::array_t<double> impulses({py::ssize_t(sol.lambda.size()), py::ssize_t(4)});
  auto m = impulses.mutable_unchecked<2>();
  for (std::size_t i = 0; i < sol.lambda.size(); ++i)
    for (int k = 0; k < 4; ++k) m(py::ssize_t(i), k) = sol.lambda[i][k];
  py::dict d;
  d["problem"] = file.stem().string();
  d["nc"] = problem.num_contacts();
  d["solver"] = s->name;
  d["iterations"] = stats.iterations;
  d["time_ms"] = stats.time_ms;
  d["merit"] = stats.merit;
  d["fclib_merit"] = fclib_merit;
  d["converged"] = stats.converged && fclib_merit <= tol;  // libfclib's merit too, as coulomb fclib
  d["residual"] = stats.residual;
  d["impulses"] = impulses;
  return d;
}

}  // namespace

void bind_scenes(py::module_& m) {
  py::class_<PyScene>(m, "Scene",
                      "A validated scene (coulomb.load_scene). World(scene) builds a world from it; the "
                      "same Scene can build many.")
      .def_property_readonly("name", [](const PyScene& s) { return s.def->name; })
      .def_property_readonly("description", [](const PyScene& s) { return s.def->description; })
      .def_property_readonly("dt", [](const PyScene& s) { return s.def->dt; }, "time step (s)")
      .def_property_readonly("steps", [](const PyScene& s) { return s.def->steps; })
      .def_property_readonly("solver", [](const PyScene& s) { return s.def->solver; })
      .def_property_readonly("body_names", [](const PyScene& s) { return names_of_bodies(*s.def); },
                             "rigid bodies in scene order (explicit, then generated)")
      .def_property_readonly("soft_body_names",
                             [](const PyScene& s) {
                               py::list out;
                               for (const SoftBodyDef& b : s.def->soft_bodies) out.append(b.name);
                               return out;
                             })
      .def_property_readonly("base_dir", [](const PyScene& s) { return s.def->base_dir.string(); })
      .def("__repr__", [](const PyScene& s) {
        return "<coulomb.Scene '" + s.def->name + "': " + std::to_string(s.def->bodies.size()) + " bodies, " +
               std::to_string(s.def->soft_bodies.size()) + " soft bodies, " + s.def->solver + ", " +
               std::to_string(s.def->steps) + " steps>";
      });

  m.def(
      "load_scene",
      [](py::handle scene, py::handle solver, py::handle overrides, py::handle steps, py::handle dt,
         py::handle base_dir) {
        return PyScene{std::make_shared<const SceneDef>(make_scene(scene, make_overrides(solver, overrides, steps, dt), base_dir))};
      },
      py::arg("scene"), py::kw_only(), py::arg("solver") = py::none(), py::arg("overrides") = py::none(),
      py::arg("steps") = py::none(), py::arg("dt") = py::none(), py::arg("base_dir") = py::none(),
      "Loads and validates a scene (a path or a dict) with the overrides of `coulomb run` (--solver, --set, "
      "--steps, --dt). Raises SceneError naming the JSON pointer of the first mistake.");

  m.def(
      "validate",
      [](py::handle scene, py::handle solver, py::handle overrides, py::handle steps, py::handle dt,
         py::handle base_dir) {
        SceneDef def = make_scene(scene, make_overrides(solver, overrides, steps, dt), base_dir);
        const std::string solver_name = def.solver;
        const std::size_t shapes = def.shapes.shapes.size();
        int bodies = 0, soft_bodies = 0, vertices = 0, tets = 0, steps_total = 0;
        double step_dt = 0.0;
        {
          py::gil_scoped_release unlocked;
          const World world(std::move(def));  // also checks mass properties, as `coulomb validate`
          for (int i = 0; i < world.soft_body_count(); ++i) {
            vertices += world.soft_body(i).vertex_count();
            tets += int(world.soft_body(i).mesh.tets.size());
          }
          bodies = world.body_count();
          soft_bodies = world.soft_body_count();
          steps_total = world.total_steps();
          step_dt = world.dt();
        }
        py::dict d;
        d["bodies"] = bodies;
        d["soft_bodies"] = soft_bodies;
        d["vertices"] = vertices;
        d["tets"] = tets;
        d["shapes"] = shapes;
        d["solver"] = solver_name;
        d["steps"] = steps_total;
        d["dt"] = step_dt;
        return d;
      },
      py::arg("scene"), py::kw_only(), py::arg("solver") = py::none(), py::arg("overrides") = py::none(),
      py::arg("steps") = py::none(), py::arg("dt") = py::none(), py::arg("base_dir") = py::none(),
      "Checks a scene as `coulomb validate` does and returns its counts (bodies, soft_bodies, vertices, tets, "
      "shapes, solver, steps, dt). Raises SceneError naming the JSON pointer of the first mistake.");

  m.def(
      "import_model",
      [](py::handle path, py::handle search_path, bool strict, py::handle dt, py::handle duration, py::handle solver,
         bool ground, bool floating_base, py::handle base_position) {
        ImportOptions opts;
        if (!search_path.is_none())
          for (auto dir : search_path) opts.search_path.push_back(to_path(dir));
        opts.strict = strict;
        if (!dt.is_none()) opts.dt = dt.cast<double>();
        if (!duration.is_none()) opts.duration = duration.cast<double>();
        if (!solver.is_none()) opts.solver = solver.cast<std::string>();
        opts.ground = ground;
        opts.floating_base = floating_base;
        if (!base_position.is_none()) opts.base_position = base_position.cast<std::array<double, 3>>();
        const fs::path file = to_path(path);
        ImportResult r;
        {
          py::gil_scoped_release unlocked;
          r = import_model(file, opts);
        }
        py::list warnings;
        for (const ImportWarning& w : r.warnings) warnings.append(w.text());
        return py::make_tuple(from_json(r.scene), warnings);
      },
      py::arg("path"), py::kw_only(), py::arg("search_path") = py::none(), py::arg("strict") = false,
      py::arg("dt") = py::none(), py::arg("duration") = py::none(), py::arg("solver") = py::none(),
      py::arg("ground") = true, py::arg("floating_base") = false, py::arg("base_position") = py::none(),
      "Imports a URDF or MJCF model as `coulomb import` does (import/README.md): returns (scene dict, warnings), "
      "the warnings as 'FILE:LINE: ELEMENT: MESSAGE' strings. Mesh paths in the dict are absolute, so "
      "World(scene) runs it from any folder. Raises ModelError naming the file, line and element.");

  m.def(
      "read_scene", [](const std::string& path) { return from_json(read_scene_file(path)); }, py::arg("path"),
      "The scene file as a dict, read as `coulomb run` reads it (a key repeated in one object is an error).");

  m.def(
      "apply_overrides",
      [](py::dict doc, py::handle solver, py::handle overrides, py::handle steps, py::handle dt) {
        nlohmann::json j = to_json(doc);
        apply_overrides(j, make_overrides(solver, overrides, steps, dt));
        return from_json(j);
      },
      py::arg("scene"), py::kw_only(), py::arg("solver") = py::none(), py::arg("overrides") = py::none(),
      py::arg("steps") = py::none(), py::arg("dt") = py::none(),
      "A copy of the scene dict with the overrides applied as `coulomb run` applies them (not validated).");

  m.def(
      "solvers",
      [] {
        py::list out;
        for (const SolverInfo& s : solver_registry()) out.append(solver_dict(s));
        return out;
      },
      "The registered solvers: name, description, kind, what they handle (rigid, soft, joints, gpu), their "
      "option keys, and whether they solve assembled (FCLib) problems.");

  m.def(
      "info",
      [] {
        const BuildInfo b = build_info();
        py::dict d;
        d["version"] = b.version;
        d["solvers"] = b.solvers;
        d["integrators"] = b.integrators;
        d["stabilizations"] = b.stabilizations;
        d["shapes"] = b.shapes;
        d["mesh_formats"] = b.mesh_formats;
        py::dict cuda;
        cuda["compiled"] = b.cuda_compiled;
        cuda["devices"] = b.cuda_devices;
        cuda["device"] = b.cuda_device_name;
        d["cuda"] = cuda;
        return d;
      },
      "What this build can do (`coulomb info --json`).");

  m.def("set_log_level", &set_log_level, py::arg("level"),
        "The library's diagnostics on stderr: trace, debug, info, warn (default), error, critical or off "
        "(`coulomb --log-level`). Raises SceneError for any other level.");

  m.def("fclib_solve", &fclib_solve, py::arg("path"), py::arg("solver"), py::kw_only(), py::arg("tol") = 1e-8,
        py::arg("max_iterations") = 10000, py::arg("r_strategy") = "local",
        "Solves an FCLib local problem (HDF5) as `coulomb fclib` does (cold start, abs_tol = rel_tol = tol) and "
        "returns problem, nc, solver, iterations, time_ms, merit, fclib_merit (libfclib's), converged, residual "
        "and the impulses (nc x 4: normal, two tangents, torsion).");
}

}  // namespace coulomb::python
