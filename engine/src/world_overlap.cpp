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
#include <coulomb/error.h>
#include <coulomb/log.h>
#include <coulomb/world.h>

#include "scene_reader.h"


#include <algorithm>
#include <cmath>
#include <cstdio>
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

}  // namespace

void World::settle_initial_overlaps() {
  const int nb = model_.size();
  const int ns = int(soft_.size());
  const double tolerance = scene_.overlap_tolerance >= 0.0 ? scene_.overlap_tolerance : scene_.envelope;
  initial_overlaps_ = InitialOverlaps{};
  initial_overlaps_.tolerance = tolerance;
  // an overlap of exactly the tolerance, as written in the scene, passes despite its rounding
  const double beyond = tolerance * (1.0 + 1e-9) + 1e-12;

  // pairs that meet by design: joints (detection drops them) and attach joints
  std::vector<std::pair<int, int>> attached;  // (rigid id, soft index)
  for (const AttachDef& a : scene_.attachments)
    if (a.body >= 0) attached.emplace_back(a.body, a.soft);
  std::sort(attached.begin(), attached.end());

  const auto unit_of = [&](const ContactSide& s) { return s.rigid >= 0 ? s.rigid : nb + s.soft; };
  // every contact at the current poses, as rows; the pairs' deepest overlaps into `deepest`
  std::vector<Row> rows;
  std::map<std::pair<int, int>, double> deepest;
  const auto measure = [&] {
    rows.clear();
    deepest.clear();
    std::vector<Pose> poses;
    std::vector<Contact> rigid;
    std::vector<SoftContact> soft;
    SoftDetectInput in;
    in.rigid = posed_input(poses);
    in.rigid.broadphase = settings_.broadphase;
    in_arena([&] {
      detect_contacts(in.rigid, rigid);
      if (ns == 0) return;
      in.soft.resize(std::size_t(ns));
      for (int i = 0; i < ns; ++i) {
        const SoftBody& b = soft_[std::size_t(i)];
        in.soft[std::size_t(i)] = {&b.x, &b.faces, &b.surface_vertices, 0.0};
      }
      in.self_contacts = false;  // a mesh that meets itself is refused when it is loaded
      in.edge_edge = scene_.edge_edge;
      in.thickness = scene_.thickness;
      detect_soft_contacts(in, soft);
    });
    drop_jointed_contacts(rigid);
    for (const Contact& c : rigid) rows.push_back({c.body_a, c.body_b, c.normal, c.depth});
    for (const SoftContact& c : soft) {
      const int a = unit_of(c.a), b = unit_of(c.b);
      if (a == b) continue;
      const ContactSide& r = c.a.rigid >= 0 ? c.a : c.b;
      const ContactSide& f = c.a.rigid >= 0 ? c.b : c.a;
      if (r.rigid >= 0 && f.soft >= 0 && std::binary_search(attached.begin(), attached.end(), std::make_pair(r.rigid, f.soft)))
        continue;
      rows.push_back({a, b, c.normal, c.depth});
    }
    for (const Row& r : rows) {
      if (!(r.depth > beyond)) continue;
      double& d = deepest[{std::min(r.a, r.b), std::max(r.a, r.b)}];
      d = std::max(d, r.depth);
    }
  };
  measure();
  if (deepest.empty()) return;

  const auto name = [&](int unit) { return unit < nb ? model_.name[std::size_t(unit)] : soft_[std::size_t(unit - nb)].name; };
  const auto movable = [&](int unit) {
    if (unit < nb) return !model_.fixed[std::size_t(unit)];
    const SoftBody& b = soft_[std::size_t(unit - nb)];
    return std::none_of(b.inv_mass.begin(), b.inv_mass.end(), [](double w) { return w == 0.0; });
  };
  const auto pointer = [&](int unit) {
    if (unit >= nb) return "/soft_bodies/" + std::to_string(unit - nb);
    const BodyDef& d = scene_.bodies[std::size_t(unit)];
    return d.pointer.empty() ? "/bodies/" + std::to_string(scene_index(unit)) : d.pointer;
  };
  // the pairs, deepest first
  const auto sorted_pairs = [&] {
    std::vector<std::pair<std::pair<int, int>, double>> out(deepest.begin(), deepest.end());
    std::stable_sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.second > y.second; });
    return out;
  };
  const auto describe = [&](const std::pair<int, int>& p, double depth) {
    return "bodies '" + name(p.first) + "' and '" + name(p.second) + "' overlap by " + metres(depth);
  };
  const auto more = [&](std::size_t count) {
    return count > 1 ? " (and " + std::to_string(count - 1) + " more pair" + (count > 2 ? "s" : "") + ")" : std::string();
  };
  const auto where = [&](const std::pair<int, int>& p) { return pointer(movable(p.second) || !movable(p.first) ? p.second : p.first); };
  const std::string limit = "collision.overlap_tolerance (" + metres(tolerance) + ")";

  for (const auto& [pair, depth] : sorted_pairs()) initial_overlaps_.pairs.push_back({name(pair.first), name(pair.second), depth});
  if (scene_.initial_overlap == InitialOverlap::Error) {
    const auto [pair, depth] = sorted_pairs().front();
    throw InputError(where(pair), describe(pair, depth) + " at the start, more than " + limit + more(deepest.size()) +
                                      "; move them apart, or set collision.initial_overlap to \"resolve\" (push them "
                                      "apart before step 1) or \"warn\" (run them as they are)");
  }
  if (scene_.initial_overlap == InitialOverlap::Warn) {
    // the deepest few: a pile of boxes at one point has as many pairs as contacts
    constexpr std::size_t kLogged = 10;
    const std::vector<InitialOverlaps::Pair>& pairs = initial_overlaps_.pairs;
    for (std::size_t k = 0; k < std::min(pairs.size(), kLogged); ++k)
      logger().warn("bodies '{}' and '{}' overlap by {} at the start, more than {}; kept (collision.initial_overlap: warn)",
                    pairs[k].a, pairs[k].b, metres(pairs[k].depth), limit);
    if (pairs.size() > kLogged) logger().warn("and {} more overlapping pairs (World::initial_overlaps)", pairs.size() - kLogged);
    return;
  }

  // "resolve": projected Gauss-Seidel over the rows for the translations, round after round
  std::vector<double> w(std::size_t(nb + ns), 0.0);  // inverse masses of the movable units
  for (int u = 0; u < nb + ns; ++u) {
    if (!movable(u)) continue;
    if (u < nb) {
      w[std::size_t(u)] = model_.inv_mass[std::size_t(u)];
    } else {
      double mass = 0.0;
      for (double m : soft_[std::size_t(u - nb)].mass) mass += m;
      w[std::size_t(u)] = mass > 0.0 ? 1.0 / mass : 0.0;
    }
  }
  std::vector<Vec3> total(std::size_t(nb + ns), Vec3::Zero());
  for (int round = 0; round < kRounds && !deepest.empty(); ++round) {
    std::vector<Vec3> s(std::size_t(nb + ns), Vec3::Zero());
    std::vector<double> lambda(rows.size(), 0.0);
    for (int sweep = 0; sweep < kSweeps; ++sweep) {
      double change = 0.0;
      for (std::size_t k = 0; k < rows.size(); ++k) {
        const Row& r = rows[k];
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
      if (change <= 1e-3 * tolerance) break;
    }
    if (std::all_of(s.begin(), s.end(), [](const Vec3& d) { return d == Vec3::Zero(); })) break;  // nothing can move
    for (int u = 0; u < nb + ns; ++u) {
      const Vec3& d = s[std::size_t(u)];
      if (d == Vec3::Zero()) continue;
      total[std::size_t(u)] += d;
      if (u < nb) {
        state_.x[std::size_t(u)] += d;
        scene_.bodies[std::size_t(u)].position += d;
      } else {
        SoftBody& b = soft_[std::size_t(u - nb)];
        for (Vec3& x : b.x) x += d;
        for (Vec3& x : b.mesh.rest) x += d;
      }
    }
    measure();
  }
  for (int u = 0; u < nb + ns; ++u)
    if (total[std::size_t(u)] != Vec3::Zero()) initial_overlaps_.shifts.push_back({name(u), total[std::size_t(u)]});
  if (!deepest.empty()) {
    const auto [pair, depth] = sorted_pairs().front();
    const bool stuck = !movable(pair.first) && !movable(pair.second);
    throw InputError(where(pair), describe(pair, depth) + " at the start, more than " + limit + more(deepest.size()) +
                                      (stuck ? "; neither can move (fixed, kinematic or pinned)"
                                             : "; collision.initial_overlap \"resolve\" could not push them apart in " +
                                                   std::to_string(kRounds) + " rounds") +
                                      ": move them apart in the scene");
  }
  for (const InitialOverlaps::Shift& m : initial_overlaps_.shifts)
    logger().info("collision.initial_overlap resolve: moved '{}' by [{:.4g}, {:.4g}, {:.4g}] m", m.body, m.shift.x(),
                  m.shift.y(), m.shift.z());
}

}  // namespace coulomb
