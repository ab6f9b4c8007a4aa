// Bullet's manifolds as a Coulomb contact problem (bullet_contacts.h).
#include "bullet_contacts.h"

#include <coulomb/integrators.h>

#include <algorithm>
#include <cmath>

namespace bench {

using coulomb::Vec3;

void read_contacts(BulletWorld& bw, const BulletSettings& settings, BulletContacts& out) {
  out.contacts.clear();
  out.coeffs.clear();
  out.impulses.clear();
  out.on_a.clear();
  out.on_b.clear();
  out.max_penetration = 0.0;
  btDispatcher& d = *bw.world().getDispatcher();
  for (int m = 0; m < d.getNumManifolds(); ++m) {
    const btPersistentManifold& pm = *d.getManifoldByIndexInternal(m);
    const btCollisionObject* o0 = pm.getBody0();
    const btCollisionObject* o1 = pm.getBody1();
    if (o0->isStaticOrKinematicObject() && o1->isStaticOrKinematicObject()) continue;  // Bullet skips these too
    const int i0 = o0->getUserIndex(), i1 = o1->getUserIndex();
    for (int j = 0; j < pm.getNumContacts(); ++j) {
      const btManifoldPoint& p = pm.getContactPoint(j);
      // impulse on body 0: normal along n_B (from body 1 to body 0), friction along the
      // lateral directions (Bullet's friction rows act on body 0 along +dir)
      Vec3 p0 = p.m_appliedImpulse * cv(p.m_normalWorldOnB) + p.m_appliedImpulseLateral1 * cv(p.m_lateralFrictionDir1);
      if (settings.two_friction_directions) p0 += p.m_appliedImpulseLateral2 * cv(p.m_lateralFrictionDir2);
      // Coulomb: a < b, the normal points from a to b and lambda acts on b
      coulomb::Contact c;
      const bool zero_is_b = i1 < i0;
      c.body_a = zero_is_b ? i1 : i0;
      c.body_b = zero_is_b ? i0 : i1;
      c.normal = zero_is_b ? cv(p.m_normalWorldOnB) : Vec3(-cv(p.m_normalWorldOnB));
      const Vec3 on_b = zero_is_b ? p0 : Vec3(-p0);
      const Vec3 on0 = cv(p.getPositionWorldOnA()), on1 = cv(p.getPositionWorldOnB());
      c.point = 0.5 * (on0 + on1);
      out.on_a.push_back(zero_is_b ? on1 : on0);
      out.on_b.push_back(zero_is_b ? on0 : on1);
      c.depth = -p.getDistance();
      Vec3 t, s;
      coulomb::tangent_basis(c.normal, t, s);
      out.contacts.push_back(c);
      out.impulses.emplace_back(c.normal.dot(on_b), t.dot(on_b), s.dot(on_b), 0.0);
      coulomb::ContactCoefficients k;
      k.mu = Vec3(p.m_combinedFriction, p.m_combinedFriction, 0.0);
      k.restitution = p.m_combinedRestitution;
      out.coeffs.push_back(k);
      out.max_penetration = std::max(out.max_penetration, c.depth);
    }
  }
}

void bullet_problem(BulletWorld& bw, const coulomb::RigidModel& model, const coulomb::RigidState& before,
                    const BulletContacts& contacts, coulomb::ContactProblem& out, std::vector<coulomb::Vec6>& u_free) {
  const btContactSolverInfo& info = bw.solver_info();
  const double dt = bw.dt();
  coulomb::free_velocities(model, before, cv(bw.world().getGravity()), dt, true, u_free);

  out.inv_mass = model.inv_mass;
  out.inv_inertia.resize(std::size_t(model.size()));
  for (int i = 0; i < model.size(); ++i) out.inv_inertia[std::size_t(i)] = coulomb::world_inv_inertia(model, before, i);
  out.clear_contacts();
  for (std::size_t k = 0; k < contacts.contacts.size(); ++k) {
    const coulomb::Contact& c = contacts.contacts[k];
    const auto a = std::size_t(c.body_a), b = std::size_t(c.body_b);
    Vec3 t, s;
    coulomb::tangent_basis(c.normal, t, s);
    coulomb::Mat46 Ja, Jb;
    coulomb::contact_jacobian(c.normal, t, s, contacts.on_a[k] - before.x[a], contacts.on_b[k] - before.x[b], Ja, Jb);

    coulomb::Vec6 ua, ub;
    ua << before.v[a], before.w[a];
    ub << before.v[b], before.w[b];
    const double v_pre = (Ja * ua + Jb * ub)[0];
    const double gap = -c.depth;
    coulomb::Vec4 bias = Ja * u_free[a] + Jb * u_free[b];
    // restitutionCurve: e * v_N^- when |v_N^-| reaches the threshold (v+ >= -e v-)
    if (std::abs(v_pre) >= info.m_restitutionVelocityThreshold && v_pre < 0.0)
      bias[0] += contacts.coeffs[k].restitution * v_pre;
    if (gap > 0.0)
      bias[0] += gap / dt;
    else if (!info.m_splitImpulse || gap > info.m_splitImpulsePenetrationThreshold)
      bias[0] += info.m_erp * gap / dt;
    out.add_contact(c.body_a, c.body_b, Ja, Jb, bias, contacts.coeffs[k].mu, c.point);
  }
  out.finalize();
}

}  // namespace bench
