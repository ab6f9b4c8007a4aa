// coulomb.Batch (python/README.md "Batches"): N independent copies of a scene stepped together
// with the GIL released, their commands, loads and observations as (N, ...) numpy arrays.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <coulomb/batch.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>

#include "arrays.h"
#include "py_world.h"
#include "scenes.h"

namespace py = pybind11;

namespace coulomb::python {

namespace {

struct PyBatch {
  std::unique_ptr<WorldBatch> batch;
  std::atomic<bool> busy{false};
  WorldBatch& get() {
    if (busy.load()) throw std::runtime_error("this Batch is stepping in another thread");
    return *batch;
  }
};

// an (N, ...) array filled by `fill(world, out)` with `per_world` doubles per world
template <class F>
py::array_t<double> gather(PyBatch& pb, std::vector<py::ssize_t> inner, F&& fill) {
  WorldBatch& b = pb.get();
  std::vector<py::ssize_t> shape{py::ssize_t(b.size())};
  py::ssize_t per = 1;
  for (py::ssize_t d : inner) {
    shape.push_back(d);
    per *= d;
  }
  py::array_t<double> a(shape);
  double* out = a.mutable_data();
  for (int i = 0; i < b.size(); ++i) fill(b.world(i), out + std::size_t(i) * std::size_t(per));
  return a;
}

std::vector<int> world_ids(const WorldBatch& b, py::handle worlds) {
  std::vector<int> out;
  if (worlds.is_none()) {
    for (int i = 0; i < b.size(); ++i) out.push_back(i);
    return out;
  }
  const auto one = [&](py::handle h) {
    if (py::isinstance<py::bool_>(h)) throw py::type_error("reset: expected world indices, not booleans (use numpy.flatnonzero(mask))");
    const long long i = py::int_(h.cast<py::object>()).cast<long long>();
    if (i < 0 || i >= b.size())
      throw py::index_error("world " + std::to_string(i) + " is out of range (valid: 0.." + std::to_string(b.size() - 1) + ")");
    out.push_back(int(i));
  };
  if (py::isinstance<py::int_>(worlds) || py::hasattr(worlds, "__index__")) one(worlds);
  else
    for (py::handle h : py::iter(worlds)) one(h);
  return out;
}

void set_commands(WorldBatch& b, py::handle a) {
  const std::size_t na = std::size_t(b.world(0).actuator_count());
  const std::vector<double> c = rows_of(a, std::size_t(b.size()), int(na), "commands", false);
  for (int i = 0; i < b.size(); ++i)
    for (std::size_t k = 0; k < na; ++k) b.world(i).set_command(int(k), c[std::size_t(i) * na + k]);
}

template <class Get>
void bodies_field(const World& w, double* out, int width, Get&& get) {
  const RigidModel& m = w.model();
  const RigidState& s = w.rigid_state();
  for (int k = 0; k < m.size(); ++k) get(m, s, k, out + std::size_t(k) * std::size_t(width));
}

}  // namespace

void bind_batch(py::module_& m) {
  py::class_<PyBatch>(m, "Batch",
                      "N independent copies of a scene, stepped together: Batch(scene, count, threads=1, solver=None, "
                      "overrides=None, steps=None, dt=None, max_speed=1e3, health=\"stop\", islands=True, base_dir=None). Each world "
                      "runs on one thread, so world i computes bit for bit what a separate World computes, on any "
                      "thread count.")
      .def(py::init([](py::handle scene, int count, int threads, py::handle solver, py::handle overrides, py::handle steps,
                       py::handle dt, double max_speed, const std::string& health, bool islands, py::handle base_dir) {
             if (!(max_speed > 0.0)) throw InputError("max_speed", "must be positive");
             SceneDef def = make_scene(scene, make_overrides(solver, overrides, steps, dt), base_dir);
             WorldSettings settings;
             settings.max_speed = max_speed;
             settings.health.action = health_action(health);
             settings.islands = islands;
             auto pb = std::make_unique<PyBatch>();
             py::gil_scoped_release unlocked;
             pb->batch = std::make_unique<WorldBatch>(def, count, threads, settings);
             return pb;
           }),
           py::arg("scene"), py::arg("count"), py::kw_only(), py::arg("threads") = 1, py::arg("solver") = py::none(),
           py::arg("overrides") = py::none(), py::arg("steps") = py::none(), py::arg("dt") = py::none(),
           py::arg("max_speed") = 1e3, py::arg("health") = "stop", py::arg("islands") = true, py::arg("base_dir") = py::none())
      .def("__len__", [](PyBatch& pb) { return pb.get().size(); })
      .def_property_readonly("threads", [](PyBatch& pb) { return pb.get().threads(); })
      .def(
          "step",
          [](PyBatch& pb, py::handle commands) {
            WorldBatch& b = pb.get();
            if (!commands.is_none()) set_commands(b, commands);
            {
              pb.busy.store(true);
              struct Clear {
                PyBatch& p;
                ~Clear() { p.busy.store(false); }
              } clear{pb};
              py::gil_scoped_release unlocked;
              b.step();
            }
            const std::vector<StepResult>& r = b.last_results();
            py::array_t<bool> ok(py::ssize_t(r.size()));
            for (std::size_t i = 0; i < r.size(); ++i) ok.mutable_data()[i] = r[i].ok();
            return ok;
          },
          py::arg("commands") = py::none(),
          "One step of every world (commands, when given: (N, na), set first). Returns (N,) bool: which worlds "
          "stepped; a failed world stops until reset (its message in .errors).")
      .def_property_readonly("errors",
                             [](PyBatch& pb) {
                               py::list out;
                               for (const StepResult& r : pb.get().last_results())
                                 out.append(r.ok() ? py::object(py::none()) : py::object(py::str(r.message)));
                               return out;
                             },
                             "per world: the last step's error message, or None")
      .def(
          "reset",
          [](PyBatch& pb, py::handle worlds, py::handle state) {
            WorldBatch& b = pb.get();
            const std::vector<int> ids = world_ids(b, worlds);
            if (state.is_none()) b.reset(ids);
            else b.reset(ids, state.cast<const State&>());
          },
          py::arg("worlds") = py::none(), py::arg("state") = py::none(),
          "Restores worlds (indices; default all) to the start, or to `state` (a coulomb.State of this scene).")
      .def("state", [](PyBatch& pb, int i) { return pb.get().world(i).state(); }, py::arg("world"))
      .def("set_state", [](PyBatch& pb, int i, const State& s) { pb.get().world(i).set_state(s); }, py::arg("world"),
           py::arg("state"))
      .def_property(
          "commands",
          [](PyBatch& pb) {
            const int na = pb.get().world(0).actuator_count();
            return gather(pb, {na}, [](const World& w, double* o) { std::copy(w.commands().begin(), w.commands().end(), o); });
          },
          [](PyBatch& pb, py::handle a) { set_commands(pb.get(), a); }, "(N, na) actuator commands")
      .def_property(
          "wrenches",
          [](PyBatch& pb) {
            const int nb = pb.get().world(0).body_count();
            return gather(pb, {nb, 6}, [](const World& w, double* o) {
              for (const Vec6& x : w.control().wrench) o = std::copy(x.data(), x.data() + 6, o);
            });
          },
          [](PyBatch& pb, py::handle a) {
            WorldBatch& b = pb.get();
            const std::size_t nb = std::size_t(b.world(0).body_count()), n = std::size_t(b.size());
            const std::vector<double> v = rows_of(a, n * nb, 6, "wrenches", false);
            const RigidModel& model = b.world(0).model();
            for (std::size_t k = 0; k < n * nb; ++k)
              if (model.fixed[k % nb] && std::any_of(v.begin() + long(6 * k), v.begin() + long(6 * k + 6), [](double x) { return x != 0.0; }))
                throw py::value_error("wrenches: body " + std::to_string(k % nb) + " ('" + model.name[k % nb] +
                                      "') is fixed or kinematic: its rows must stay zero");
            for (std::size_t i = 0; i < n; ++i)
              for (std::size_t k = 0; k < nb; ++k) {
                if (model.fixed[k]) continue;
                const double* r = v.data() + 6 * (i * nb + k);
                b.world(int(i)).set_wrench(int(k), Vec3(r[0], r[1], r[2]), Vec3(r[3], r[4], r[5]));
              }
          },
          "(N, nb, 6) persistent loads: force (N) and torque (N m) at each centre of mass; assigning replaces them "
          "(an (N * nb, 6) array is read the same way)")
      .def_property_readonly("positions",
                             [](PyBatch& pb) {
                               const int nb = pb.get().world(0).body_count();
                               return gather(pb, {nb, 3}, [](const World& w, double* o) {
                                 bodies_field(w, o, 3, [](const RigidModel& m, const RigidState& s, int k, double* r) {
                                   const Vec3 p = shape_pose(m, s, k).p;
                                   std::copy(p.data(), p.data() + 3, r);
                                 });
                               });
                             },
                             "(N, nb, 3) shape-frame positions (m), as World.positions")
      .def_property_readonly("orientations",
                             [](PyBatch& pb) {
                               const int nb = pb.get().world(0).body_count();
                               return gather(pb, {nb, 4}, [](const World& w, double* o) {
                                 bodies_field(w, o, 4, [](const RigidModel& m, const RigidState& s, int k, double* r) {
                                   const Quat q = shape_pose(m, s, k).q;
                                   r[0] = q.w();
                                   r[1] = q.x();
                                   r[2] = q.y();
                                   r[3] = q.z();
                                 });
                               });
                             },
                             "(N, nb, 4) shape-frame orientations [w, x, y, z]")
      .def_property_readonly("velocities",
                             [](PyBatch& pb) {
                               const int nb = pb.get().world(0).body_count();
                               return gather(pb, {nb, 3}, [](const World& w, double* o) {
                                 bodies_field(w, o, 3, [](const RigidModel& m, const RigidState& s, int k, double* r) {
                                   const auto i = std::size_t(k);
                                   const Vec3 v = s.v[i] + s.w[i].cross(shape_pose(m, s, k).p - s.x[i]);
                                   std::copy(v.data(), v.data() + 3, r);
                                 });
                               });
                             },
                             "(N, nb, 3) velocities of the shape frames' origins (m/s)")
      .def_property_readonly("angular_velocities",
                             [](PyBatch& pb) {
                               const int nb = pb.get().world(0).body_count();
                               return gather(pb, {nb, 3}, [](const World& w, double* o) {
                                 for (const Vec3& x : w.rigid_state().w) o = std::copy(x.data(), x.data() + 3, o);
                               });
                             },
                             "(N, nb, 3) angular velocities (rad/s)")
      .def_property_readonly("joint_positions",
                             [](PyBatch& pb) {
                               return gather(pb, {pb.get().world(0).joint_count()}, [](const World& w, double* o) {
                                 for (const JointState& j : w.joint_states()) *o++ = j.position;
                               });
                             },
                             "(N, nj) hinge angles (rad) and slides (m)")
      .def_property_readonly("joint_velocities",
                             [](PyBatch& pb) {
                               return gather(pb, {pb.get().world(0).joint_count()}, [](const World& w, double* o) {
                                 for (const JointState& j : w.joint_states()) *o++ = j.velocity;
                               });
                             },
                             "(N, nj) their rates")
      .def_property_readonly("joint_forces",
                             [](PyBatch& pb) {
                               return gather(pb, {pb.get().world(0).joint_count(), 3}, [](const World& w, double* o) {
                                 for (const JointState& j : w.joint_states()) o = std::copy(j.force.data(), j.force.data() + 3, o);
                               });
                             },
                             "(N, nj, 3) reaction forces on body a (N)")
      .def_property_readonly("joint_torques",
                             [](PyBatch& pb) {
                               return gather(pb, {pb.get().world(0).joint_count(), 3}, [](const World& w, double* o) {
                                 for (const JointState& j : w.joint_states()) o = std::copy(j.torque.data(), j.torque.data() + 3, o);
                               });
                             },
                             "(N, nj, 3) reaction torques on body a about the anchor (N m)")
      .def_property_readonly("actuator_efforts",
                             [](PyBatch& pb) {
                               return gather(pb, {pb.get().world(0).actuator_count()}, [](const World& w, double* o) {
                                 std::copy(w.actuator_efforts().begin(), w.actuator_efforts().end(), o);
                               });
                             },
                             "(N, na) efforts applied in the last step")
      .def_property_readonly("step_counts",
                             [](PyBatch& pb) {
                               WorldBatch& b = pb.get();
                               py::array_t<int> a(py::ssize_t(b.size()));
                               for (int i = 0; i < b.size(); ++i) a.mutable_data()[i] = b.world(i).step_count();
                               return a;
                             })
      .def_property_readonly("dt", [](PyBatch& pb) { return pb.get().world(0).dt(); })
      .def_property_readonly("body_names", [](PyBatch& pb) { return pb.get().world(0).model().name; })
      .def_property_readonly("joint_names",
                             [](PyBatch& pb) {
                               std::vector<std::string> out;
                               for (const JointDef& j : pb.get().world(0).scene().joints) out.push_back(j.name);
                               return out;
                             })
      .def_property_readonly("actuator_names",
                             [](PyBatch& pb) {
                               std::vector<std::string> out;
                               for (const ActuatorDef& a : pb.get().world(0).scene().actuators) out.push_back(a.name);
                               return out;
                             })
      .def("__repr__", [](PyBatch& pb) {
        WorldBatch& b = pb.get();
        return "<coulomb.Batch '" + b.world(0).scene().name + "': " + std::to_string(b.size()) + " worlds, " +
               std::to_string(b.threads()) + " threads>";
      });
}

}  // namespace coulomb::python
