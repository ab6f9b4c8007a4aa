// The World's State (coulomb/state.h): copying it out, restoring it, and the checked handles.
//
// The World keeps its state where the stages read it: state_ (rigid x, q, v, w), the soft
// bodies' x and v (inside SoftBody, beside their rest meshes), cache_.contacts, cache_.joints and cache_.rows
// (warm starts), sleep_ (world_sleep.cpp), step_ and time_. state() gathers copies of exactly these and set_state() writes them back;
// everything else a step touches is either model (never written during a run) or scratch that
// the step rebuilds before reading it (contacts, problems, islands, solver buffers). A member
// that carries information from one step to the next must be added to State and here.
#include <coulomb/error.h>
#include <coulomb/world.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>

namespace coulomb {

namespace {

std::string size_mismatch(const std::string& what, std::size_t got, std::size_t expected) {
  return what + " has " + std::to_string(got) + " entries, this world has " + std::to_string(expected) +
         " (a State from another world?)";
}

}  // namespace

void World::check_id(const char* accessor, const char* what, int id, int count, const char* call) {
  if (id >= 0 && id < count) return;
  std::string msg = std::string("World::") + (call ? call : accessor) + ": " + what + " id " + std::to_string(id) + " is out of range (";
  msg += count == 0 ? std::string("the world has none") : "valid ids are 0.." + std::to_string(count - 1);
  if (id == -1) msg += std::string("; -1 is what find_") + accessor + " returns for a name it does not know";
  throw std::out_of_range(msg + ")");
}

const SoftBody& World::soft_body(int i) const {
  check_id("soft_body", "soft body", i, soft_body_count());
  return soft_[std::size_t(i)];
}

State World::state() const {
  State s;
  s.rigid = state_;
  s.soft.resize(soft_.size());
  for (std::size_t i = 0; i < soft_.size(); ++i) s.soft[i] = {soft_[i].x, soft_[i].v};
  s.contact_cache = cache_.contacts;
  s.joint_cache = cache_.joints;
  s.row_cache = cache_.rows;
  s.sleep = sleep_;
  s.joint_angle.resize(model_.joints.size());
  for (std::size_t j = 0; j < model_.joints.size(); ++j) s.joint_angle[j] = model_.joints[j].angle_ref;
  s.control = control_;
  s.step = step_;
  s.time = time_;
  return s;
}

void World::set_state(const State& s) {
  // check everything first, so that a rejected State changes nothing
  const std::size_t nb = std::size_t(model_.rigid.size());
  const auto check_size = [](const std::string& what, std::size_t got, std::size_t expected) {
    if (got != expected) throw InputError("State", size_mismatch(what, got, expected));
  };
  check_size("rigid.x", s.rigid.x.size(), nb);
  check_size("rigid.q", s.rigid.q.size(), nb);
  check_size("rigid.v", s.rigid.v.size(), nb);
  check_size("rigid.w", s.rigid.w.size(), nb);
  check_size("soft", s.soft.size(), soft_.size());
  for (std::size_t i = 0; i < soft_.size(); ++i) {
    const std::string name = "soft[" + std::to_string(i) + "] ('" + soft_[i].name + "')";
    check_size(name + ".x", s.soft[i].x.size(), soft_[i].x.size());
    check_size(name + ".v", s.soft[i].v.size(), soft_[i].v.size());
  }
  for (std::size_t k = 0; k < s.contact_cache.size(); ++k) {
    const CachedContactImpulse& c = s.contact_cache[k];
    if (c.a < 0 || std::size_t(c.a) >= nb || c.b < 0 || std::size_t(c.b) >= nb)
      throw InputError("State", "contact_cache[" + std::to_string(k) + "] refers to bodies " + std::to_string(c.a) +
                                    " and " + std::to_string(c.b) + ", this world has " + std::to_string(nb));
    // warm_start walks the entries in body-pair order
    if (k > 0 && std::tie(c.a, c.b) < std::tie(s.contact_cache[k - 1].a, s.contact_cache[k - 1].b))
      throw InputError("State", "contact_cache is not sorted by body pair at entry " + std::to_string(k));
  }
  if (model_.joints.empty() && !s.joint_cache.empty())
    throw InputError("State", "joint_cache has " + std::to_string(s.joint_cache.size()) +
                                  " entries, this world has no joints (a State from another world?)");
  for (double r : s.row_cache)
    if (!std::isfinite(r)) throw InputError("State", "row_cache holds a NaN or infinite impulse");
  if (s.step < 0 || !std::isfinite(s.time))
    throw InputError("State", "step must be >= 0 and time finite (got step " + std::to_string(s.step) + ")");
  check_sleep_state(s);
  if (!s.joint_angle.empty()) {
    if (s.joint_angle.size() != model_.joints.size())
      throw InputError("State", size_mismatch("joint_angle", s.joint_angle.size(), model_.joints.size()));
    for (double a : s.joint_angle)
      if (!std::isfinite(a)) throw InputError("State", "joint_angle holds a NaN or infinite angle");
  }
  check_control(s.control);

  restore_sleep(s);  // before state_ changes: it compares the sleeping bodies' poses with it
  state_ = s.rigid;
  for (std::size_t i = 0; i < soft_.size(); ++i) {
    soft_[i].x = s.soft[i].x;
    soft_[i].v = s.soft[i].v;
  }
  cache_.contacts = s.contact_cache;
  cache_.joints = s.joint_cache;
  cache_.rows = s.row_cache;
  for (std::size_t j = 0; j < model_.joints.size(); ++j) model_.joints[j].angle_ref = s.joint_angle.empty() ? model_.joints[j].reference : s.joint_angle[j];
  if (s.control.empty()) {  // a State without control: no loads, the scene's commands
    init_control();
  } else {
    control_ = s.control;
  }
  step_ = s.step;
  time_ = s.time;

  // the last step's outputs belong to another history; a failed step no longer applies
  failure_ = StepResult{};
  stats_ = StepStats{};
  energy_ref_ = {};  // the health check's energy reference starts again from this state
  buf_.contacts.clear();
  buf_.solution = ContactSolution{};
  buf_.problem = ContactProblem{};
  buf_.islands = Islands{};
  buf_.soft_contacts.clear();
  buf_.pproblem = PositionProblem{};
  std::fill(actuator_effort_.begin(), actuator_effort_.end(), 0.0);
  observe_joints(false);
  records_valid_ = false;
}

}  // namespace coulomb
