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

namespace coulomb {

namespace {
constexpr std::size_t kPairsPerChunk = 32;  // a few microseconds of narrowphase per chunk
constexpr std::size_t kBodiesPerChunk = 256;
}  // namespace

DetectStats detect_contacts(const DetectInput& in, std::vector<Contact>& out) {
  const std::size_t nb = in.body_shape->size();
  const auto reach = [&](std::size_t i) { return in.reach ? (*in.reach)[i] : 0.0; };
  // what the pair can close over the step (DetectInput::travel), or the sum of both reaches
  const auto pair_reach = [&](std::size_t a, std::size_t b) {
    if (!in.travel) return reach(a) + reach(b);
    return ((*in.travel)[a] - (*in.travel)[b]).norm() + (*in.turn)[a] + (*in.turn)[b] + in.accel_reach;
  };
  std::vector<Aabb> boxes(nb);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nb, kBodiesPerChunk), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i)
      boxes[i] = in.shapes->aabb((*in.body_shape)[i], (*in.shape_pose)[i], in.margin + in.envelope + reach(i));
  });

  std::vector<std::pair<int, int>> pairs;
  broadphase(in.broadphase, boxes, *in.is_static, pairs);

  const std::size_t nchunks = (pairs.size() + kPairsPerChunk - 1) / kPairsPerChunk;
  std::vector<std::vector<Contact>> found(nchunks);
  tbb::parallel_for(std::size_t(0), nchunks, [&](std::size_t chunk) {
    std::vector<ContactPoint> pts;
    const std::size_t end = std::min(pairs.size(), (chunk + 1) * kPairsPerChunk);
    for (std::size_t e = chunk * kPairsPerChunk; e < end; ++e) {
      const auto [a, b] = pairs[e];
      pts.clear();
      collide(*in.shapes, (*in.body_shape)[std::size_t(a)], (*in.shape_pose)[std::size_t(a)],
              (*in.body_shape)[std::size_t(b)], (*in.shape_pose)[std::size_t(b)],
              in.envelope + pair_reach(std::size_t(a), std::size_t(b)), pts);
      for (const ContactPoint& p : pts) {
        if (!p.point.allFinite() || !p.normal.allFinite() || !std::isfinite(p.depth)) continue;
        found[chunk].push_back({a, b, p.point, p.normal, p.depth, p.feature_a, p.feature_b});
      }
    }
  });
  out.clear();
  for (const std::vector<Contact>& f : found) out.insert(out.end(), f.begin(), f.end());
  std::sort(out.begin(), out.end(), contact_less);
  return {int(pairs.size()), int(out.size())};
}

void refresh_contacts(const std::vector<Contact>& in, const std::vector<Pose>& before, const std::vector<Pose>& after,
                      std::vector<Contact>& out) {
  out.resize(in.size());
  for (std::size_t k = 0; k < in.size(); ++k) {
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
}

}  // namespace coulomb
