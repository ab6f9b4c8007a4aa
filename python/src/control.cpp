// coulomb.World's control and sensing (python/README.md "Driving a World"): loads, kinematic
// bodies and actuator commands going in, joint states, actuator efforts and the step's contacts
// coming out, vectorised over numpy arrays. Bodies, soft bodies, joints and actuators are named
// by id or by name, one or a sequence; loops over them run here, not in Python.
#include "py_world.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "arrays.h"

namespace py = pybind11;

namespace coulomb::python {

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// the ids of `ids` (an int, a str, or a sequence of them) among `names` (KeyError for an unknown
// name, IndexError for an id out of range)
std::vector<int> ids_of(py::handle ids, const std::vector<std::string>& names, const char* what) {
  const auto one = [&](py::handle h) {
    if (py::isinstance<py::str>(h)) {
      const std::string name = h.cast<std::string>();
      const auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) throw py::key_error(std::string("no ") + what + " named '" + name + "'");
      return int(it - names.begin());
    }
    if (!py::isinstance<py::int_>(h) && !py::hasattr(h, "__index__"))
      throw py::type_error(std::string("expected a ") + what + " id (int) or name (str), got " +
                           std::string(py::str(h.get_type().attr("__name__"))));
    const long long id = py::int_(h.cast<py::object>()).cast<long long>();
    if (id < 0 || id >= (long long)names.size())
      throw py::index_error(std::string(what) + " id " + std::to_string(id) + " is out of range (" +
                            (names.empty() ? std::string("there is none") : "valid: 0.." + std::to_string(names.size() - 1)) + ")");
    return int(id);
  };
  std::vector<int> out;
  if (py::isinstance<py::str>(ids) || py::isinstance<py::int_>(ids) || py::hasattr(ids, "__index__")) {
    out.push_back(one(ids));
    return out;
  }
  for (py::handle h : py::iter(ids)) out.push_back(one(h));
  return out;
}

std::vector<std::string> body_names(const World& w) { return w.model().name; }
std::vector<std::string> joint_names(const World& w) {
  std::vector<std::string> out;
  for (const JointDef& j : w.scene().joints) out.push_back(j.name);
  return out;
}
std::vector<std::string> actuator_names(const World& w) {
  std::vector<std::string> out;
  for (const ActuatorDef& a : w.scene().actuators) out.push_back(a.name);
  return out;
}

LoadDuration duration(bool persistent) { return persistent ? LoadDuration::Persistent : LoadDuration::NextStep; }

// Applies `apply(id, row, point_row)` to each body of `bodies` with its row of `values` (n, 3)
// and of `points` (n, 3) or none; everything is checked before the first load is applied.
template <class F>
void for_bodies(World& w, py::handle bodies, py::handle values, const char* arg, py::handle points, F&& apply) {
  const std::vector<int> ids = ids_of(bodies, body_names(w), "body");
  const std::vector<double> v = rows_of(values, ids.size(), 3, arg);
  const bool has_points = !points.is_none();
  const std::vector<double> p = has_points ? rows_of(points, ids.size(), 3, "point") : std::vector<double>();
  for (int id : ids)
    if (w.model().fixed[std::size_t(id)])
      throw py::value_error(std::string(arg) + ": body '" + w.model().name[std::size_t(id)] + "' is " +
                            (w.model().kinematic[std::size_t(id)] ? "kinematic" : "fixed") + ": no load can move it");
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Vec3 value(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    const Vec3* point = nullptr;
    Vec3 pt;
    if (has_points) {
      pt = Vec3(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
      point = &pt;
    }
    apply(ids[i], value, point);
  }
}

int soft_id(const World& w, py::handle soft) {
  std::vector<std::string> names;
  for (int i = 0; i < w.soft_body_count(); ++i) names.push_back(w.soft_body(i).name);
  const std::vector<int> ids = ids_of(soft, names, "soft body");
  if (ids.size() != 1) throw py::value_error("expected one soft body");
  return ids.front();
}

// the vertices of `vertices` (an int or a sequence), checked against the soft body's count
std::vector<int> vertex_ids(const World& w, int soft, py::handle vertices) {
  std::vector<int> out;
  const int nv = w.soft_body(soft).vertex_count();
  const auto one = [&](py::handle h) {
    const long long v = py::int_(h.cast<py::object>()).cast<long long>();
    if (v < 0 || v >= nv)
      throw py::index_error("vertex " + std::to_string(v) + " of soft body '" + w.soft_body(soft).name +
                            "' is out of range (valid: 0.." + std::to_string(nv - 1) + ")");
    out.push_back(int(v));
  };
  if (py::isinstance<py::int_>(vertices) || py::hasattr(vertices, "__index__")) one(vertices);
  else
    for (py::handle h : py::iter(vertices)) one(h);
  return out;
}

// move_kinematic or set_kinematic_pose of one body, the orientation unchanged when not given
void kinematic_pose(World& w, py::handle body, py::handle position, py::handle orientation,
                    void (World::*set)(int, const Vec3&, const Quat&)) {
  const std::vector<int> ids = ids_of(body, body_names(w), "body");
  if (ids.size() != 1) throw py::value_error("expected one body");
  const std::vector<double> p = rows_of(position, 1, 3, "position");
  Quat q = w.body(ids[0]).orientation;
  if (!orientation.is_none()) {
    const std::vector<double> o = rows_of(orientation, 1, 4, "orientation");
    q = Quat(o[0], o[1], o[2], o[3]);
  }
  (w.*set)(ids[0], Vec3(p[0], p[1], p[2]), q);
}

py::array_t<double> joint_field(const World& w, int width, void (*get)(const JointState&, double*)) {
  const std::vector<JointState>& js = w.joint_states();
  py::array_t<double> a = width == 1 ? py::array_t<double>(py::ssize_t(js.size()))
                                     : py::array_t<double>({py::ssize_t(js.size()), py::ssize_t(width)});
  double* out = a.mutable_data();
  for (std::size_t j = 0; j < js.size(); ++j) get(js[j], out + j * std::size_t(width));
  return a;
}

}  // namespace

