// Overlaps at load (collision.initial_overlap, scenes/README.md): the constructor detects every
// rigid and soft contact at q^0 and finds the pairs that overlap by more than
// collision.overlap_tolerance. Velocity-level solvers leave an overlap where it is (no push-out
// without stabilisation: a door 0.5 m in the ground keeps its 0.5 m for the whole run) and
// position-level ones remove it within the first step, flinging the body off, so neither
// simulates what the user meant. Such a pair is refused ("error", the default),
// reported and kept ("warn"), or pushed apart before step 1 ("resolve").
//
// "resolve" translates the movable bodies, never rotates them: a position projection over the
// contacts at q^0, each contact k with its normal n_k (from side a to side b) and depth d_k a
// row of the linear complementarity problem
//
//   g_k = n_k . (s_b - s_a) - d_k >= 0,   lambda_k >= 0,   g_k lambda_k = 0,
//   s_i = w_i sum_k lambda_k (+-n_k)       (w_i: the inverse mass of body i, 0 when it cannot move),
//
// solved by projected Gauss-Seidel (s_i the translation of body i), then detected again at the
// moved poses, until no pair overlaps by more than the tolerance. Shallow contacts take part as
// rows too, so a pushed body does not end up in a neighbour. Fixed and kinematic bodies, and soft
// bodies with pinned vertices, do not move; joints and attach joints are built after it, at the
// moved poses, so that they hold the resolved configuration. Translations keep every shape and
// soft mesh as it was: nothing starts deformed or spinning.
#include "step_context.h"

#include <coulomb/error.h>
#include <coulomb/log.h>
#include <coulomb/world.h>

#include "scene_reader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <string>

namespace coulomb {

namespace {

// PGS sweeps of one round, rounds of detection and projection
constexpr int kSweeps = 200;
constexpr int kRounds = 20;

std::string metres(double x) { return detail::show(x, 3) + " m"; }

// one row of the projection: bodies by unit index (rigid ids, then soft bodies after them)
struct Row {
  int a = -1, b = -1;
  Vec3 n = Vec3::UnitZ();
  double depth = 0.0;
};

// The overlaps at load over units: rigid ids, then soft bodies after them.
class LoadOverlaps {
 public:
  LoadOverlaps(SceneDef& scene, const WorldModel& m, RigidState& state, std::vector<SoftBody>& soft,
               BroadphaseType broadphase, double tolerance, std::function<void(const std::function<void()>&)> in_arena)
      : scene_(scene), m_(m), state_(state), soft_(soft), broadphase_(broadphase), tolerance_(tolerance),
        in_arena_(std::move(in_arena)), nb_(m.rigid.size()), ns_(int(soft.size())) {
    // pairs that meet by design: joints (detection drops them) and attach joints
    for (const AttachDef& a : scene_.attachments)
      if (a.body >= 0) attached_.emplace_back(a.body, a.soft);
    std::sort(attached_.begin(), attached_.end());
  }

  // every contact at the current poses, as rows; the pairs' deepest overlaps into deepest()
  void measure();
  const std::map<std::pair<int, int>, double>& deepest() const { return deepest_; }
  // the pairs, deepest first
  std::vector<std::pair<std::pair<int, int>, double>> sorted_pairs() const {
    std::vector<std::pair<std::pair<int, int>, double>> out(deepest_.begin(), deepest_.end());
    std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    return out;
  }
  std::string name(int unit) const { return unit < nb_ ? m_.rigid.name[std::size_t(unit)] : soft_[std::size_t(unit - nb_)].name; }
  bool movable(int unit) const {
    if (unit < nb_) return !m_.rigid.fixed[std::size_t(unit)];
    const SoftBody& b = soft_[std::size_t(unit - nb_)];
    return std::none_of(b.inv_mass.begin(), b.inv_mass.end(), [](double w) { return w == 0.0; });
  }
  // the deepest pair, described, with the scene pointer of the body to move, as an error
  InputError error(const std::string& why) const;
  // "resolve": rounds of projection and detection; returns each unit's total translation
  std::vector<Vec3> resolve();

 private:
  std::string pointer(int unit) const {
    if (unit >= nb_) return "/soft_bodies/" + std::to_string(unit - nb_);
    const BodyDef& d = scene_.bodies[std::size_t(unit)];
    return d.pointer.empty() ? "/bodies/" + std::to_string(m_.scene_index[std::size_t(unit)]) : d.pointer;
  }
  std::vector<double> inverse_masses() const;
  std::vector<Vec3> project(const std::vector<double>& w) const;  // one round's translations
  void move(int unit, const Vec3& d);

