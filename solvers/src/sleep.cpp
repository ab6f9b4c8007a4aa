// Sleeping islands; see sleep.h. The components are those of build_islands (islands.cpp), so the
// partition and every decision depend on the body and contact order only, never on threads.
#include <coulomb/assert.h>
#include <coulomb/sleep.h>

#include <algorithm>
#include <limits>

namespace coulomb {

int SleepState::sleeping_count() const {
  return int(std::count_if(island.begin(), island.end(), [](int i) { return i >= 0; }));
}

void SleepState::resize(int nb) {
  timer.assign(std::size_t(nb), 0.0);
  island.assign(std::size_t(nb), -1);
}

void still_bodies(const std::vector<std::uint8_t>& fixed, const SleepState& s, std::vector<std::uint8_t>& still) {
  still = fixed;
  for (std::size_t i = 0; i < s.island.size(); ++i)
    if (s.island[i] >= 0) still[i] = 1;
}

int wake_island(int body, SleepState& s) {
  if (!s.asleep(body)) return 0;
  const int id = s.island[std::size_t(body)];
  int woken = 0;
  for (std::size_t i = 0; i < s.island.size(); ++i)
    if (s.island[i] == id) {
      s.island[i] = -1;
      s.timer[i] = 0.0;
      ++woken;
    }
  return woken;
}

int wake_touched(const std::vector<std::uint8_t>& fixed, const std::vector<int>& body_a, const std::vector<int>& body_b,
                 const std::vector<int>& joint_a, const std::vector<int>& joint_b, SleepState& s) {
  if (s.sleeping_count() == 0) return 0;
  const std::size_t nb = fixed.size();
  COULOMB_ASSERT(s.island.size() == nb && s.timer.size() == nb, "wake_touched: sleep state of the wrong size");
  // joints, then one "sleeps with" link from every sleeping body to its island's first body, so
  // that a component holds every sleeping island it touches in full
  std::vector<int> link_a(joint_a), link_b(joint_b);
  for (std::size_t i = 0; i < nb; ++i)
    if (s.island[i] >= 0 && s.island[i] != int(i)) {
      link_a.push_back(int(i));
      link_b.push_back(s.island[i]);
    }
  Islands components;
  build_islands(int(nb), fixed, body_a, body_b, components, &link_a, &link_b);
  int woken = 0;
  for (int c = 0; c < components.count(); ++c) {
    const auto first = components.bodies.begin() + components.body_start[std::size_t(c)];
    const auto last = components.bodies.begin() + components.body_start[std::size_t(c) + 1];
    const bool awake = std::any_of(first, last, [&](int b) { return !fixed[std::size_t(b)] && !s.asleep(b); });
    if (!awake) continue;
    for (auto it = first; it != last; ++it)
      if (s.asleep(*it)) {
        s.island[std::size_t(*it)] = -1;
        s.timer[std::size_t(*it)] = 0.0;
        ++woken;
      }
  }
  return woken;
}

int update_sleep(const std::vector<std::uint8_t>& still, const std::vector<double>& radius, const Islands& islands,
                 const SleepSettings& settings, double dt, RigidState& state, SleepState& s) {
  const std::size_t nb = still.size();
  COULOMB_ASSERT(s.island.size() == nb && s.timer.size() == nb && radius.size() == nb,
                 "update_sleep: sleep state or radii of the wrong size");
  for (std::size_t i = 0; i < nb; ++i) {
    if (still[i]) continue;
    const double w = state.w[i].norm();
    const bool slow = state.v[i].norm() + radius[i] * w < settings.linear && w < settings.angular;
    s.timer[i] = slow ? s.timer[i] + dt : 0.0;
  }
  // a sum of n dt's may fall an ulp short of n dt
  const double due = settings.time - 1e-9 * dt;
  int fell = 0;
  const auto sleep = [&](int body, int id) {
    s.island[std::size_t(body)] = id;
    state.v[std::size_t(body)].setZero();
    state.w[std::size_t(body)].setZero();
    ++fell;
  };
  for (int c = 0; c < islands.count(); ++c) {
    const auto first = islands.bodies.begin() + islands.body_start[std::size_t(c)];
    const auto last = islands.bodies.begin() + islands.body_start[std::size_t(c) + 1];
    double slowest = std::numeric_limits<double>::infinity();
    int id = -1;  // the island's smallest moving body (bodies are ascending)
    for (auto it = first; it != last; ++it)
      if (!still[std::size_t(*it)]) {
        slowest = std::min(slowest, s.timer[std::size_t(*it)]);
        if (id < 0) id = *it;
      }
    if (id < 0 || !(slowest >= due)) continue;
    for (auto it = first; it != last; ++it)
      if (!still[std::size_t(*it)]) sleep(*it, id);
  }
  // awake bodies that no contact or joint joins to another: islands of one
  const bool listed = islands.body_island.size() == nb;
  for (std::size_t i = 0; i < nb; ++i)
    if (!still[i] && s.island[i] < 0 && (!listed || islands.body_island[i] < 0) && s.timer[i] >= due)
      sleep(int(i), int(i));
  return fell;
}

}  // namespace coulomb
