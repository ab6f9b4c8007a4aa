// Sleeping islands in the World (scene `sleep`, solvers/sleep.h): the World decides who sleeps;
// the stages see StepBuffers::still (fixed or sleeping) where a world without sleep has the fixed flags.
//
// Per step (velocity-level stage list, world.cpp): detect the pairs with at least one awake
// moving body (the still ones are static to the broadphase) -> settle: contacts and joints that
// reach a sleeping island from an awake body wake it, and detection runs again for the woken
// bodies -> predict, solve and integrate with the still bodies held -> fall_asleep: timers,
// and islands that fall asleep.
#include "step_context.h"

#include <coulomb/detect.h>
#include <coulomb/error.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace coulomb {

namespace {

int detect_once(StepContext& c, std::vector<Contact>& out, std::vector<std::pair<int, int>>* pairs_out,
                std::vector<double>* reach) {
  const int pairs = detect_contacts(detect_input(c), out, pairs_out, reach).pairs;
  drop_jointed_contacts(c.model, out);
  return pairs;
}

// Wakes the islands the contacts and joints reach from an awake body and drops the contacts
// between two still bodies. Returns the number of bodies woken.
int settle(StepContext& c, std::vector<Contact>& contacts) {
  if (!c.scene.sleep.enabled) return 0;
  const RigidModel& model = c.model.rigid;
  std::vector<std::uint8_t>& still = c.buf.still;
  int woken = 0;
  if (c.sleep.sleeping_count() > 0) {
    std::vector<int> a(contacts.size()), b(contacts.size()), ja, jb;
    for (std::size_t k = 0; k < contacts.size(); ++k) a[k] = contacts[k].body_a, b[k] = contacts[k].body_b;
    for (const JointConstraint& j : c.model.joints) ja.push_back(j.a), jb.push_back(j.b);
    woken = wake_touched(model.fixed, a, b, ja, jb, c.sleep);
  }
  still_bodies(model.fixed, c.sleep, still);
  // detection skips pairs of two still bodies (detect_input); none are left after the wake
  std::erase_if(contacts, [&](const Contact& k) {
    return still[std::size_t(k.body_a)] && still[std::size_t(k.body_b)];
  });
  return woken;
}

}  // namespace

// Detection skips the pairs of two resting bodies, so a woken island's own contacts (and those
// with sleeping islands it touches) were not detected: detect again until nothing more wakes.
// Waking is rare; a step without it detects once.
int detect_settled(StepContext& c, std::vector<Contact>& out, std::vector<std::pair<int, int>>* pairs_out,
                   std::vector<double>* reach) {
  int pairs = detect_once(c, out, pairs_out, reach);
  while (settle(c, out) > 0) pairs = detect_once(c, out, pairs_out, reach);
  return pairs;
}

// The warm-start impulses of the contacts inside sleeping islands stay in the cache, so that a
// woken island starts from the impulses that held it (Box2D keeps a sleeping set's contacts).
void keep_resting_impulses(StepContext& c, std::vector<CachedContactImpulse>& old_cache) {
  if (!c.scene.sleep.enabled || c.sleep.sleeping_count() == 0) return;
  const std::vector<std::uint8_t>& still = c.buf.still;
  std::erase_if(old_cache, [&](const CachedContactImpulse& k) {
    return !(still[std::size_t(k.a)] && still[std::size_t(k.b)]);
  });
  if (old_cache.empty()) return;
  std::vector<CachedContactImpulse>& cache = c.cache.contacts;
  std::vector<CachedContactImpulse> merged;
  merged.reserve(cache.size() + old_cache.size());
  std::merge(cache.begin(), cache.end(), old_cache.begin(), old_cache.end(), std::back_inserter(merged),
             [](const CachedContactImpulse& x, const CachedContactImpulse& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  cache.swap(merged);
}

void fall_asleep(StepContext& c) {
  if (!c.scene.sleep.enabled) return;
  const RigidModel& model = c.model.rigid;
  // a body under a load (or an effort actuator) keeps its island awake: on a held body it would not act
  for (std::size_t i = 0; i < c.buf.load.size(); ++i)
    if (!c.buf.load[i].isZero()) c.sleep.timer[i] = 0.0;
  still_bodies(model.fixed, c.sleep, c.buf.still);
  update_sleep(c.buf.still, c.model.bound_radius, c.buf.islands, c.scene.sleep, c.scene.dt, c.state, c.sleep);
  still_bodies(model.fixed, c.sleep, c.buf.still);
}

bool World::sleeping(int id) const {
  check_id("body", "body", id, model_.rigid.size());
  return sleep_.asleep(id);
}

int World::sleeping_count() const { return sleep_.sleeping_count(); }

int World::wake(int id) {
  check_id("body", "body", id, model_.rigid.size());
  const int woken = wake_island(id, sleep_);
  if (woken > 0) still_bodies(model_.rigid.fixed, sleep_, buf_.still);
  return woken;
}

// set_state's part: check the State's sleep arrays (throws InputError, changing nothing).
void World::check_sleep_state(const State& s) const {
  const std::size_t nb = std::size_t(model_.rigid.size());
  const SleepState& z = s.sleep;
  if (z.timer.empty() && z.island.empty()) return;
  if (z.timer.size() != nb || z.island.size() != nb)
    throw InputError("State", "sleep has " + std::to_string(z.timer.size()) + " timers and " +
                                  std::to_string(z.island.size()) + " islands, this world has " + std::to_string(nb) +
                                  " bodies (a State from another world?)");
  for (std::size_t i = 0; i < nb; ++i) {
    const std::string what = "sleep entry " + std::to_string(i) + " ('" + model_.rigid.name[i] + "')";
    if (!std::isfinite(z.timer[i]) || z.timer[i] < 0.0)
      throw InputError("State", what + ": the timer must be finite and >= 0");
    const int id = z.island[i];
    if (id < -1 || id >= int(nb) || (id >= 0 && (model_.rigid.fixed[i] || z.island[std::size_t(id)] != id)))
      throw InputError("State", what + ": island " + std::to_string(id) +
                                    " is not -1 (awake) or a sleeping moving body's own island");
  }
}

// set_state's part: restore the sleep arrays. A user who moves a sleeping body or gives it a
// velocity (a State of the current step with other values, as the Python bindings' writes make)
// wakes its island; a State from another step is restored as it is (bit-exact replays).
void World::restore_sleep(const State& s) {
  SleepState next = s.sleep;
  if (!scene_.sleep.enabled) next = SleepState{};
  if (scene_.sleep.enabled && next.island.empty()) next.resize(model_.rigid.size());
  if (scene_.sleep.enabled) {
    for (int i = 0; i < model_.rigid.size(); ++i) {
      if (!next.asleep(i)) continue;
      const auto k = std::size_t(i);
      const bool moving = !s.rigid.v[k].isZero(0.0) || !s.rigid.w[k].isZero(0.0);
      const bool moved = s.step == step_ && i < int(state_.x.size()) &&
                         (s.rigid.x[k] != state_.x[k] || s.rigid.q[k].coeffs() != state_.q[k].coeffs());
      if (moving || moved) wake_island(i, next);
    }
  }
  sleep_ = std::move(next);
  still_bodies(model_.rigid.fixed, sleep_, buf_.still);
}

}  // namespace coulomb