  SceneDef& scene_;
  const WorldModel& m_;
  RigidState& state_;
  std::vector<SoftBody>& soft_;
  const BroadphaseType broadphase_;
  const double tolerance_;
  const std::function<void(const std::function<void()>&)> in_arena_;
  const int nb_, ns_;
  std::vector<std::pair<int, int>> attached_;  // (rigid id, soft index)
  std::vector<Row> rows_;
  std::map<std::pair<int, int>, double> deepest_;
};

void LoadOverlaps::measure() {
  // an overlap of exactly the tolerance, as written in the scene, passes despite its rounding
  const double beyond = tolerance_ * (1.0 + 1e-9) + 1e-12;
  const auto unit_of = [&](const ContactSide& s) { return s.rigid >= 0 ? s.rigid : nb_ + s.soft; };
  rows_.clear();
  deepest_.clear();
  std::vector<Pose> poses;
  std::vector<Contact> rigid;
  std::vector<SoftContact> soft;
  SoftDetectInput in;
  in.rigid = posed_input(scene_, m_, state_, m_.rigid.fixed, poses);
  in.rigid.broadphase = broadphase_;
  in_arena_([&] {
    detect_contacts(in.rigid, rigid);
    if (ns_ == 0) return;
    in.soft.resize(std::size_t(ns_));
    for (int i = 0; i < ns_; ++i) {
      const SoftBody& b = soft_[std::size_t(i)];
      in.soft[std::size_t(i)] = {&b.x, &b.faces, &b.surface_vertices, 0.0};
    }
    in.self_contacts = false;  // a mesh that meets itself is refused when it is loaded
    in.edge_edge = scene_.edge_edge;
    in.thickness = scene_.thickness;
    detect_soft_contacts(in, soft);
  });
  drop_jointed_contacts(m_, rigid);
  for (const Contact& c : rigid) rows_.push_back({c.body_a, c.body_b, c.normal, c.depth});
  for (const SoftContact& c : soft) {
    const int a = unit_of(c.a), b = unit_of(c.b);
    if (a == b) continue;
    const ContactSide& r = c.a.rigid >= 0 ? c.a : c.b;
    const ContactSide& f = c.a.rigid >= 0 ? c.b : c.a;
    if (r.rigid >= 0 && f.soft >= 0 && std::binary_search(attached_.begin(), attached_.end(), std::make_pair(r.rigid, f.soft)))
      continue;
    rows_.push_back({a, b, c.normal, c.depth});
  }
  for (const Row& r : rows_) {
    if (!(r.depth > beyond)) continue;
    double& d = deepest_[{std::min(r.a, r.b), std::max(r.a, r.b)}];
    d = std::max(d, r.depth);
  }
}

InputError LoadOverlaps::error(const std::string& why) const {
  const auto [pair, depth] = sorted_pairs().front();
  const std::size_t count = deepest_.size();
  const std::string more =
      count > 1 ? " (and " + std::to_string(count - 1) + " more pair" + (count > 2 ? "s" : "") + ")" : std::string();
  const std::string where = pointer(movable(pair.second) || !movable(pair.first) ? pair.second : pair.first);
  return InputError(where, "bodies '" + name(pair.first) + "' and '" + name(pair.second) + "' overlap by " + metres(depth) +
                               " at the start, more than collision.overlap_tolerance (" + metres(tolerance_) + ")" +
                               more + why);
}

std::vector<double> LoadOverlaps::inverse_masses() const {
  std::vector<double> w(std::size_t(nb_ + ns_), 0.0);  // inverse masses of the movable units
  for (int u = 0; u < nb_ + ns_; ++u) {
    if (!movable(u)) continue;
    if (u < nb_) {
      w[std::size_t(u)] = m_.rigid.inv_mass[std::size_t(u)];
    } else {
      double mass = 0.0;
      for (double x : soft_[std::size_t(u - nb_)].mass) mass += x;
      w[std::size_t(u)] = mass > 0.0 ? 1.0 / mass : 0.0;
    }
  }
  return w;
}

// projected Gauss-Seidel over the rows for the translations s
std::vector<Vec3> LoadOverlaps::project(const std::vector<double>& w) const {
  std::vector<Vec3> s(std::size_t(nb_ + ns_), Vec3::Zero());
  std::vector<double> lambda(rows_.size(), 0.0);
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    double change = 0.0;
    for (std::size_t k = 0; k < rows_.size(); ++k) {
      const Row& r = rows_[k];
      const double wa = w[std::size_t(r.a)], wb = w[std::size_t(r.b)];
      if (wa + wb == 0.0) continue;
      const double gap = r.n.dot(s[std::size_t(r.b)] - s[std::size_t(r.a)]) - r.depth;
      const double next = std::max(0.0, lambda[k] - gap / (wa + wb));
      const double dl = next - lambda[k];
      lambda[k] = next;
      s[std::size_t(r.a)] -= wa * dl * r.n;
      s[std::size_t(r.b)] += wb * dl * r.n;
      change = std::max(change, std::abs(dl) * (wa + wb));
    }
    if (change <= 1e-3 * tolerance_) break;
  }
  return s;
}

void LoadOverlaps::move(int u, const Vec3& d) {
  if (u < nb_) {
    state_.x[std::size_t(u)] += d;
    scene_.bodies[std::size_t(u)].position += d;
  } else {
    SoftBody& b = soft_[std::size_t(u - nb_)];
    for (Vec3& x : b.x) x += d;
    for (Vec3& x : b.mesh.rest) x += d;
  }
}

std::vector<Vec3> LoadOverlaps::resolve() {
  const std::vector<double> w = inverse_masses();
  std::vector<Vec3> total(std::size_t(nb_ + ns_), Vec3::Zero());
  for (int round = 0; round < kRounds && !deepest_.empty(); ++round) {
    const std::vector<Vec3> s = project(w);
    if (std::all_of(s.begin(), s.end(), [](const Vec3& d) { return d == Vec3::Zero(); })) break;  // nothing can move
    for (int u = 0; u < nb_ + ns_; ++u) {
      const Vec3& d = s[std::size_t(u)];
      if (d == Vec3::Zero()) continue;
      total[std::size_t(u)] += d;
      move(u, d);
    }
    measure();
  }
  return total;
}

}  // namespace

