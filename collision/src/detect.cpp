#include <coulomb/broadphase.h>
#include <coulomb/detect.h>
#include <coulomb/narrowphase.h>

#include <algorithm>

namespace coulomb {

DetectStats detect_contacts(const DetectInput& in, std::vector<Contact>& out) {
  const std::size_t nb = in.body_shape->size();
  const auto reach = [&](std::size_t i) { return in.reach ? (*in.reach)[i] : 0.0; };
  std::vector<Aabb> boxes(nb);
  for (std::size_t i = 0; i < nb; ++i)
    boxes[i] = in.shapes->aabb((*in.body_shape)[i], (*in.shape_pose)[i], in.margin + in.envelope + reach(i));

  std::vector<std::pair<int, int>> pairs;
  sweep_and_prune(boxes, *in.is_static, pairs);

  out.clear();
  std::vector<ContactPoint> pts;
  for (const auto& [a, b] : pairs) {
    pts.clear();
    collide(*in.shapes, (*in.body_shape)[std::size_t(a)], (*in.shape_pose)[std::size_t(a)],
            (*in.body_shape)[std::size_t(b)], (*in.shape_pose)[std::size_t(b)],
            in.envelope + reach(std::size_t(a)) + reach(std::size_t(b)), pts);
    for (const ContactPoint& p : pts) {
      if (!p.point.allFinite() || !p.normal.allFinite() || !std::isfinite(p.depth)) continue;
      out.push_back({a, b, p.point, p.normal, p.depth, p.feature_a, p.feature_b});
    }
  }
  std::sort(out.begin(), out.end(), contact_less);
  return {int(pairs.size()), int(out.size())};
}

}  // namespace coulomb
