// The warm-start cache (State::contact_cache): last step's contact impulses carried to this
// step's contacts by body pair and contact point.
#include "step_context.h"

#include <coulomb/assert.h>
#include <coulomb/memory.h>

#include <algorithm>
#include <cmath>
#include <utility>

namespace coulomb {

// Contact k's tangents: those of its rows in the assembled problem (assemble_contacts'
// tangent_basis of its normal, not computed again) where that problem is small; computed again,
// the same bits, where it is large (its rows, 304 bytes a contact, would then be read from
// memory, two lines for each frame) or holds other contacts.
void contact_frame(const StepBuffers& b, std::size_t k, Vec3& t, Vec3& s) {
  if (b.problem.num_contacts() == int(b.contacts.size()) && b.contacts.size() <= ContactProblem::kKeptResponses) {
    t = b.problem.rows[k].lin.row(1).transpose();
    s = b.problem.rows[k].lin.row(2).transpose();
  } else {
    tangent_basis(b.contacts[k].normal, t, s);
  }
}

// Seeds the solver with last step's impulses of the contacts that persist: same body pair and
// the contact point (in body a's frame) within a small distance of an old one.
void warm_start(StepContext& c) {
  StepBuffers& b = c.buf;
  const std::vector<Contact>& contacts = b.contacts;
  const std::vector<CachedContactImpulse>& cache = c.cache.contacts;
  b.solution.lambda.assign(contacts.size(), Vec4::Zero());
  advise_huge_pages(b.solution.lambda);  // streamed by the solver's sweeps (base/memory.h)
  b.contact_local.resize(contacts.size());
  for (std::size_t k = 0; k < contacts.size(); ++k)
    b.contact_local[k] = c.state.body_pose(contacts[k].body_a).apply_inverse(contacts[k].point);
  if (!c.scene.solver_options.warm_start) return;
  const double tol2 = std::pow(std::max(2.0 * c.scene.envelope, 1e-3), 2);
  // the contacts and the cache (last step's contacts) are both sorted by body pair, so one
  // forward walk finds each pair's old contacts in O(n), without a cache miss per search level;
  // a contact out of order restarts the walk
  const auto key = [](int x, int y) { return std::pair<int, int>(x, y); };
  auto lo = cache.begin();
  std::pair<int, int> previous(-1, -1);
  for (std::size_t k = 0; k < contacts.size(); ++k) {
    const Contact& x = contacts[k];
    const std::pair<int, int> pair = key(x.body_a, x.body_b);
    if (pair < previous) lo = cache.begin();
    previous = pair;
    while (lo != cache.end() && key(lo->a, lo->b) < pair) ++lo;
    auto hi = lo;
    while (hi != cache.end() && key(hi->a, hi->b) == pair) ++hi;
    if (lo == hi) continue;
    const Vec3& local = b.contact_local[k];
    const CachedContactImpulse* best = nullptr;
    double best_d2 = tol2;
    for (auto it = lo; it != hi; ++it) {
      const double d2 = (it->local_point - local).squaredNorm();
      if (d2 < best_d2) { best_d2 = d2; best = &*it; }
    }
    if (!best) continue;
    Vec3 t, s;
    contact_frame(b, k, t, s);
    b.solution.lambda[k] = Vec4(x.normal.dot(best->impulse), t.dot(best->impulse), s.dot(best->impulse),
                                x.normal.dot(best->torsion));
  }
}

void remember_impulses(StepContext& c) {
  const StepBuffers& b = c.buf;
  std::vector<CachedContactImpulse>& cache = c.cache.contacts;
  std::vector<CachedContactImpulse> old_cache;
  if (c.scene.sleep.enabled) old_cache = cache;
  cache.resize(b.contacts.size());
  COULOMB_ASSERT(b.contact_local.size() == b.contacts.size(), "World: warm_start() runs before remember_impulses()");
  for (std::size_t k = 0; k < b.contacts.size(); ++k) {
    const Contact& x = b.contacts[k];
    const Vec4& l = b.solution.lambda[k];
    Vec3 t, s;
    contact_frame(b, k, t, s);
    cache[k] = {x.body_a, x.body_b, b.contact_local[k], l[0] * x.normal + l[1] * t + l[2] * s, l[3] * x.normal};
  }
  keep_resting_impulses(c, old_cache);
  advise_huge_pages(cache);  // read by the next step's detection and warm start (base/memory.h)
}

}  // namespace coulomb
