// The World's warm-start cache (State::contact_cache): last step's contact impulses carried to
// this step's contacts by body pair and contact point.
#include <coulomb/assert.h>
#include <coulomb/world.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace coulomb {

// Contact k's tangents: those of its rows in the assembled problem (assemble_contacts' tangent_basis
// of its normal, not computed again) where that problem is small; computed again, the same bits,
// where it is large (its rows, 304 bytes a contact, are then read from memory, two lines for each
// frame: 2.9% of a 16,000-box step, issue 12) or holds other contacts.
void World::contact_frame(std::size_t k, Vec3& t, Vec3& s) const {
  if (problem_.num_contacts() == int(contacts_.size()) && contacts_.size() <= ContactProblem::kKeptResponses) {
    t = problem_.rows[k].lin.row(1).transpose();
    s = problem_.rows[k].lin.row(2).transpose();
  } else {
    tangent_basis(contacts_[k].normal, t, s);
  }
}

// Seeds the solver with last step's impulses of the contacts that persist: same body pair and
// the contact point (in body a's frame) within a small distance of an old one.
void World::warm_start() {
  solution_.lambda.assign(contacts_.size(), Vec4::Zero());
  contact_local_.resize(contacts_.size());
  for (std::size_t k = 0; k < contacts_.size(); ++k)
    contact_local_[k] = state_.body_pose(contacts_[k].body_a).apply_inverse(contacts_[k].point);
  if (!scene_.solver_options.warm_start) return;
  const double tol2 = std::pow(std::max(2.0 * scene_.envelope, 1e-3), 2);
  // contacts_ and cache_ are both sorted by body pair (cache_ is last step's contacts_), so one
  // forward walk finds each pair's old contacts in O(n), where a binary search per contact was
  // O(n log n) with a cache miss per level; a contact out of order restarts the walk.
  const auto key = [](int a, int b) { return std::pair<int, int>(a, b); };
  auto lo = cache_.begin();
  std::pair<int, int> previous(-1, -1);
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    const std::pair<int, int> pair = key(c.body_a, c.body_b);
    if (pair < previous) lo = cache_.begin();
    previous = pair;
    while (lo != cache_.end() && key(lo->a, lo->b) < pair) ++lo;
    auto hi = lo;
    while (hi != cache_.end() && key(hi->a, hi->b) == pair) ++hi;
    if (lo == hi) continue;
    const Vec3& local = contact_local_[k];
    const CachedContactImpulse* best = nullptr;
    double best_d2 = tol2;
    for (auto it = lo; it != hi; ++it) {
      const double d2 = (it->local_point - local).squaredNorm();
      if (d2 < best_d2) { best_d2 = d2; best = &*it; }
    }
    if (!best) continue;
    Vec3 t, s;
    contact_frame(k, t, s);
    solution_.lambda[k] = Vec4(c.normal.dot(best->impulse), t.dot(best->impulse), s.dot(best->impulse),
                               c.normal.dot(best->torsion));
  }
}

void World::remember_impulses() {
  std::vector<CachedContactImpulse> old_cache;
  if (scene_.sleep.enabled) old_cache = cache_;
  cache_.resize(contacts_.size());
  COULOMB_ASSERT(contact_local_.size() == contacts_.size(), "World: warm_start() runs before remember_impulses()");
  for (std::size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    const Vec4& l = solution_.lambda[k];
    Vec3 t, s;
    contact_frame(k, t, s);
    cache_[k] = {c.body_a, c.body_b, contact_local_[k],
                 l[0] * c.normal + l[1] * t + l[2] * s, l[3] * c.normal};
  }
  keep_resting_impulses(old_cache);
}

}  // namespace coulomb
