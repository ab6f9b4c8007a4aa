// Soft-body contact detection (seed 002 s.5), the stage that sequences the per-kind passes of
// soft_contact_kinds.h: update the soft bodies' geometry, find candidate body pairs, run each
// kind over its pairs, sort.
//
// Why it is built this way:
// - Trees persist. Each soft body's kDOP tree lives in the caller's SoftDetectCache; it is built
//   once for the body's faces and refit (bounds recomputed bottom up) to the moved vertices at
//   each call, and rebuilt only when the faces or k change. A refit tree groups the triangles as
//   they were at the build, so its inner boxes are looser than a fresh tree's, but its queries
//   return every triangle within range either way, and surface_query's answer depends on those
//   triangles only: the contacts are the same as with trees rebuilt at every call.
// - Candidate pairs come from the broadphase of detect_contacts (broadphase.h), one call over
//   the rigid bodies' boxes (the shape box grown by margin + envelope + reach, as detect_contacts
//   makes them) and the soft bodies' boxes (surface vertex bounds grown by reach + thickness +
//   envelope). Every rigid body is marked static there, so the broadphase skips rigid-rigid
//   pairs (detect_contacts has those) and reports the (rigid, soft) and (soft, soft) pairs only.
//   The boxes are grown by a hair more (kPad, relative) than the kinds' own box tests need, so
//   rounding never drops a pair that a kind would accept; each kind then applies its exact test,
//   which is why the contacts do not depend on where the pairs came from (SoftDetectInput::
//   all_pairs, every pair, is the oracle of the tests).
// - The library is taken by reference: a soft vertex is a ball outside it (soft_queries.h).
// - Determinism: the work is a list of tasks (pass, body, body) in pair order, run in parallel,
//   each writing its own buffer; the buffers are concatenated in task order and sorted with
//   soft_contact_less, a total order here (one contact per kind, bodies and vertex or corner),
//   so the list depends neither on the thread count nor on the pair source.
#include <coulomb/broadphase.h>
#include <coulomb/soft_contacts.h>
#include <tbb/parallel_for.h>

#include "soft_contact_kinds.h"

#include <algorithm>
#include <cmath>

