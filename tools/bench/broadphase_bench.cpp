// broadphase-bench: sweep and prune vs the uniform grid vs Bullet's btDbvtBroadphase on random
// boxes and spheres (collision/README.md says what they mean). A program, not a test: it prints
// ms per call and the ratio to sweep and prune measured in the same run (DESIGN.md), and with
// `--csv FILE` writes the same rows as CSV.
//
// Scene: n shapes (half boxes with random half extents 0.05-0.15 m, half spheres of radius
// 0.05-0.15 m) uniformly in a cube sized for a constant density (about 0.8 overlapping pairs
// per shape), grown by a 1 cm envelope, plus a static half-space (a ground plane) and one static
// ground box; every tenth shape is static. Each call sees a new frame: the calls alternate
// between the positions and the same positions jittered by up to 1 cm, as consecutive steps do.
// Bullet's tree is incremental (setAabb on every proxy, then calculateOverlappingPairs); its
// pair cache holds pairs of its margin-grown boxes, which are filtered by the exact test and
// sorted so that every method returns the same list.
#include <BulletCollision/BroadphaseCollision/btDbvtBroadphase.h>
#include <BulletCollision/CollisionDispatch/btCollisionDispatcher.h>
#include <BulletCollision/CollisionDispatch/btDefaultCollisionConfiguration.h>
#include <coulomb/broadphase.h>
#include <coulomb/timer.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>

using namespace coulomb;
using Pairs = std::vector<std::pair<int, int>>;

namespace {

struct Frames {
  std::vector<Aabb> a, b;
  std::vector<std::uint8_t> is_static;
};

Frames make_frames(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0), size(0.05, 0.15), jitter(-0.01, 0.01);
  const double side = std::cbrt(double(n) * 0.06);  // constant density
  Frames f;
  const double inf = std::numeric_limits<double>::infinity();
  for (int i = 0; i < n; ++i) {
    const Vec3 c(side * unit(rng), side * unit(rng), side * unit(rng));
    const Vec3 h = i % 2 ? Vec3::Constant(size(rng)) : Vec3(size(rng), size(rng), size(rng));
    Aabb box{c - h - Vec3::Constant(0.01), c + h + Vec3::Constant(0.01)};
    f.a.push_back(box);
    const Vec3 d(jitter(rng), jitter(rng), jitter(rng));
    f.b.push_back({box.lo + d, box.hi + d});
    f.is_static.push_back(i % 10 == 0);
  }
  // a ground plane (half-space) and a ground box, both static
  f.a.push_back({Vec3(-inf, -inf, -inf), Vec3(inf, inf, 0.1)});
  f.a.push_back({Vec3(-1.0, -1.0, -0.2), Vec3(side + 1.0, side + 1.0, 0.2)});
  f.b.push_back(f.a[f.a.size() - 2]);
  f.b.push_back(f.a.back());
  f.is_static.push_back(1);
  f.is_static.push_back(1);
  return f;
}

// Bullet's dynamic AABB tree, kept between calls as an engine would keep it.
class DbvtBroadphase {
 public:
  explicit DbvtBroadphase(const Frames& f) : dispatcher_(&config_) {
    for (std::size_t i = 0; i < f.a.size(); ++i) {
      const bool st = f.is_static[i] != 0;
      const int group = st ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter;
      const int mask = st ? btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter : btBroadphaseProxy::AllFilter;
      proxies_.push_back(tree_.createProxy(lo(f.a[i]), hi(f.a[i]), 0, reinterpret_cast<void*>(i), group, mask, &dispatcher_));
    }
  }
  void pairs(const std::vector<Aabb>& boxes, Pairs& out) {
    for (std::size_t i = 0; i < boxes.size(); ++i) tree_.setAabb(proxies_[i], lo(boxes[i]), hi(boxes[i]), &dispatcher_);
    tree_.calculateOverlappingPairs(&dispatcher_);
    out.clear();
    const btBroadphasePairArray& cache = tree_.getOverlappingPairCache()->getOverlappingPairArray();
    for (int k = 0; k < cache.size(); ++k) {
      const int i = int(reinterpret_cast<std::size_t>(cache[k].m_pProxy0->m_clientObject));
      const int j = int(reinterpret_cast<std::size_t>(cache[k].m_pProxy1->m_clientObject));
      if (boxes[std::size_t(i)].overlaps(boxes[std::size_t(j)])) out.emplace_back(std::min(i, j), std::max(i, j));
    }
    std::sort(out.begin(), out.end());
  }

