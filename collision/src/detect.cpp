// The detection stage, parallel and deterministic. Bounding boxes are computed in parallel
// (one slot per body); the narrowphase runs over the broadphase pairs in fixed chunks of
// kPairsPerChunk pairs, each chunk writing its own buffer, and the buffers are concatenated in
// chunk (= pair) order. Chunks do not depend on the thread count, so neither does the contact
// list; the final sort (DESIGN.md) makes the order independent of the broadphase too. The
// threads are those of the caller's task arena (the World's).
#include <coulomb/broadphase.h>
#include <coulomb/detect.h>
#include <coulomb/narrowphase.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace coulomb {

namespace {
constexpr std::size_t kPairsPerChunk = 32;  // a few microseconds of narrowphase per chunk
constexpr std::size_t kBodiesPerChunk = 256;

// contact_less order. The contacts are gathered pair by pair in the broadphase's sorted pair
// order, so only each pair's few points need sorting (a whole sort is a noticeable part of a
// small scene's step); a list out of pair order is sorted whole.
void sort_contacts(std::vector<Contact>& out) {
  const auto pair_less = [](const Contact& x, const Contact& y) {
    return x.body_a < y.body_a || (x.body_a == y.body_a && x.body_b < y.body_b);
  };
  if (!std::is_sorted(out.begin(), out.end(), pair_less)) {
    std::sort(out.begin(), out.end(), contact_less);
    return;
  }
  for (auto run = out.begin(); run != out.end();) {
    auto end = run + 1;
    while (end != out.end() && !pair_less(*run, *end)) ++end;
    std::sort(run, end, contact_less);
    run = end;
  }
}
}  // namespace

