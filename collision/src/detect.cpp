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
              in.envelope + reach(std::size_t(a)) + reach(std::size_t(b)), pts);
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

}  // namespace coulomb
