// Assembly of the seed 002 position-level problem from the World's bodies and contacts.
#include <coulomb/integrators.h>
#include <coulomb/position_assembly.h>

namespace coulomb {

std::vector<int> particle_offsets(const std::vector<SoftBody>& soft) {
  std::vector<int> base(soft.size() + 1, 0);
  for (std::size_t i = 0; i < soft.size(); ++i) base[i + 1] = base[i] + soft[i].vertex_count();
  return base;
}

namespace {

// A collision-side point as a solver side: a rigid side keeps its lever arm from the centre of
// mass at q^l (position_problem.h).
PbdSide to_side(const ContactSide& s, const RigidState& state, const std::vector<int>& base) {
  PbdSide out;
  if (s.rigid >= 0) {
    out.rigid = s.rigid;
    out.anchor = s.point - state.x[std::size_t(s.rigid)];
    return out;
  }
  for (int i = 0; i < 3; ++i)
    if (s.vertex[std::size_t(i)] >= 0) out.particle[std::size_t(i)] = base[std::size_t(s.soft)] + s.vertex[std::size_t(i)];
  out.weight = s.weight;
  return out;
}

}  // namespace

void assemble_position_problem(const PositionAssemblyInput& in, PositionProblem& out) {
  const RigidModel& m = *in.model;
  const RigidState& s = *in.state;
  const std::vector<SoftBody>& soft = *in.soft;
  const double h = in.dt;
  out = PositionProblem{};
  out.dt = h;

  // rigid DOFs: v~ then q~ (seed 002 eq. 8, s.3.2)
  std::vector<Vec6> u;
  free_velocities(m, s, in.gravity, h, /*implicit_gyroscopic*/ true, u, nullptr, in.wrench);
  RigidState predicted = s;
  for (int i = 0; i < m.size(); ++i) {
    const auto k = std::size_t(i);
    if (m.fixed[k]) continue;
    predicted.v[k] = u[k].head<3>();
    predicted.w[k] = u[k].tail<3>();
  }
  integrate_positions(m, predicted, h);
  out.inv_mass = m.inv_mass;
  out.inv_inertia = m.inv_inertia;
  out.x0 = s.x;
  out.q0 = s.q;
  out.x = predicted.x;
  out.q = predicted.q;
  out.v = predicted.v;
  out.w = predicted.w;

  // particle DOFs (seed 003 s.9.3: lumped masses, identity kinematic map)
  const std::vector<int> base = particle_offsets(soft);
  const auto np = std::size_t(base.back());
  out.p_inv_mass.resize(np);
  out.px.resize(np);
  out.px0.resize(np);
  out.pv.resize(np);
  for (std::size_t b = 0; b < soft.size(); ++b) {
    const SoftBody& body = soft[b];
    for (int i = 0; i < body.vertex_count(); ++i) {
      const auto k = std::size_t(base[b] + i);
      const double im = body.inv_mass[std::size_t(i)];
      out.p_inv_mass[k] = im;
      out.pv[k] = im > 0.0 ? Vec3(body.v[std::size_t(i)] + h * in.gravity) : Vec3::Zero();
      if (im > 0.0 && in.vertex_force && !(*in.vertex_force)[b].empty())
        out.pv[k] += h * im * (*in.vertex_force)[b][std::size_t(i)];
      out.px0[k] = body.x[std::size_t(i)];
      out.px[k] = body.x[std::size_t(i)] + h * out.pv[k];
    }
    PbdMaterial mat;
    mat.model = body.model;
    mat.lame = body.lame;
    mat.damping = body.damping;
    out.materials.push_back(mat);
    for (std::size_t t = 0; t < body.mesh.tets.size(); ++t) {
      PbdElement e;
      for (int c = 0; c < 4; ++c) e.particle[std::size_t(c)] = base[b] + body.mesh.tets[t][std::size_t(c)];
      e.Dm_inv = body.Dm_inv[t];
      e.volume = body.rest_volume[t];
      e.material = int(b);
      out.elements.push_back(e);
    }
  }

  // rigid-rigid contacts: each surface point's lever arm at q^l (gap = -depth at q^l)
  if (in.contacts)
    for (std::size_t k = 0; k < in.contacts->size(); ++k) {
      const Contact& c = (*in.contacts)[k];
      PbdContact pc;
      pc.normal = c.normal;
      pc.a.rigid = c.body_a;
      pc.a.anchor = c.point + 0.5 * c.depth * c.normal - s.x[std::size_t(c.body_a)];
      pc.b.rigid = c.body_b;
      pc.b.anchor = c.point - 0.5 * c.depth * c.normal - s.x[std::size_t(c.body_b)];
      pc.mu = (*in.contact_mu)[k];
      out.contacts.push_back(pc);
    }
  if (in.soft_contacts)
    for (std::size_t k = 0; k < in.soft_contacts->size(); ++k) {
      const SoftContact& c = (*in.soft_contacts)[k];
      PbdContact pc;
      pc.a = to_side(c.a, s, base);
      pc.b = to_side(c.b, s, base);
      pc.normal = c.normal;
      pc.offset = c.offset;
      pc.mu = (*in.soft_contact_mu)[k];
      out.contacts.push_back(pc);
    }
  if (in.attachments)
    for (const VertexAttachment& a : *in.attachments) {
      PbdAttachment pa;
      pa.particle = base[std::size_t(a.soft)] + a.vertex;
      pa.target.rigid = a.body;
      pa.target.anchor = a.anchor;
      pa.target.body_frame = true;  // a glued point turns with its body
      out.attachments.push_back(pa);
    }
  if (in.joints) out.joints = *in.joints;
  out.size_impulses();
}

void store_position_result(const PositionProblem& p, RigidState& state, std::vector<SoftBody>& soft) {
  state.x = p.x;
  state.q = p.q;
  state.v = p.v;
  state.w = p.w;
  std::size_t k = 0;
  for (SoftBody& b : soft)
    for (int i = 0; i < b.vertex_count(); ++i, ++k) {
      b.x[std::size_t(i)] = p.px[k];
      b.v[std::size_t(i)] = p.pv[k];
    }
}

}  // namespace coulomb