void bind_control(PyWorldClass& cls) {
  cls.def(
         "apply_force",
         [](PyWorld& pw, py::handle bodies, py::handle forces, py::handle points, bool persistent) {
           World& w = pw.get();
           for_bodies(w, bodies, forces, "force", points, [&](int id, const Vec3& f, const Vec3* p) {
             if (p) w.apply_force(id, f, *p, duration(persistent));
             else w.apply_force(id, f, duration(persistent));
           });
         },
         py::arg("bodies"), py::arg("forces"), py::arg("points") = py::none(), py::arg("persistent") = true,
         "Forces (N, world frame) on one body or many (ids or names): `forces` is (3,) or (n, 3); at the centre of "
         "mass, or at world `points`. persistent=True: every step until clear_loads(); False: the next step only.")
      .def(
          "apply_torque",
          [](PyWorld& pw, py::handle bodies, py::handle torques, bool persistent) {
            World& w = pw.get();
            for_bodies(w, bodies, torques, "torque", py::none(),
                       [&](int id, const Vec3& t, const Vec3*) { w.apply_torque(id, t, duration(persistent)); });
          },
          py::arg("bodies"), py::arg("torques"), py::arg("persistent") = true,
          "Torques (N m, world frame) on one body or many; (3,) or (n, 3).")
      .def(
          "apply_impulse",
          [](PyWorld& pw, py::handle bodies, py::handle impulses, py::handle points) {
            World& w = pw.get();
            for_bodies(w, bodies, impulses, "impulse", points, [&](int id, const Vec3& j, const Vec3* p) {
              w.apply_impulse(id, j, p ? *p : w.rigid_state().x[std::size_t(id)]);
            });
          },
          py::arg("bodies"), py::arg("impulses"), py::arg("points") = py::none(),
          "Impulses (N s, world frame) over the next step, at the centre of mass or at world `points`.")
      .def(
          "apply_vertex_force",
          [](PyWorld& pw, py::handle soft, py::handle vertices, py::handle forces, bool persistent) {
            World& w = pw.get();
            const int s = soft_id(w, soft);
            const std::vector<int> v = vertex_ids(w, s, vertices);
            const std::vector<double> f = rows_of(forces, v.size(), 3, "force");
            for (std::size_t i = 0; i < v.size(); ++i)
              if (!(w.soft_body(s).inv_mass[std::size_t(v[i])] > 0.0))
                throw py::value_error("force: vertex " + std::to_string(v[i]) + " of soft body '" + w.soft_body(s).name +
                                      "' is pinned: no load can move it");
            for (std::size_t i = 0; i < v.size(); ++i)
              w.apply_vertex_force(s, v[i], Vec3(f[3 * i], f[3 * i + 1], f[3 * i + 2]), duration(persistent));
          },
          py::arg("soft_body"), py::arg("vertices"), py::arg("forces"), py::arg("persistent") = true,
          "Forces (N) on vertices of a soft body (id or name); (3,) or (n, 3).")
      .def("clear_loads", [](PyWorld& pw) { pw.get().clear_loads(); }, "Removes every persistent and next-step load.")
      .def_property(
          "wrenches",
          [](PyWorld& pw) {
            const std::vector<Vec6>& w = pw.get().control().wrench;
            py::array_t<double> a({py::ssize_t(w.size()), py::ssize_t(6)});
            for (std::size_t i = 0; i < w.size(); ++i) std::copy(w[i].data(), w[i].data() + 6, a.mutable_data() + 6 * i);
            return a;
          },
          [](PyWorld& pw, py::handle a) {
            World& w = pw.get();
            const std::size_t nb = std::size_t(w.body_count());
            const std::vector<double> v = rows_of(a, nb, 6, "wrenches", /*broadcast*/ false);
            for (std::size_t i = 0; i < nb; ++i)
              if (w.model().fixed[i] && std::any_of(v.begin() + long(6 * i), v.begin() + long(6 * i + 6), [](double x) { return x != 0.0; }))
                throw py::value_error("wrenches: body " + std::to_string(i) + " ('" + w.model().name[i] +
                                      "') is fixed or kinematic: its row must stay zero");
            for (std::size_t i = 0; i < nb; ++i)
              if (!w.model().fixed[i])
                w.set_wrench(int(i), Vec3(v[6 * i], v[6 * i + 1], v[6 * i + 2]), Vec3(v[6 * i + 3], v[6 * i + 4], v[6 * i + 5]));
          },
          "(n, 6) persistent loads: force (N) then torque (N m) at each centre of mass, world frame; assigning "
          "replaces them all")
      .def_property_readonly(
          "kinematic",
          [](PyWorld& pw) {
            const std::vector<std::uint8_t>& k = pw.get().model().kinematic;
            py::array_t<bool> a(py::ssize_t(k.size()));
            for (std::size_t i = 0; i < k.size(); ++i) a.mutable_data()[i] = k[i] != 0;
            return a;
          },
          "(n,) bool: which bodies are kinematic")
      .def(
          "set_kinematic_velocity",
          [](PyWorld& pw, py::handle body, py::handle v, py::handle omega) {
            World& w = pw.get();
            const std::vector<int> ids = ids_of(body, body_names(w), "body");
            const std::vector<double> lv = rows_of(v, ids.size(), 3, "velocity");
            const std::vector<double> av = omega.is_none() ? std::vector<double>(3 * ids.size(), 0.0)
                                                           : rows_of(omega, ids.size(), 3, "angular_velocity");
            for (std::size_t i = 0; i < ids.size(); ++i)
              w.set_kinematic_velocity(ids[i], Vec3(lv[3 * i], lv[3 * i + 1], lv[3 * i + 2]),
                                       Vec3(av[3 * i], av[3 * i + 1], av[3 * i + 2]));
          },
          py::arg("bodies"), py::arg("velocity"), py::arg("angular_velocity") = py::none(),
          "The velocity (m/s, of the shape frame's origin) and angular velocity (rad/s) of kinematic bodies; they "
          "keep moving with them.")
      .def(
          "move_kinematic",
          [](PyWorld& pw, py::handle body, py::handle position, py::handle orientation) {
            kinematic_pose(pw.get(), body, position, orientation, &World::move_kinematic);
          },
          py::arg("body"), py::arg("position"), py::arg("orientation") = py::none(),
          "Sets a kinematic body's velocities so that its shape frame reaches `position` (and `orientation`, "
          "[w, x, y, z]; default: unchanged) at the end of the next step.")
      .def(
          "set_kinematic_pose",
          [](PyWorld& pw, py::handle body, py::handle position, py::handle orientation) {
            kinematic_pose(pw.get(), body, position, orientation, &World::set_kinematic_pose);
          },
          py::arg("body"), py::arg("position"), py::arg("orientation") = py::none(),
          "Puts a kinematic body's shape frame at a pose now, keeping its velocities (a conveyor: a belt with a "
          "velocity, put back every step).")
      .def_property_readonly("actuator_names", [](PyWorld& pw) { return actuator_names(pw.get()); })
      .def_property_readonly("joint_names", [](PyWorld& pw) { return joint_names(pw.get()); })
      .def_property(
          "commands",
          [](PyWorld& pw) {
            const std::vector<double>& c = pw.get().commands();
            return py::array_t<double>(py::ssize_t(c.size()), c.data());
          },
          [](PyWorld& pw, py::handle a) {
            World& w = pw.get();
            const std::vector<double> c = rows_of(a, std::size_t(w.actuator_count()), 1, "commands", false);
            for (int i = 0; i < w.actuator_count(); ++i) w.set_command(i, c[std::size_t(i)]);
          },
          "(na,) actuator commands (effort N m or N, velocity rad/s or m/s, position rad or m); assigning sets them "
          "all for the coming steps")
      .def(
          "set_command",
          [](PyWorld& pw, py::handle actuators, py::handle values) {
            World& w = pw.get();
            const std::vector<int> ids = ids_of(actuators, actuator_names(w), "actuator");
            const std::vector<double> v = rows_of(values, ids.size(), 1, "command");
            for (std::size_t i = 0; i < ids.size(); ++i) w.set_command(ids[i], v[i]);
          },
          py::arg("actuators"), py::arg("values"), "Commands of one actuator or many (ids or names).")
      .def_property_readonly(
          "actuator_efforts",
          [](PyWorld& pw) {
            const std::vector<double>& e = pw.get().actuator_efforts();
            return py::array_t<double>(py::ssize_t(e.size()), e.data());
          },
          "(na,) the effort each actuator applied in the last step (N m or N)")
      .def_property_readonly(
          "joint_positions",
          [](PyWorld& pw) { return joint_field(pw.get(), 1, [](const JointState& j, double* o) { *o = j.position; }); },
          "(nj,) hinge angles (rad, multi-turn) and prismatic slides (m); 0 for other joints")
      .def_property_readonly(
          "joint_velocities",
          [](PyWorld& pw) { return joint_field(pw.get(), 1, [](const JointState& j, double* o) { *o = j.velocity; }); },
          "(nj,) their rates (rad/s, m/s)")
      .def_property_readonly(
          "joint_rotations",
          [](PyWorld& pw) {
            return joint_field(pw.get(), 4, [](const JointState& j, double* o) {
              o[0] = j.rotation.w();
              o[1] = j.rotation.x();
              o[2] = j.rotation.y();
              o[3] = j.rotation.z();
            });
          },
          "(nj, 4) body a's rotation relative to b since load time, [w, x, y, z] in b's frame (ball joints' state)")
      .def_property_readonly(
          "joint_angular_velocities",
          [](PyWorld& pw) {
            return joint_field(pw.get(), 3, [](const JointState& j, double* o) { std::copy(j.angular_velocity.data(), j.angular_velocity.data() + 3, o); });
          },
          "(nj, 3) a's angular velocity relative to b, world frame (rad/s)")
      .def_property_readonly(
          "joint_forces",
          [](PyWorld& pw) {
            return joint_field(pw.get(), 3, [](const JointState& j, double* o) { std::copy(j.force.data(), j.force.data() + 3, o); });
          },
          "(nj, 3) each joint's reaction force on body a in the last step (N, world frame; drives excluded)")
      .def_property_readonly(
          "joint_torques",
          [](PyWorld& pw) {
            return joint_field(pw.get(), 3, [](const JointState& j, double* o) { std::copy(j.torque.data(), j.torque.data() + 3, o); });
          },
          "(nj, 3) its reaction torque on body a about the joint's anchor (N m, world frame)")
      .def(
          "contacts", [](PyWorld& pw) { return contact_array(pw.get().contact_records()); },
          "The last step's contacts as a structured array: body_a, body_b (rigid ids, -1 on a soft side), soft_a, "
          "soft_b (soft body ids, -1 on a rigid side), vertices_a, vertices_b (a soft side's feature), point (m), "
          "normal (a to b), separation (m, < 0 overlapping), normal_impulse (N s), friction_impulse (N s, world)");
}

}  // namespace coulomb::python