DetectStats detect_contacts(const DetectInput& in, std::vector<Contact>& out, std::vector<std::pair<int, int>>* pairs_out,
                            std::vector<double>* reach_out) {
  const std::size_t nb = in.body_shape->size();
  const auto reach = [&](std::size_t i) { return in.reach ? (*in.reach)[i] : 0.0; };
  std::vector<Aabb> boxes(nb);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nb, kBodiesPerChunk), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i)
      boxes[i] = (*in.body_shape)[i] < 0  // no shape: a point, whose pairs are dropped below
                     ? Aabb{(*in.shape_pose)[i].p, (*in.shape_pose)[i].p}
                     : in.shapes->aabb((*in.body_shape)[i], (*in.shape_pose)[i], in.margin + in.envelope + reach(i));
  });

  std::vector<std::pair<int, int>> pairs;
  broadphase(in.broadphase, boxes, *in.is_static, pairs);
  if (in.excluded_pairs && !in.excluded_pairs->empty())
    std::erase_if(pairs, [&](const std::pair<int, int>& p) {
      return std::binary_search(in.excluded_pairs->begin(), in.excluded_pairs->end(), p);
    });
  if (in.contype || std::any_of(in.body_shape->begin(), in.body_shape->end(), [](int s) { return s < 0; }))
    std::erase_if(pairs, [&](const std::pair<int, int>& p) { return !may_collide(in, p.first, p.second); });
  // The gap between two bodies' boxes without their reach (grown by margin + envelope only, at
  // least the envelope the narrowphase adds to the pair's reach): a pair whose gap exceeds what
  // it can close has no contact, and skips the narrowphase. Falling bodies' boxes grow by their
  // whole travel, so most of their broadphase pairs are such (the falling funnel has about six
  // times as many pairs as contacts).
  const auto box_gap = [&](std::size_t a, std::size_t b) {
    const Aabb &ba = boxes[a], &bb = boxes[b];
    const double ra = reach(a), rb = reach(b);
    double gap = 0.0;
    for (int k = 0; k < 3; ++k) gap = std::max({gap, (bb.lo[k] + rb) - (ba.hi[k] - ra), (ba.lo[k] + ra) - (bb.hi[k] - rb)});
    return gap;
  };

  // A pair's speculative reach (DetectInput::travel). While neither body's velocity changes in
  // the step, the pair can close only its relative travel t_a - t_b. A body with a contact that
  // can close ("touched") may be stopped within the step, as the lowest of a falling column is by
  // the floor: its displacement is then s t with s anywhere in [0, 1] (an inelastic stop), and
  // an untouched body's is its whole travel t. The pair's relative displacement s_a t_a - s_b t_b
  // is linear in (s_a, s_b), so its length, and its component along any normal, is largest at a
  // corner of that box: t_a - t_b, t_a (b stopped), t_b (a stopped) or 0. Never more than the
  // sum of both reaches, the bound without relative motion.
  const std::vector<Vec3>* t = in.travel;
  std::vector<std::uint8_t> touched(nb, 0);  // dynamic bodies with a contact that can close
  if (t && in.touched_hint)
    for (std::size_t i = 0; i < nb; ++i) touched[i] = (*in.touched_hint)[i] && !(*in.is_static)[i];
  const auto rotation = [&](std::size_t a, std::size_t b) { return (*in.turn)[a] + (*in.turn)[b] + in.accel_reach; };
  const auto pair_reach = [&](std::size_t a, std::size_t b) {
    const double sum = reach(a) + reach(b);
    if (!t) return sum;
    double r = ((*t)[a] - (*t)[b]).norm();
    if (touched[a]) r = std::max(r, (*t)[a].norm());
    if (touched[b]) r = std::max(r, (*t)[b].norm());
    return std::min(r + rotation(a, b), sum);
  };
  // Whether a contact can close in the step: its gap against the largest displacement of the
  // corners above along its normal. Directional, so that the neighbours of a stopped body touch
  // it only if they move towards it (a column, not the bodies falling beside it), and a column
  // passes the stop on from body to body.
  const auto can_close = [&](const Contact& c) {
    const auto a = std::size_t(c.body_a), b = std::size_t(c.body_b);
    const Vec3& n = c.normal;
    double closing = std::abs(((*t)[a] - (*t)[b]).dot(n));
    if (touched[a]) closing = std::max(closing, std::abs((*t)[a].dot(n)));
    if (touched[b]) closing = std::max(closing, std::abs((*t)[b].dot(n)));
    return -c.depth <= closing + rotation(a, b);
  };

  // Passes over the pairs whose reach grew, until no body becomes touched: the first pass takes
  // every pair, a later one the pairs next to a newly touched body. Each pass's result for a pair
  // replaces the earlier ones. Passes depend on the contacts alone, and the chunks of a pass on
  // its pair list, so the result does not depend on the thread count.
  struct Found {
    std::size_t pair;
    Contact contact;
  };
  std::vector<double> used(pairs.size(), -1.0);  // reach each pair was last run with
  std::vector<int> pass_of(pairs.size(), -1);
  std::vector<std::vector<Found>> found;  // per chunk of every pass
  std::vector<int> chunk_pass;
  std::vector<std::size_t> todo(pairs.size());
  for (std::size_t e = 0; e < pairs.size(); ++e) todo[e] = e;
  std::vector<const Contact*> pending;        // current contacts that have not marked their bodies
  std::vector<int> fresh;                     // bodies touched in this pass
  std::vector<std::uint8_t> newly(nb, 0);     // fresh, as flags
  const auto current = [&](std::size_t c, const Found& f) { return pass_of[f.pair] == chunk_pass[c]; };
  for (int pass = 0; !todo.empty(); ++pass) {
    const std::size_t first = found.size(), nchunks = (todo.size() + kPairsPerChunk - 1) / kPairsPerChunk;
    found.resize(first + nchunks);
    chunk_pass.resize(first + nchunks, pass);
    tbb::parallel_for(std::size_t(0), nchunks, [&](std::size_t chunk) {
      std::vector<ContactPoint> pts;
      std::vector<Found>& f = found[first + chunk];
      const std::size_t end = std::min(todo.size(), (chunk + 1) * kPairsPerChunk);
      for (std::size_t k = chunk * kPairsPerChunk; k < end; ++k) {
        const std::size_t e = todo[k];
        const auto [a, b] = pairs[e];
        used[e] = pair_reach(std::size_t(a), std::size_t(b));
        pass_of[e] = pass;
        if (box_gap(std::size_t(a), std::size_t(b)) > used[e]) continue;  // farther apart than the pair can close
        pts.clear();
        collide(*in.shapes, (*in.body_shape)[std::size_t(a)], (*in.shape_pose)[std::size_t(a)],
                (*in.body_shape)[std::size_t(b)], (*in.shape_pose)[std::size_t(b)], in.envelope + used[e], pts);
        for (const ContactPoint& p : pts) {
          if (!p.point.allFinite() || !p.normal.allFinite() || !std::isfinite(p.depth)) continue;
          f.push_back({e, {a, b, p.point, p.normal, p.depth, p.feature_a, p.feature_b}});
        }
      }
    });
    todo.clear();
    if (!t) break;  // one pass: the reach does not depend on contacts
    // touched bodies, to a fixed point over the current contacts: marking only grows and
    // can_close only grows with it, so the fixed point is the same in any visiting order. A
    // contact that marked its bodies is done; the others are visited again while marks grow.
    pending.clear();
    for (std::size_t c = 0; c < found.size(); ++c)
      for (const Found& f : found[c])
        if (current(c, f)) pending.push_back(&f.contact);
    fresh.clear();
    for (bool grew = true; grew;) {
      grew = false;
      std::erase_if(pending, [&](const Contact* c) {
        if (!can_close(*c)) return false;
        for (const int i : {c->body_a, c->body_b})
          if (!(*in.is_static)[std::size_t(i)] && !touched[std::size_t(i)]) {
            touched[std::size_t(i)] = 1;
            fresh.push_back(i);
            grew = true;
          }
        return true;
      });
    }
    // only a pair with a newly touched body can have grown its reach
    if (fresh.empty()) break;
    for (const int i : fresh) newly[std::size_t(i)] = 1;
    for (std::size_t e = 0; e < pairs.size(); ++e) {
      const auto a = std::size_t(pairs[e].first), b = std::size_t(pairs[e].second);
      if ((newly[a] || newly[b]) && pair_reach(a, b) > used[e]) todo.push_back(e);
    }
    for (const int i : fresh) newly[std::size_t(i)] = 0;
  }
  // each pair's last pass, placed in pair order (a counting sort on the pair: a later pass
  // lists its pairs apart from the first pass's, and a counting sort is cheaper than a whole sort)
  std::vector<int> at(pairs.size() + 1, 0);
  for (std::size_t c = 0; c < found.size(); ++c)
    for (const Found& f : found[c])
      if (current(c, f)) ++at[f.pair + 1];
  for (std::size_t e = 0; e < pairs.size(); ++e) at[e + 1] += at[e];
  out.resize(std::size_t(at.back()));
  for (std::size_t c = 0; c < found.size(); ++c)
    for (const Found& f : found[c])
      if (current(c, f)) out[std::size_t(at[f.pair]++)] = f.contact;
  sort_contacts(out);  // pairs are sorted, so only each pair's few points are
  const int npairs = int(pairs.size());
  if (pairs_out) *pairs_out = std::move(pairs);
  if (reach_out) *reach_out = std::move(used);  // every pair ran in the first pass
  return {npairs, int(out.size())};
}