void World::settle_initial_overlaps() {
  const double tolerance = scene_.overlap_tolerance >= 0.0 ? scene_.overlap_tolerance : scene_.envelope;
  initial_overlaps_ = InitialOverlaps{};
  initial_overlaps_.tolerance = tolerance;
  LoadOverlaps o(scene_, model_, state_, soft_, settings_.broadphase, tolerance,
                 [this](const std::function<void()>& f) { in_arena(f); });
  o.measure();
  if (o.deepest().empty()) return;
  for (const auto& [pair, depth] : o.sorted_pairs()) initial_overlaps_.pairs.push_back({o.name(pair.first), o.name(pair.second), depth});
  if (scene_.initial_overlap == InitialOverlap::Error)
    throw o.error("; move them apart, or set collision.initial_overlap to \"resolve\" (push them apart before step 1) "
                  "or \"warn\" (run them as they are)");
  if (scene_.initial_overlap == InitialOverlap::Warn) {
    // the deepest few: a pile of boxes at one point has as many pairs as contacts
    constexpr std::size_t kLogged = 10;
    const std::string limit = "collision.overlap_tolerance (" + metres(tolerance) + ")";
    const std::vector<InitialOverlaps::Pair>& pairs = initial_overlaps_.pairs;
    for (std::size_t k = 0; k < std::min(pairs.size(), kLogged); ++k)
      logger().warn("bodies '{}' and '{}' overlap by {} at the start, more than {}; kept (collision.initial_overlap: warn)",
                    pairs[k].a, pairs[k].b, metres(pairs[k].depth), limit);
    if (pairs.size() > kLogged) logger().warn("and {} more overlapping pairs (World::initial_overlaps)", pairs.size() - kLogged);
    return;
  }
  const std::vector<Vec3> total = o.resolve();
  for (std::size_t u = 0; u < total.size(); ++u)
    if (total[u] != Vec3::Zero()) initial_overlaps_.shifts.push_back({o.name(int(u)), total[u]});
  if (!o.deepest().empty()) {
    const auto [pair, depth] = o.sorted_pairs().front();
    const bool stuck = !o.movable(pair.first) && !o.movable(pair.second);
    throw o.error((stuck ? "; neither can move (fixed, kinematic or pinned)"
                         : "; collision.initial_overlap \"resolve\" could not push them apart in " + std::to_string(kRounds) +
                               " rounds") +
                  std::string(": move them apart in the scene"));
  }
  for (const InitialOverlaps::Shift& m : initial_overlaps_.shifts)
    logger().info("collision.initial_overlap resolve: moved '{}' by [{:.4g}, {:.4g}, {:.4g}] m", m.body, m.shift.x(),
                  m.shift.y(), m.shift.z());
}

}  // namespace coulomb
