// Sleeping islands in the World (scene `sleep`, solvers/sleep.h): the World decides who sleeps;
// the stages only see `still_` (fixed or sleeping) where they used to see the fixed flags.
//
// Per step (velocity-level stage list, world.cpp): detect the pairs with at least one awake
// moving body (the still ones are static to the broadphase) -> settle(): contacts and joints that
// reach a sleeping island from an awake body wake it, and detection runs again for the woken
// bodies -> predict, solve and integrate with the still bodies held -> fall_asleep(): timers,
// and islands that fall asleep.
#include <coulomb/error.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace coulomb {

const std::vector<std::uint8_t>* World::still() const { return scene_.sleep.enabled ? &still_ : nullptr; }

// Returns the number of bodies woken.
int World::settle(std::vector<Contact>& contacts) {
  if (!scene_.sleep.enabled) return 0;
  int woken = 0;
  if (sleep_.sleeping_count() > 0) {
    std::vector<int> a(contacts.size()), b(contacts.size()), ja, jb;
    for (std::size_t k = 0; k < contacts.size(); ++k) a[k] = contacts[k].body_a, b[k] = contacts[k].body_b;
    for (const JointConstraint& j : joints_) ja.push_back(j.a), jb.push_back(j.b);
    woken = wake_touched(model_.fixed, a, b, ja, jb, sleep_);
  }
  still_bodies(model_.fixed, sleep_, still_);
  // detection skips pairs of two still bodies (detect_input); none are left after the wake
  std::erase_if(contacts, [&](const Contact& c) {
    return still_[std::size_t(c.body_a)] && still_[std::size_t(c.body_b)];
  });
  return woken;
}

// Detection skips the pairs of two resting bodies, so a woken island's own contacts (and those
// with sleeping islands it touches) were not detected: detect again until nothing more wakes.
// Waking is rare; a step without it detects once.
int World::detect_settled(std::vector<Contact>& out, std::vector<std::pair<int, int>>* pairs_out,
                          std::vector<double>* reach) {
  int pairs = detect(out, pairs_out, reach);
  while (settle(out) > 0) pairs = detect(out, pairs_out, reach);
  return pairs;
}

// The warm-start impulses of the contacts inside sleeping islands stay in the cache, so that a
// woken island starts from the impulses that held it (Box2D keeps a sleeping set's contacts).
void World::keep_resting_impulses(std::vector<CachedContactImpulse>& old_cache) {
  if (!scene_.sleep.enabled || sleep_.sleeping_count() == 0) return;
  std::erase_if(old_cache, [&](const CachedContactImpulse& c) {
    return !(still_[std::size_t(c.a)] && still_[std::size_t(c.b)]);
  });
  if (old_cache.empty()) return;
  std::vector<CachedContactImpulse> merged;
  merged.reserve(cache_.size() + old_cache.size());
  std::merge(cache_.begin(), cache_.end(), old_cache.begin(), old_cache.end(), std::back_inserter(merged),
             [](const CachedContactImpulse& x, const CachedContactImpulse& y) { return std::tie(x.a, x.b) < std::tie(y.a, y.b); });
  cache_.swap(merged);
}

void World::fall_asleep() {
  if (!scene_.sleep.enabled) return;
  // a body under a load (or an effort actuator) keeps its island awake: on a held body it would not act
  for (std::size_t i = 0; i < load_.size(); ++i)
    if (!load_[i].isZero()) sleep_.timer[i] = 0.0;
  still_bodies(model_.fixed, sleep_, still_);
  update_sleep(still_, bound_radius_, islands_, scene_.sleep, scene_.dt, state_, sleep_);
  still_bodies(model_.fixed, sleep_, still_);
}

bool World::sleeping(int id) const {
  check_id("body", "body", id, model_.size());
  return sleep_.asleep(id);
}

int World::sleeping_count() const { return sleep_.sleeping_count(); }

int World::wake(int id) {
  check_id("body", "body", id, model_.size());
  const int woken = wake_island(id, sleep_);
  if (woken > 0) still_bodies(model_.fixed, sleep_, still_);
  return woken;
}

// set_state's part: check the State's sleep arrays (throws InputError, changing nothing).
void World::check_sleep_state(const State& s) const {
  const std::size_t nb = std::size_t(model_.size());
  const SleepState& z = s.sleep;
  if (z.timer.empty() && z.island.empty()) return;
  if (z.timer.size() != nb || z.island.size() != nb)
    throw InputError("State", "sleep has " + std::to_string(z.timer.size()) + " timers and " +
                                  std::to_string(z.island.size()) + " islands, this world has " + std::to_string(nb) +
                                  " bodies (a State from another world?)");
  for (std::size_t i = 0; i < nb; ++i) {
    const std::string what = "sleep entry " + std::to_string(i) + " ('" + model_.name[i] + "')";
    if (!std::isfinite(z.timer[i]) || z.timer[i] < 0.0)
      throw InputError("State", what + ": the timer must be finite and >= 0");
    const int id = z.island[i];
    if (id < -1 || id >= int(nb) || (id >= 0 && (model_.fixed[i] || z.island[std::size_t(id)] != id)))
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
  if (scene_.sleep.enabled && next.island.empty()) next.resize(model_.size());
  if (scene_.sleep.enabled) {
    for (int i = 0; i < model_.size(); ++i) {
      if (!next.asleep(i)) continue;
      const auto k = std::size_t(i);
      const bool moving = !s.rigid.v[k].isZero(0.0) || !s.rigid.w[k].isZero(0.0);
      const bool moved = s.step == step_ && i < int(state_.x.size()) &&
                         (s.rigid.x[k] != state_.x[k] || s.rigid.q[k].coeffs() != state_.q[k].coeffs());
      if (moving || moved) wake_island(i, next);
    }
  }
  sleep_ = std::move(next);
  still_bodies(model_.fixed, sleep_, still_);
}

}  // namespace coulomb
