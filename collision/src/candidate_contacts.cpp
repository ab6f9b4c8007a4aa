// CandidateContacts (candidate_contacts.h): seed 004's candidate lists and the CCD over them.
#include <coulomb/candidate_contacts.h>
#include <coulomb/ccd.h>

#include <algorithm>
#include <optional>

namespace coulomb {

void CandidateContacts::clear() {
  active_ = false;
  surfaces_.clear();
  rigid_body_.clear();
  rigid_local_.clear();
  rigid_x0_.clear();
  rigid_v_.clear();
  rigid_faces_.clear();
  first_particle_.clear();
  returned_.clear();
  min_toi_ = 1.0;
}

void CandidateContacts::begin(const ShapeLibrary& shapes, const std::vector<CandidateSoftSurface>& soft,
                              const std::vector<CandidateRigidBody>& rigid, double dt) {
  clear();
  ns_ = int(soft.size());
  for (std::size_t i = 0; i < rigid.size(); ++i) {
    const CandidateRigidBody& b = rigid[i];
    if (b.shape < 0) continue;  // no shape: collides with nothing
    std::vector<Vec3> local;
    std::vector<std::array<int, 3>> faces;
    shape_triangles(shapes, b.shape, local, faces);
    if (faces.empty()) continue;
    std::vector<Vec3> x0(local.size()), v(local.size());
    for (std::size_t k = 0; k < local.size(); ++k) {
      x0[k] = b.shape_pose.apply(local[k]);
      v[k] = b.v + b.w.cross(x0[k] - b.com);
    }
    rigid_body_.push_back(int(i));
    rigid_local_.push_back(std::move(local));
    rigid_x0_.push_back(std::move(x0));
    rigid_v_.push_back(std::move(v));
    rigid_faces_.push_back(std::move(faces));
  }
  for (const CandidateSoftSurface& s : soft) {
    CandidateSurface c;
    c.x = s.x;
    c.v = s.v;
    c.faces = s.faces;
    c.soft = int(first_particle_.size());
    surfaces_.push_back(c);
    first_particle_.push_back(s.first_particle);
  }
  for (std::size_t r = 0; r < rigid_body_.size(); ++r) {
    CandidateSurface c;
    c.x = &rigid_x0_[r];
    c.v = &rigid_v_[r];
    c.faces = &rigid_faces_[r];
    c.rigid = rigid_body_[r];
    c.fixed = rigid[std::size_t(rigid_body_[r])].fixed;
    c.self = false;
    surfaces_.push_back(c);
  }
  options_ = CandidateOptions{};
  options_.dt = dt;
  build_candidates(surfaces_, options_, lists_);
  active_ = true;
}

// up to three vertices of surface s with weights w, and their weighted start position
CandidateSide CandidateContacts::side(int s, std::array<int, 3> v, const std::array<double, 3>& w, int n) const {
  CandidateSide out;
  out.surface = s;
  out.vertex = v;
  out.count = n;
  for (int i = 0; i < n; ++i) out.weight[std::size_t(i)] = w[std::size_t(i)];
  if (s >= ns_) {  // a rigid side's point, summed in vertex order
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < n; ++i) p += w[std::size_t(i)] * (*surfaces_[std::size_t(s)].x)[std::size_t(v[std::size_t(i)])];
    out.start = p;
  }
  return out;
}

int CandidateContacts::find(const Vec3* particles, const std::vector<Pose>& shape_end, std::vector<CandidateHit>& out) {
  // end positions of every surface's vertices
  x_now_.resize(surfaces_.size());
  std::vector<const std::vector<Vec3>*> x_ptr(surfaces_.size());
  for (int i = 0; i < ns_; ++i) {
    const Vec3* first = particles + first_particle_[std::size_t(i)];
    x_now_[std::size_t(i)].assign(first, first + surfaces_[std::size_t(i)].x->size());
  }
  for (std::size_t r = 0; r < rigid_body_.size(); ++r) {
    const Pose& pose = shape_end[std::size_t(rigid_body_[r])];
    std::vector<Vec3>& x = x_now_[std::size_t(ns_) + r];
    x.clear();
    for (const Vec3& l : rigid_local_[r]) x.push_back(pose.apply(l));
  }
  for (std::size_t i = 0; i < surfaces_.size(); ++i) x_ptr[i] = &x_now_[i];
  recheck_candidates(surfaces_, x_ptr, options_, lists_);  // s.5.2: vertices that left their boxes
  min_toi_ = 1.0;
  const auto x0 = [&](int s, int v) { return (*surfaces_[std::size_t(s)].x)[std::size_t(v)]; };
  const auto x1 = [&](int s, int v) { return x_now_[std::size_t(s)][std::size_t(v)]; };
  int added = 0;
  for (const VertexFaceCandidate& c : lists_.vf) {
    const std::array<int, 3>& f = (*surfaces_[std::size_t(c.fs)].faces)[std::size_t(c.f)];
    const std::optional<CcdHit> hit = ccd_vertex_face(x0(c.vs, c.v), x0(c.fs, f[0]), x0(c.fs, f[1]), x0(c.fs, f[2]),
                                                      x1(c.vs, c.v), x1(c.fs, f[0]), x1(c.fs, f[1]), x1(c.fs, f[2]));
    if (hit) min_toi_ = std::min(min_toi_, hit->toi);
    if (!hit || ++returned_[{0, c.vs, c.v, c.fs, c.f, 0, 0}] > kMaxReturns) continue;
    // a: the triangle, b: the vertex; the normal from the face to the vertex
    out.push_back({side(c.fs, f, hit->wb, 3), side(c.vs, {c.v, -1, -1}, {1.0, 0.0, 0.0}, 1), hit->normal});
    ++added;
  }
  for (const EdgeEdgeCandidate& c : lists_.ee) {
    const std::optional<CcdHit> hit = ccd_edge_edge(x0(c.as, c.a0), x0(c.as, c.a1), x0(c.bs, c.b0), x0(c.bs, c.b1),
                                                    x1(c.as, c.a0), x1(c.as, c.a1), x1(c.bs, c.b0), x1(c.bs, c.b1));
    if (hit) min_toi_ = std::min(min_toi_, hit->toi);
    if (!hit || ++returned_[{1, c.as, c.a0, c.a1, c.bs, c.b0, c.b1}] > kMaxReturns) continue;
    // a: edge b, b: edge a; the normal from edge b to edge a
    out.push_back({side(c.bs, {c.b0, c.b1, -1}, hit->wb, 2), side(c.as, {c.a0, c.a1, -1}, hit->wa, 2), hit->normal});
    ++added;
  }
  return added;
}

}  // namespace coulomb