namespace coulomb {
namespace {

using namespace detail;

constexpr double kPad = 1e-9;  // broadphase boxes grow by kPad (1 + largest |coordinate|) more than needed (unit: m)

// One unit of work: a pass of one kind over one (directed) body pair. Seed 004's edge-edge and
// CCD kinds will be further passes here, each with its function in soft_contact_kinds.h.
enum class SoftPass : std::uint8_t { RigidVertex, RigidTriangle, VertexTriangle, SelfVertexTriangle, EdgeEdge };
struct SoftTask {
  SoftPass pass;
  int i, j;  // RigidVertex, RigidTriangle: rigid body, soft body; VertexTriangle: vertex body, triangle body
};

bool usable(const SoftSurface& s) { return s.x && s.faces && s.surface_vertices; }

Aabb grown(Aabb box, double by) {
  box.lo.array() -= by;
  box.hi.array() += by;
  return box;
}

// grown by `by` and a little more (file comment)
Aabb padded(const Aabb& box, double by) {
  double m = 0.0;
  for (int a = 0; a < 3; ++a)
    for (double x : {box.lo[a], box.hi[a]})
      if (std::isfinite(x)) m = std::max(m, std::abs(x));
  return grown(box, by + kPad * (1.0 + m));
}

// The body's geometry at its current positions: its tree, refit when the faces are those it was
// built for, box, normals and depth bound. Returns true when the tree was (re)built.
bool update_geometry(const SoftSurface& s, int k, double max_depth, SoftGeometry& g) {
  g.box = Aabb{};
  g.scale = g.bound = 0.0;
  if (!usable(s)) return false;
  const std::vector<Vec3>& x = *s.x;
  for (int v : *s.surface_vertices) g.box.grow({x[std::size_t(v)], x[std::size_t(v)]});
  if (s.faces->empty()) return false;
  bool built = false;
  if (g.k == k && g.faces == *s.faces) {
    refit(g.bvh, x, g.faces);
  } else {
    g.bvh = build_bvh(x, *s.faces, k);
    g.faces = *s.faces;
    g.k = k;
    built = true;
  }
  // the faces' vertices: the root's bounds along the first three kDOP axes (x, y, z, exact)
  const Kdop& root = g.bvh.nodes[0].box;
  g.box.grow({Vec3(root.lo[0], root.lo[1], root.lo[2]), Vec3(root.hi[0], root.hi[1], root.hi[2])});
  g.scale = (g.box.hi - g.box.lo).norm();
  g.bound = max_depth >= 0.0 ? max_depth : 0.25 * (g.box.hi - g.box.lo).minCoeff();
  g.normals.resize(s.faces->size());
  for (std::size_t t = 0; t < s.faces->size(); ++t) {
    const auto& f = (*s.faces)[t];
    const Vec3 n = (x[std::size_t(f[1])] - x[std::size_t(f[0])]).cross(x[std::size_t(f[2])] - x[std::size_t(f[0])]);
    g.normals[t] = n.norm() > 0.0 ? Vec3(n.normalized()) : Vec3(Vec3::Zero());
  }
  return built;
}

// Candidate body pairs as tasks, in pair order (file comment).
void candidate_tasks(const SoftDetectInput& in, double thick, SoftDetectCache& cache, std::vector<SoftTask>& tasks,
                     int& npairs) {
  const DetectInput& rg = in.rigid;
  const std::size_t nr = cache.rigid_box.size();
  cache.boxes.clear();
  cache.is_static.clear();
  cache.soft_of_box.clear();
  for (std::size_t r = 0; r < nr; ++r) {
    cache.boxes.push_back(padded(cache.rigid_box[r], rg.envelope + (rg.reach ? (*rg.reach)[r] : 0.0)));
    cache.is_static.push_back(1);  // no rigid-rigid pairs
  }
  for (std::size_t s = 0; s < in.soft.size(); ++s) {
    const Aabb& box = cache.bodies[s].box;
    if (!usable(in.soft[s]) || !(box.lo.array() <= box.hi.array()).all()) continue;  // no vertices
    cache.boxes.push_back(padded(box, in.soft[s].reach + thick + rg.envelope));
    cache.is_static.push_back(0);
    cache.soft_of_box.push_back(int(s));
  }
  std::vector<std::pair<int, int>>& pairs = cache.pairs;
  if (in.all_pairs) {
    pairs.clear();
    for (int i = 0; i < int(cache.boxes.size()); ++i)
      for (int j = std::max(i + 1, int(nr)); j < int(cache.boxes.size()); ++j) pairs.emplace_back(i, j);
  } else {
    broadphase(rg.broadphase, cache.boxes, cache.is_static, pairs);
  }
  tasks.clear();
  npairs = 0;
  for (const auto& [i, j] : pairs) {  // i < j: rigid bodies come first
    if (j < int(nr)) continue;
    const int sj = cache.soft_of_box[std::size_t(j) - nr];
    if (i < int(nr)) {
      if ((*rg.body_shape)[std::size_t(i)] < 0) continue;  // no shape: collides with nothing
      tasks.push_back({SoftPass::RigidVertex, i, sj});
      tasks.push_back({SoftPass::RigidTriangle, i, sj});
      ++npairs;
    } else if (in.soft_soft) {
      const int si = cache.soft_of_box[std::size_t(i) - nr];
      tasks.push_back({SoftPass::VertexTriangle, si, sj});
      tasks.push_back({SoftPass::VertexTriangle, sj, si});
      if (in.edge_edge) tasks.push_back({SoftPass::EdgeEdge, std::min(si, sj), std::max(si, sj)});
      ++npairs;
    }
  }
  // self-contact: one body against itself, no broadphase pair
  if (in.self_contacts)
    for (int s = 0; s < int(in.soft.size()); ++s) {
      if (!usable(in.soft[std::size_t(s)])) continue;
      tasks.push_back({SoftPass::SelfVertexTriangle, s, s});
      if (in.edge_edge) tasks.push_back({SoftPass::EdgeEdge, s, s});
    }
}

}  // namespace

SoftDetectStats detect_soft_contacts(const SoftDetectInput& in, SoftDetectCache& cache, std::vector<SoftContact>& out) {
  const std::size_t ns = in.soft.size();
  const DetectInput& rg = in.rigid;
  const std::size_t nr = rg.body_shape && rg.shape_pose && rg.shapes ? rg.body_shape->size() : 0;
  const double thick = std::max(in.thickness, 0.0);

  // the soft bodies' geometry: trees refit (or built for new faces), normals, boxes
  cache.bodies.resize(ns);
  std::vector<std::uint8_t> built(ns, 0);
  tbb::parallel_for(std::size_t(0), ns, [&](std::size_t i) {
    built[i] = update_geometry(in.soft[i], in.k, in.max_depth, cache.bodies[i]) ? 1 : 0;
  });
  for (std::size_t i = 0; i < ns; ++i) {
    if (built[i]) ++cache.builds;
    else if (usable(in.soft[i]) && !in.soft[i].faces->empty()) ++cache.refits;
  }

  // candidate (rigid, soft) and (soft, soft) pairs
  cache.rigid_box.resize(nr);
  for (std::size_t r = 0; r < nr; ++r)
    cache.rigid_box[r] = (*rg.body_shape)[r] < 0 ? Aabb{(*rg.shape_pose)[r].p, (*rg.shape_pose)[r].p}  // no shape: no task
                                                 : rg.shapes->aabb((*rg.body_shape)[r], (*rg.shape_pose)[r], rg.margin);
  std::vector<SoftTask> tasks;
  SoftDetectStats stats;
  candidate_tasks(in, thick, cache, tasks, stats.pairs);

  // the kinds, each task into its own buffer
  static const ShapeLibrary kNoShapes;  // no rigid bodies: the ball is never used
  const VertexBall ball = vertex_ball(rg.shapes ? *rg.shapes : kNoShapes, thick);
  const SoftKindInput kin{&rg, &cache.rigid_box, &in.soft, &cache.bodies, &ball, thick};
  std::vector<std::vector<SoftContact>> found(tasks.size());
  tbb::parallel_for(std::size_t(0), tasks.size(), [&](std::size_t t) {
    const SoftTask& task = tasks[t];
    QueryScratch scratch;
    switch (task.pass) {
      case SoftPass::RigidVertex: rigid_vertex_contacts(kin, task.i, task.j, scratch, found[t]); break;
      case SoftPass::RigidTriangle: rigid_triangle_contacts(kin, task.i, task.j, scratch, found[t]); break;
      case SoftPass::VertexTriangle: vertex_triangle_contacts(kin, task.i, task.j, scratch, found[t]); break;
      case SoftPass::SelfVertexTriangle: self_vertex_triangle_contacts(kin, task.i, scratch, found[t]); break;
      case SoftPass::EdgeEdge: edge_edge_contacts(kin, task.i, task.j, scratch, found[t]); break;
    }
  });

  const std::size_t start = out.size();
  for (const std::vector<SoftContact>& f : found) out.insert(out.end(), f.begin(), f.end());
  std::sort(out.begin() + std::ptrdiff_t(start), out.end(), soft_contact_less);
  for (std::size_t i = start; i < out.size(); ++i) switch (out[i].kind) {
      case SoftContactKind::RigidVertex: ++stats.rigid_vertex; break;
      case SoftContactKind::RigidTriangle: ++stats.rigid_triangle; break;
      case SoftContactKind::VertexTriangle:
        ++stats.vertex_triangle;
        if (out[i].a.soft == out[i].b.soft) ++stats.self_vertex_triangle;
        break;
      case SoftContactKind::EdgeEdge: ++stats.edge_edge; break;
    }
  return stats;
}

SoftDetectStats detect_soft_contacts(const SoftDetectInput& in, std::vector<SoftContact>& out) {
  SoftDetectCache cache;
  return detect_soft_contacts(in, cache, out);
}

}  // namespace coulomb