void detect_uncovered_pairs(const DetectInput& in, const std::vector<std::pair<int, int>>& pairs,
                            const std::vector<Contact>& covered, std::vector<Contact>& out,
                            const std::vector<std::uint8_t>* deflected, const CoveredMotion* motion) {
  if (motion && (!motion->pair_reach || !motion->shift || !motion->turn || motion->pair_reach->size() != pairs.size() ||
                 motion->shift->size() != in.body_shape->size() || motion->turn->size() != in.body_shape->size()))
    throw std::invalid_argument("detect_uncovered_pairs: the motion needs one reach per pair and one shift and turn per body");
  // the pairs to run: no contact in `covered` (both lists are sorted by pair), boxes overlapping
  std::vector<std::pair<int, int>> todo;
  std::vector<Aabb> boxes(in.body_shape->size());  // computed once per body, on first use
  std::vector<std::uint8_t> boxed(in.body_shape->size(), 0);
  const auto box = [&](int i) -> const Aabb& {
    const auto u = std::size_t(i);
    if (!boxed[u]) boxes[u] = in.shapes->aabb((*in.body_shape)[u], (*in.shape_pose)[u], in.envelope), boxed[u] = 1;
    return boxes[u];
  };
  // whether a pair's surface points moved by no more than half its reach at the detection (its
  // gap, more than envelope + reach then, is still more than the envelope). Half: the
  // narrowphase measures a separated pair along its separating axis, which turns with the
  // bodies, so its gap can close faster than the points move (the 1,000-box pile of
  // tools/bench/scaling: one box pair's gap closed by 2.4 mm while its points moved 0.95 mm; with
  // half the reach, no such pair in that pile, spheres, table_pile, wall, tower or sphere_pile,
  // and the same final states as without the test). Mesh pairs too, since the mesh narrowphase
  // finds boxes overlapping a sharp edge at a few degrees (mesh_collide.cpp, sharp_feature): no
  // skipped pair overlaps at the step's end in the funnel, jacks, box_on_torus or spheres_torus.
  const auto covered_by_reach = [&](std::size_t e, std::size_t a, std::size_t b) {
    if (!motion) return false;
    const double moved = ((*motion->shift)[a] - (*motion->shift)[b]).norm() + (*motion->turn)[a] + (*motion->turn)[b];
    return moved <= 0.5 * (*motion->pair_reach)[e];
  };
  std::size_t k = 0;
  for (std::size_t e = 0; e < pairs.size(); ++e) {
    const auto [a, b] = pairs[e];
    while (k < covered.size() && std::pair(covered[k].body_a, covered[k].body_b) < std::pair(a, b)) ++k;
    if (k < covered.size() && covered[k].body_a == a && covered[k].body_b == b) continue;
    if (deflected && !(*deflected)[std::size_t(a)] && !(*deflected)[std::size_t(b)]) continue;
    if (!may_collide(in, a, b)) continue;
    if (covered_by_reach(e, std::size_t(a), std::size_t(b))) continue;
    if (box(a).overlaps(box(b))) todo.emplace_back(a, b);
  }
  const std::size_t nchunks = (todo.size() + kPairsPerChunk - 1) / kPairsPerChunk;
  std::vector<std::vector<Contact>> found(nchunks);
  tbb::parallel_for(std::size_t(0), nchunks, [&](std::size_t chunk) {
    std::vector<ContactPoint> pts;
    const std::size_t end = std::min(todo.size(), (chunk + 1) * kPairsPerChunk);
    for (std::size_t e = chunk * kPairsPerChunk; e < end; ++e) {
      const auto [a, b] = todo[e];
      pts.clear();
      collide(*in.shapes, (*in.body_shape)[std::size_t(a)], (*in.shape_pose)[std::size_t(a)],
              (*in.body_shape)[std::size_t(b)], (*in.shape_pose)[std::size_t(b)], in.envelope, pts);
      for (const ContactPoint& p : pts)
        if (p.point.allFinite() && p.normal.allFinite() && std::isfinite(p.depth))
          found[chunk].push_back({a, b, p.point, p.normal, p.depth, p.feature_a, p.feature_b});
    }
  });
  for (const std::vector<Contact>& f : found) out.insert(out.end(), f.begin(), f.end());
}

void refresh_contacts(const std::vector<Contact>& in, const std::vector<Pose>& before, const std::vector<Pose>& after,
                      std::vector<Contact>& out) {
  out.resize(in.size());
  // per contact, in parallel (a landing pile carries tens of thousands of contacts)
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, in.size(), 1024), [&](const tbb::blocked_range<std::size_t>& range) {
    for (std::size_t k = range.begin(); k < range.end(); ++k) {
      const Contact& c = in[k];
      const auto a = std::size_t(c.body_a), b = std::size_t(c.body_b);
      // the surface points: a's deepest point lies depth/2 along n from the midpoint, b's against it
      const Vec3 pa = after[a].apply(before[a].apply_inverse(c.point + 0.5 * c.depth * c.normal));
      const Vec3 pb = after[b].apply(before[b].apply_inverse(c.point - 0.5 * c.depth * c.normal));
      const Vec3 n = after[a].rotate(before[a].q.conjugate() * c.normal).normalized();
      Contact& r = out[k];
      r = c;
      r.normal = n;
      r.depth = (pa - pb).dot(n);
      r.point = 0.5 * (pa + pb);
    }
  });
}

}  // namespace coulomb
