// coulomb.World and coulomb.State (python/README.md).
//
// Body arrays are in the user's terms of final_state.json (World::body): the pose of each body's
// shape frame and the velocity of that frame's origin, one row per body id (body_names' order: the
// scene's, unless a scene of 1,024 or more moving bodies was numbered in space). Reading
// makes a new array; assigning a whole array writes it: the rows that differ from the current
// values are converted to the centre-of-mass state (RigidState) and set with World::set_state,
// so rows left alone keep their state bit for bit.
//
// Steps run without the GIL. A world is not to be used from two threads at once: a call made
// while another thread is stepping it raises RuntimeError instead of racing.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <coulomb/output.h>
#include <coulomb/world.h>

#include <atomic>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "errors.h"
#include "json_convert.h"
#include "py_world.h"
#include "scenes.h"

namespace py = pybind11;

namespace coulomb::python {

namespace {

enum class Field { Position, Orientation, Velocity, AngularVelocity };
const char* field_name(Field f) {
  switch (f) {
    case Field::Position: return "positions";
    case Field::Orientation: return "orientations";
    case Field::Velocity: return "velocities";
    case Field::AngularVelocity: return "angular_velocities";
  }
  return "";
}
int field_width(Field f) { return f == Field::Orientation ? 4 : 3; }

py::array_t<double> read_field(PyWorld& pw, Field f) {
  const World& w = pw.get();
  const int nb = w.body_count(), width = field_width(f);
  py::array_t<double> a({py::ssize_t(nb), py::ssize_t(width)});
  auto m = a.mutable_unchecked<2>();
  for (int i = 0; i < nb; ++i) {
    const BodyState b = w.body(i);
    const Vec3* v = f == Field::Position ? &b.position : f == Field::Velocity ? &b.velocity : &b.angular_velocity;
    if (f == Field::Orientation) {  // [w, x, y, z], as in the scene and final_state.json
      m(i, 0) = b.orientation.w();
      m(i, 1) = b.orientation.x();
      m(i, 2) = b.orientation.y();
      m(i, 3) = b.orientation.z();
    } else {
      for (int k = 0; k < 3; ++k) m(i, k) = (*v)[k];
    }
  }
  return a;
}

void write_field(PyWorld& pw, Field f, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
  World& w = pw.get();
  const int nb = w.body_count(), width = field_width(f);
  const std::string name = field_name(f);
  if (a.ndim() != 2 || a.shape(0) != nb || a.shape(1) != width) {
    std::string got = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) {
      if (d) got += ", ";
      got += std::to_string(a.shape(d));
    }
    throw py::value_error(name + ": expected an array of shape (" + std::to_string(nb) + ", " +
                          std::to_string(width) + "), one row per body, got shape " + got + (a.ndim() == 1 ? ",)" : ")"));
  }
  auto m = a.unchecked<2>();
  State s = w.state();
  bool changed = false;
  for (int i = 0; i < nb; ++i) {
    const auto k = std::size_t(i);
    const BodyState b = w.body(i);
    const std::string body = "body " + std::to_string(i) + " ('" + b.name + "')";
    for (int c = 0; c < width; ++c)
      if (!std::isfinite(m(i, c))) throw py::value_error(name + ": " + body + " has a NaN or infinite value");
    const Vec3 row = width == 3 ? Vec3(m(i, 0), m(i, 1), m(i, 2)) : Vec3::Zero();
    const Pose& shape_in_body = w.model().shape_in_body[k];
    Vec3& x = s.rigid.x[k];
    Quat& q = s.rigid.q[k];
    Vec3& v = s.rigid.v[k];
    Vec3& omega = s.rigid.w[k];
    // Each write keeps the other quantities in the user's terms (World::body inverted) and rows
    // equal to the current values untouched. The shape origin is x + q shape_in_body.p, and its
    // velocity v + omega x (origin - x).
    switch (f) {
      case Field::Position:  // translate: orientation and velocities unchanged
        if (row == b.position) continue;
        x = row - q * shape_in_body.p;
        break;
      case Field::Orientation: {  // rotate about the shape origin, keeping its velocity
        if (m(i, 0) == b.orientation.w() && m(i, 1) == b.orientation.x() && m(i, 2) == b.orientation.y() &&
            m(i, 3) == b.orientation.z())
          continue;
        Quat shape_q(m(i, 0), m(i, 1), m(i, 2), m(i, 3));
        if (shape_q.norm() == 0.0) throw py::value_error(name + ": " + body + " has a zero quaternion");
        shape_q.normalize();  // as the scene loader does
        const Pose body_pose = Pose{b.position, shape_q} * shape_in_body.inverse();
        x = body_pose.p;
        q = body_pose.q;
        v = b.velocity + omega.cross(x - b.position);
        break;
      }
      case Field::Velocity:
        if (row == b.velocity) continue;
        if (b.fixed && !b.kinematic) throw py::value_error(name + ": " + body + " is fixed: its velocities stay zero");
        v = row + omega.cross(x - b.position);
        break;
      case Field::AngularVelocity:
        if (row == b.angular_velocity) continue;
        if (b.fixed && !b.kinematic) throw py::value_error(name + ": " + body + " is fixed: its velocities stay zero");
        omega = row;
        v = b.velocity + omega.cross(x - b.position);
        break;
    }
    changed = true;
  }
  if (!changed) return;
  w.set_state(s);
  pw.failed_step = 0;
}

py::object body_name_of(const World& w, const StepResult& r) {
  if (r.body >= 0 && r.body < w.body_count()) return py::str(w.model().name[std::size_t(r.body)]);
  // a soft body: the message names it ("step N: soft body 'NAME' vertex I ...", World::check_state)
  const std::string tag = "soft body '";
  const auto at = r.message.find(tag);
  if (at != std::string::npos) {
    const auto from = at + tag.size(), to = r.message.find('\'', from);
    if (to != std::string::npos) return py::str(r.message.substr(from, to - from));
  }
  return py::none();
}

[[noreturn]] void raise_failure(PyWorld& pw, const StepResult& r, py::object stats) {
  const char* status = r.status == StepResult::Status::InvalidState ? "invalid_state" : "error";
  raise_simulation_error(r.message, pw.failed_step, body_name_of(*pw.world, r), status, std::move(stats));
}

py::dict step(PyWorld& pw) {
  StepResult r;
  nlohmann::json stats;
  {
    Busy busy(pw);
    py::gil_scoped_release unlocked;
    const int attempted = pw.world->step_count() + 1;
    r = pw.world->step();
    if (!r.ok() && pw.failed_step == 0) pw.failed_step = attempted;
    stats = stats_json(pw.world->last_stats());
  }
  if (!r.ok()) raise_failure(pw, r, py::none());
  return from_json(stats);
}

// The stats gathered as columns while stepping (json_convert.h Columns): a run of any length holds
// 8 bytes per kept number and step, and `every` and `keep` bound that further.
py::dict run(PyWorld& pw, py::object steps, long long every, py::object keep) {
  if (every < 1) throw py::value_error("run: every must be >= 1, got " + std::to_string(every));
  const nlohmann::json like = stats_json(StepStats{});
  std::optional<std::vector<std::string>> keys;
  if (!keep.is_none()) {
    keys.emplace();
    if (py::isinstance<py::str>(keep)) throw py::type_error("run: keep is a list of stats keys, not one string");
    for (py::handle k : keep) {
      const auto key = k.cast<std::string>();
      if (!like.contains(key)) {
        std::string known;
        for (const auto& [name, v] : like.items()) known += (known.empty() ? "" : ", ") + name;
        throw py::value_error("run: keep names no stats key '" + key + "' (keys: " + known + ")");
      }
      keys->push_back(key);
    }
  }
  Columns cols(like, keys);
  StepResult r;
  {
    Busy busy(pw);
    World& w = *pw.world;
    long long n = std::max(0, w.total_steps() - w.step_count());
    if (!steps.is_none()) {
      n = steps.cast<long long>();
      if (n < 0) throw py::value_error("run: the number of steps must be >= 0, got " + std::to_string(n));
    }
    py::gil_scoped_release unlocked;
    for (long long k = 0; k < n; ++k) {
      const int attempted = w.step_count() + 1;
      r = w.step();
      // the failed step's line too, as `coulomb run` writes it, and always the last step run
      if (!cols.empty() && (!r.ok() || k + 1 == n || w.step_count() % every == 0)) cols.append(stats_json(w.last_stats()));
      if (!r.ok()) {
        if (pw.failed_step == 0) pw.failed_step = attempted;
        break;
      }
    }
  }
  py::dict out = cols.take();
  if (!r.ok()) raise_failure(pw, r, out);
  return out;
}

py::array_t<double> soft_vertices(PyWorld& pw, const std::string& name) {
  const World& w = pw.get();
  const int id = w.find_soft_body(name);
  if (id < 0) {
    std::string known;
    for (int i = 0; i < w.soft_body_count(); ++i) known += (i ? ", " : "") + w.soft_body(i).name;
    throw py::key_error("no soft body named '" + name + "' (" + (known.empty() ? "the world has none" : "soft bodies: " + known) + ")");
  }
  const std::vector<Vec3>& x = w.soft_body(id).x;
  py::array_t<double> a({py::ssize_t(x.size()), py::ssize_t(3)});
  auto m = a.mutable_unchecked<2>();
  for (std::size_t i = 0; i < x.size(); ++i)
    for (int k = 0; k < 3; ++k) m(py::ssize_t(i), k) = x[i][k];
  return a;
}

}  // namespace