 private:
  // the tree needs finite volumes: infinite bounds become 1e9 m
  static btVector3 lo(const Aabb& b) { const Vec3 v = b.lo.cwiseMax(-1e9); return {v.x(), v.y(), v.z()}; }
  static btVector3 hi(const Aabb& b) { const Vec3 v = b.hi.cwiseMin(1e9); return {v.x(), v.y(), v.z()}; }
  btDefaultCollisionConfiguration config_;
  btCollisionDispatcher dispatcher_;
  btDbvtBroadphase tree_;
  std::vector<btBroadphaseProxy*> proxies_;
};

// ms per call over at least 0.3 s of calls, alternating the two frames
double time_calls(const std::function<void(const std::vector<Aabb>&, Pairs&)>& call, const Frames& f, Pairs& last) {
  for (int warm = 0; warm < 4; ++warm) call(warm % 2 ? f.b : f.a, last);
  int calls = 0;
  const coulomb::Stopwatch watch;
  double elapsed = 0.0;
  while (elapsed < 300.0 || calls % 2) {
    call(calls % 2 ? f.b : f.a, last);
    ++calls;
    elapsed = watch.ms();
  }
  return elapsed / calls;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 1 && !(argc == 3 && std::strcmp(argv[1], "--csv") == 0)) {
    std::fprintf(stderr, "usage: broadphase-bench [--csv FILE]\n");
    return 2;
  }
  std::FILE* csv = argc == 3 ? std::fopen(argv[2], "w") : nullptr;
  if (argc == 3 && !csv) {
    std::fprintf(stderr, "broadphase-bench: cannot write %s\n", argv[2]);
    return 2;
  }
  if (csv) std::fprintf(csv, "n,pairs,sap_ms,grid_ms,dbvt_ms,dbvt_new_ms,grid_over_sap,dbvt_over_sap,dbvt_new_over_sap\n");
  std::printf("%6s %8s %10s %10s %10s %12s %9s %9s %11s\n", "n", "pairs", "sap_ms", "grid_ms", "dbvt_ms", "dbvt_new_ms",
              "grid/sap", "dbvt/sap", "dbvt_new/sap");
  for (int n : {1000, 2000, 4000}) {
    const Frames f = make_frames(n, 1234u + unsigned(n));
    Pairs sap, grid, dbvt;
    const double t_sap = time_calls([&](const std::vector<Aabb>& b, Pairs& p) { sweep_and_prune(b, f.is_static, p); }, f, sap);
    const double t_grid = time_calls([&](const std::vector<Aabb>& b, Pairs& p) { uniform_grid(b, f.is_static, p); }, f, grid);
    DbvtBroadphase tree(f);
    const double t_dbvt = time_calls([&](const std::vector<Aabb>& b, Pairs& p) { tree.pairs(b, p); }, f, dbvt);
    // the same tree built from scratch on every call, as the stateless methods work
    Pairs dbvt_new;
    const double t_dbvt_new = time_calls([&](const std::vector<Aabb>& b, Pairs& p) {
      DbvtBroadphase fresh(f);
      fresh.pairs(b, p);
    }, f, dbvt_new);
    // the static ground box meets the static plane: Bullet filters it by group, as we do
    const bool same = sap == grid && sap == dbvt && sap == dbvt_new;
    std::printf("%6d %8zu %10.4f %10.4f %10.4f %12.4f %9.3f %9.3f %11.3f%s\n", n, sap.size(), t_sap, t_grid, t_dbvt,
                t_dbvt_new, t_grid / t_sap, t_dbvt / t_sap, t_dbvt_new / t_sap, same ? "" : "  PAIR LISTS DIFFER");
    if (csv)
      std::fprintf(csv, "%d,%zu,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f\n", n, sap.size(), t_sap, t_grid, t_dbvt, t_dbvt_new,
                   t_grid / t_sap, t_dbvt / t_sap, t_dbvt_new / t_sap);
    if (!same) return 1;
  }
  if (csv) std::fclose(csv);
  return 0;
}
