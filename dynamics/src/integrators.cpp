#include <coulomb/integrators.h>

namespace coulomb {

Eigen::Vector4d quaternion_rate(const Quat& Q, const Vec3& w) {
  // seed 000 eq. 65 with (phi, psi, theta, xi) = (w, x, y, z)
  const double a = Q.w(), b = Q.x(), c = Q.y(), d = Q.z();
  Eigen::Matrix<double, 4, 3> G;
  G << -b, -c, -d,
        a,  d, -c,
       -d,  a,  b,
        c, -b,  a;
  return 0.5 * G * w;
}

void integrate_positions(const RigidModel& m, RigidState& s, double h, const std::vector<std::uint8_t>* still) {
  const std::vector<std::uint8_t>& hold = still ? *still : m.fixed;
  for (int i = 0; i < m.size(); ++i) {
    const auto k = std::size_t(i);
    if (hold[k] && !m.kinematic[k]) continue;  // a kinematic body moves with its set velocity
    s.x[k] += h * s.v[k];
    const Eigen::Vector4d dq = h * quaternion_rate(s.q[k], s.w[k]);  // eq. 67
    Quat& Q = s.q[k];
    Q = Quat(Q.w() + dq[0], Q.x() + dq[1], Q.y() + dq[2], Q.z() + dq[3]);
    Q.normalize();
  }
}

void free_velocities(const RigidModel& m, const RigidState& s, const Vec3& gravity, double h,
                     bool implicit_gyroscopic, std::vector<Vec6>& u_free, const std::vector<std::uint8_t>* still,
                     const std::vector<Vec6>* wrench) {
  const std::vector<std::uint8_t>& hold = still ? *still : m.fixed;
  u_free.resize(std::size_t(m.size()));
  for (int i = 0; i < m.size(); ++i) {
    const auto k = std::size_t(i);
    Vec6& u = u_free[k];
    if (hold[k]) {  // a kinematic body keeps the velocity it was given
      if (m.kinematic[k]) u << s.v[k], s.w[k];
      else u.setZero();
      continue;
    }
    u.head<3>() = s.v[k] + h * gravity;
    const Quat& Q = s.q[k];
    const Vec3 I = m.inertia[k];
    const Vec3 w1 = Q.conjugate() * s.w[k];  // body frame, where I is diagonal
    Vec3 w2;
    if (implicit_gyroscopic) {
      // one Newton step on f(w2) = I (w2 - w1) + h w2 x I w2 from w2 = w1
      const Vec3 Iw = I.cwiseProduct(w1);
      const Vec3 f = h * w1.cross(Iw);
      const Mat3 J = Mat3(I.asDiagonal()) + h * (skew(w1) * I.asDiagonal() - skew(Iw));
      w2 = w1 - J.partialPivLu().solve(f);
    } else {
      // explicit gyroscopic torque -w x I w (eq. 61)
      w2 = w1 - h * I.cwiseInverse().cwiseProduct(w1.cross(I.cwiseProduct(w1)));
    }
    u.tail<3>() = Q * w2;
    if (wrench) {  // h M^-1 (f, tau) of the applied loads
      const Vec6& f = (*wrench)[k];
      u.head<3>() += h * m.inv_mass[k] * f.head<3>();
      u.tail<3>() += h * (Q * m.inv_inertia[k].cwiseProduct(Q.conjugate() * f.tail<3>()));
    }
  }
}

void apply_velocities(const RigidModel& m, const std::vector<Vec6>& u_free, const std::vector<Vec6>& dw, RigidState& s,
                      const std::vector<std::uint8_t>* still) {
  const std::vector<std::uint8_t>& hold = still ? *still : m.fixed;
  for (int i = 0; i < m.size(); ++i) {
    const auto k = std::size_t(i);
    if (hold[k]) continue;
    const Vec6 u = u_free[k] + dw[k];
    s.v[k] = u.head<3>();
    s.w[k] = u.tail<3>();
  }
}

}  // namespace coulomb

namespace coulomb {

void apply_displacements(const RigidModel& m, const std::vector<Vec6>& dq, RigidState& s,
                         const std::vector<std::uint8_t>* still) {
  const std::vector<std::uint8_t>& hold = still ? *still : m.fixed;
  for (int i = 0; i < m.size(); ++i) {
    const auto k = std::size_t(i);
    if (hold[k]) continue;
    s.x[k] += dq[k].head<3>();
    const Eigen::Vector4d d = quaternion_rate(s.q[k], dq[k].tail<3>());  // Gamma(Q) dtheta, eq. 65-67
    Quat& Q = s.q[k];
    Q = Quat(Q.w() + d[0], Q.x() + d[1], Q.y() + d[2], Q.z() + d[3]);
    Q.normalize();
  }
}

}  // namespace coulomb