void bind_world(py::module_& m) {
  py::class_<State>(m, "State",
                    "Everything a step changes (coulomb/state.h), copied by World.state(). World.set_state(s) "
                    "restores it: stepping again repeats the run bit for bit.")
      .def_property_readonly("step", [](const State& s) { return s.step; }, "completed steps")
      .def_property_readonly("time", [](const State& s) { return s.time; }, "simulated time (s)")
      .def("__copy__", [](const State& s) { return State(s); })
      .def("__deepcopy__", [](const State& s, py::dict) { return State(s); }, py::arg("memo"))
      .def("__repr__", [](const State& s) {
        return "<coulomb.State step " + std::to_string(s.step) + ", t = " + std::to_string(s.time) + " s, " +
               std::to_string(s.rigid.x.size()) + " bodies, " + std::to_string(s.soft.size()) + " soft bodies>";
      });

  PyWorldClass cls = py::class_<PyWorld>(m, "World",
                      "A simulation: World(scene, solver=None, overrides=None, steps=None, dt=None, threads=1, "
                      "max_speed=1e3, health=\"stop\", islands=True, base_dir=None). `scene` is a path, a dict or a coulomb.Scene; "
                      "the keywords are `coulomb run`'s --solver, --set (a dict {pointer: value} or a list of "
                      "\"POINTER=VALUE\"), --steps, --dt, --threads, --max-speed and --no-islands.")
      .def(py::init([](py::handle scene, py::handle solver, py::handle overrides, py::handle steps, py::handle dt,
                       int threads, double max_speed, const std::string& health, bool islands, py::handle base_dir) {
             if (threads < 0) throw InputError("threads", "must be >= 0 (0 = all cores)");
             if (!(max_speed > 0.0)) throw InputError("max_speed", "must be positive");
             SceneDef def = make_scene(scene, make_overrides(solver, overrides, steps, dt), base_dir);
             WorldSettings settings;
             settings.threads = threads;
             settings.max_speed = max_speed;
             settings.health.action = health_action(health);
             settings.islands = islands;
             auto pw = std::make_unique<PyWorld>();
             py::gil_scoped_release unlocked;
             pw->world = std::make_unique<World>(std::move(def), settings);
             return pw;
           }),
           py::arg("scene"), py::kw_only(), py::arg("solver") = py::none(), py::arg("overrides") = py::none(),
           py::arg("steps") = py::none(), py::arg("dt") = py::none(), py::arg("threads") = 1,
           py::arg("max_speed") = 1e3, py::arg("health") = "stop", py::arg("islands") = true, py::arg("base_dir") = py::none())
      .def("step", &step,
           "Runs one step and returns its stats (the keys of a stats.jsonl line). Raises SimulationError (.step, "
           ".body) if the step fails.")
      .def("run", &run, py::arg("steps") = py::none(), py::kw_only(), py::arg("every") = 1,
           py::arg("keep") = py::none(),
           "Runs `steps` steps (default: to the scene's end) and returns their stats as columns, "
           "{key: numpy array} (joint_error: a dict of two). every=N keeps the stats of the steps whose number "
           "is a multiple of N, and of the last one run; keep=[keys] keeps only those stats keys ([]: none, {} "
           "returned). The columns take 8 bytes per kept number and step. Raises SimulationError, with .stats up "
           "to the failed step, if a step fails.")
      .def("state", [](PyWorld& pw) { return pw.get().state(); }, "A copy of everything a step changes.")
      .def(
          "set_state",
          [](PyWorld& pw, const State& s) {
            pw.get().set_state(s);
            pw.failed_step = 0;
          },
          py::arg("state"),
          "Restores a State from this world (or one built from the same scene). Raises SceneError (pointer "
          "'State') if it does not fit.")
      .def_property("positions", [](PyWorld& pw) { return read_field(pw, Field::Position); },
                    [](PyWorld& pw, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
                      write_field(pw, Field::Position, a);
                    },
                    "(n, 3) shape-frame positions (m), one row per body in body_names' order; assign an array to move bodies")
      .def_property("orientations", [](PyWorld& pw) { return read_field(pw, Field::Orientation); },
                    [](PyWorld& pw, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
                      write_field(pw, Field::Orientation, a);
                    },
                    "(n, 4) unit quaternions [w, x, y, z]; written rows are normalised")
      .def_property("velocities", [](PyWorld& pw) { return read_field(pw, Field::Velocity); },
                    [](PyWorld& pw, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
                      write_field(pw, Field::Velocity, a);
                    },
                    "(n, 3) velocities of the shape frames' origins (m/s); fixed bodies' rows must stay zero")
      .def_property("angular_velocities", [](PyWorld& pw) { return read_field(pw, Field::AngularVelocity); },
                    [](PyWorld& pw, const py::array_t<double, py::array::c_style | py::array::forcecast>& a) {
                      write_field(pw, Field::AngularVelocity, a);
                    },
                    "(n, 3) angular velocities, world frame (rad/s)")
      .def("soft_vertices", &soft_vertices, py::arg("name"),
           "(n, 3) vertex positions of the soft body `name` (m), a copy. KeyError if there is none.")
      .def_property_readonly(
          "initial_overlaps",
          [](PyWorld& pw) {
            const InitialOverlaps& o = pw.get().initial_overlaps();
            py::list pairs, shifts;
            for (const InitialOverlaps::Pair& p : o.pairs) pairs.append(py::make_tuple(p.a, p.b, p.depth));
            for (const InitialOverlaps::Shift& m : o.shifts)
              shifts.append(py::make_tuple(m.body, py::make_tuple(m.shift.x(), m.shift.y(), m.shift.z())));
            py::dict d;
            d["tolerance"] = o.tolerance;
            d["pairs"] = pairs;
            d["shifts"] = shifts;
            return d;
          },
          "The overlaps found at load (scene collision.initial_overlap): {'tolerance': m, 'pairs': [(a, b, depth)], "
          "'shifts': [(body, (dx, dy, dz))]}, pairs deeper than the tolerance (warn or resolve), shifts made by resolve.")
      .def_property_readonly("body_names",
                             [](PyWorld& pw) {
                               py::list out;
                               for (const std::string& n : pw.get().model().name) out.append(n);
                               return out;
                             })
      .def_property_readonly("fixed",
                             [](PyWorld& pw) {
                               const std::vector<std::uint8_t>& f = pw.get().model().fixed;
                               py::array_t<bool> a(py::ssize_t(f.size()));
                               auto m = a.mutable_unchecked<1>();
                               for (std::size_t i = 0; i < f.size(); ++i) m(py::ssize_t(i)) = f[i] != 0;
                               return a;
                             },
                             "(n,) bool: which bodies are fixed")
      .def_property_readonly("masses",
                             [](PyWorld& pw) {
                               const std::vector<double>& mass = pw.get().model().mass;
                               return py::array_t<double>(py::ssize_t(mass.size()), mass.data());
                             },
                             "(n,) masses (kg), 0 for fixed bodies")
      .def_property_readonly("soft_body_names",
                             [](PyWorld& pw) {
                               py::list out;
                               const World& w = pw.get();
                               for (int i = 0; i < w.soft_body_count(); ++i) out.append(w.soft_body(i).name);
                               return out;
                             })
      .def_property_readonly("step_count", [](PyWorld& pw) { return pw.get().step_count(); })
      .def_property_readonly("total_steps", [](PyWorld& pw) { return pw.get().total_steps(); })
      .def_property_readonly("time", [](PyWorld& pw) { return pw.get().time(); }, "simulated time (s)")
      .def_property_readonly("dt", [](PyWorld& pw) { return pw.get().dt(); }, "time step (s)")
      .def_property_readonly("solver", [](PyWorld& pw) { return pw.get().scene().solver; })
      .def_property_readonly("last_stats", [](PyWorld& pw) { return from_json(stats_json(pw.get().last_stats())); },
                             "the last step's stats (as step() returned them)")
      .def("final_state", [](PyWorld& pw) { return from_json(final_state_json(pw.get())); },
           "The current state as `coulomb run` writes final_state.json (a dict).")
      .def("__repr__", [](PyWorld& pw) {
        const World& w = pw.get();
        return "<coulomb.World '" + w.scene().name + "': " + std::to_string(w.body_count()) + " bodies, " +
               std::to_string(w.soft_body_count()) + " soft bodies, step " + std::to_string(w.step_count()) + "/" +
               std::to_string(w.total_steps()) + ">";
      });
  bind_control(cls);
}

}  // namespace coulomb::python
