// Vertex-face and edge-edge CCD along linear trajectories (seed 004 s.5.2).
//
// Why three searches (ccd.h): the coplanarity cubic finds exact crossings (distance 0) with a
// bracketing solver, but it says nothing about passes within the thickness that never become
// coplanar, and it vanishes identically for coplanar or parallel motion. Conservative
// advancement on the distance finds those, and is never late: the distance of two features whose
// vertices move linearly changes at most at L = the largest relative displacement of a vertex of
// one feature and a vertex of the other (a point of a feature is a fixed convex combination of its
// vertices), so advancing by (d - eta) / L never steps over the first contact. Its weakness (slow
// convergence when eta = 0, a slow approach, or a long glide at distance just above eta) is
// covered by the cubic for the first and by the termination tolerance for the others.
#include <coulomb/ccd.h>

#include <boost/math/policies/policy.hpp>
#include <boost/math/tools/toms748_solve.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coulomb {

namespace {

double clamp01(double x) { return std::min(1.0, std::max(0.0, x)); }

}  // namespace

// Ericson, Real-Time Collision Detection, s.5.1.5 (Voronoi regions of the triangle), with the
// weights of the closest point.
Closest closest_point_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  Closest r;
  r.pa = p;
  const auto finish = [&](double u, double v, double w) {
    r.wb = {u, v, w};
    r.pb = u * a + v * b + w * c;
    r.distance = (r.pa - r.pb).norm();
    return r;
  };
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return finish(1, 0, 0);
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return finish(0, 1, 0);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double v = d1 - d3 > 0 ? d1 / (d1 - d3) : 0.0;
    return finish(1 - v, v, 0);
  }
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return finish(0, 0, 1);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double w = d2 - d6 > 0 ? d2 / (d2 - d6) : 0.0;
    return finish(1 - w, 0, w);
  }
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
    const double den = (d4 - d3) + (d5 - d6);
    const double w = den > 0 ? (d4 - d3) / den : 0.0;
    return finish(0, 1 - w, w);
  }
  const double sum = va + vb + vc;
  if (!(sum > 0)) {  // degenerate (zero-area) triangle: the nearest of its three edges
    Closest best;
    best.distance = std::numeric_limits<double>::infinity();
    const Vec3* v[3] = {&a, &b, &c};
    for (int e = 0; e < 3; ++e) {
      const Closest s = closest_segment_segment(p, p, *v[e], *v[(e + 1) % 3]);
      if (s.distance < best.distance) {
        best = s;
        best.wb = {0, 0, 0};
        best.wb[std::size_t(e)] = s.wb[0];
        best.wb[std::size_t((e + 1) % 3)] = s.wb[1];
        best.wa = {1, 0, 0};
      }
    }
    return best;
  }
  const double v = vb / sum, w = vc / sum;
  return finish(1 - v - w, v, w);
}

// Ericson s.5.1.9 (closest points of two segments), degenerate segments included.
Closest closest_segment_segment(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s) {
  const Vec3 d1 = q - p, d2 = s - r, rr = p - r;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(rr);
  const double tiny = 1e-300;
  double sa = 0, ub = 0;
  if (a <= tiny && e <= tiny) {
    sa = ub = 0;
  } else if (a <= tiny) {
    ub = clamp01(f / e);
  } else {
    const double c = d1.dot(rr);
    if (e <= tiny) {
      sa = clamp01(-c / a);
    } else {
      const double b = d1.dot(d2);
      const double den = a * e - b * b;
      sa = den > 1e-14 * a * e ? clamp01((b * f - c * e) / den) : 0.0;  // parallel: any s, take 0
      ub = (b * sa + f) / e;
      if (ub < 0) {
        ub = 0;
        sa = clamp01(-c / a);
      } else if (ub > 1) {
        ub = 1;
        sa = clamp01((b - c) / a);
      }
    }
  }
  Closest out;
  out.wa = {1 - sa, sa, 0};
  out.wb = {1 - ub, ub, 0};
  out.pa = p + sa * d1;
  out.pb = r + ub * d2;
  out.distance = (out.pa - out.pb).norm();
  return out;
}

namespace {

// The four moving vertices of a pair and how to measure it at time t.
struct MovingPair {
  bool edge_edge = false;
  std::array<Vec3, 4> x0, dx;  // start positions and displacements over the step
  Vec3 at(int i, double t) const { return x0[std::size_t(i)] + t * dx[std::size_t(i)]; }
  Closest closest(double t) const {
    const Vec3 a = at(0, t), b = at(1, t), c = at(2, t), d = at(3, t);
    return edge_edge ? closest_segment_segment(a, b, c, d) : closest_point_triangle(a, b, c, d);
  }
  // edge vectors whose triple product is the coplanarity function: vf (p; a, b, c): (b-a, c-a, p-a);
  // ee (p, q; r, s): (q-p, s-r, r-p)
  void triple(int which, double t, Vec3& e1, Vec3& e2, Vec3& e3) const {
    (void)which;
    if (edge_edge) {
      e1 = at(1, t) - at(0, t);
      e2 = at(3, t) - at(2, t);
      e3 = at(2, t) - at(0, t);
    } else {
      e1 = at(2, t) - at(1, t);
      e2 = at(3, t) - at(1, t);
      e3 = at(0, t) - at(1, t);
    }
  }
  double lipschitz() const {  // largest relative displacement between a vertex of a and one of b
    double l = 0;
    const int na = edge_edge ? 2 : 1;
    for (int i = 0; i < na; ++i)
      for (int j = na; j < 4; ++j) l = std::max(l, (dx[std::size_t(i)] - dx[std::size_t(j)]).norm());
    return l;
  }
  double scale() const {  // size of the features and their motion, for relative tolerances
    double s = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = i + 1; j < 4; ++j) s = std::max(s, (x0[std::size_t(i)] - x0[std::size_t(j)]).norm());
    return s + lipschitz();
  }
};

// Cubic coefficients c0 + c1 t + c2 t^2 + c3 t^3 of the triple product (e1 x e2) . e3 with
// e_i(t) = u_i + t w_i.
std::array<double, 4> coplanarity_cubic(const MovingPair& m) {
  Vec3 u1, u2, u3, v1, v2, v3;
  m.triple(0, 0.0, u1, u2, u3);
  m.triple(0, 1.0, v1, v2, v3);
  const Vec3 w1 = v1 - u1, w2 = v2 - u2, w3 = v3 - u3;
  return {u1.cross(u2).dot(u3), w1.cross(u2).dot(u3) + u1.cross(w2).dot(u3) + u1.cross(u2).dot(w3),
          w1.cross(w2).dot(u3) + w1.cross(u2).dot(w3) + u1.cross(w2).dot(w3), w1.cross(w2).dot(w3)};
}

// Roots of the cubic in [0, 1], ascending: the derivative's roots split [0, 1] into monotone
// pieces, each with a sign change is bracketed and solved with toms748 to `tol`. Returns the
// lower end of each final bracket (never later than the root). Empty when the cubic vanishes
// identically (relative to `size3`, the scale of its coefficients).
std::vector<double> cubic_roots01(const std::array<double, 4>& c, double size3, double tol) {
  std::vector<double> roots;
  const double cmax = std::max({std::abs(c[0]), std::abs(c[1]), std::abs(c[2]), std::abs(c[3])});
  if (!(cmax > 1e-15 * size3)) return roots;  // coplanar (or parallel) all along: no isolated root
  const auto f = [&c](double t) { return ((c[3] * t + c[2]) * t + c[1]) * t + c[0]; };
  std::vector<double> cuts{0.0};
  // derivative 3 c3 t^2 + 2 c2 t + c1
  const double qa = 3 * c[3], qb = 2 * c[2], qc = c[1];
  if (std::abs(qa) > 1e-300) {
    const double disc = qb * qb - 4 * qa * qc;
    if (disc >= 0) {
      const double sq = std::sqrt(disc);
      const double q = -0.5 * (qb + (qb >= 0 ? sq : -sq));  // stable quadratic roots
      double r1 = q / qa, r2 = q != 0 ? qc / q : r1;
      if (r1 > r2) std::swap(r1, r2);
      for (double r : {r1, r2})
        if (r > 0 && r < 1) cuts.push_back(r);
    }
  } else if (std::abs(qb) > 1e-300) {
    const double r = -qc / qb;
    if (r > 0 && r < 1) cuts.push_back(r);
  }
  cuts.push_back(1.0);
  std::sort(cuts.begin(), cuts.end());
  using namespace boost::math::policies;
  using NoThrow = policy<evaluation_error<ignore_error>, domain_error<ignore_error>, overflow_error<ignore_error>>;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const double lo = cuts[i], hi = cuts[i + 1];
    const double flo = f(lo), fhi = f(hi);
    if (flo == 0) {
      if (roots.empty() || roots.back() < lo) roots.push_back(lo);
      continue;
    }
    if (fhi == 0) {
      roots.push_back(hi);
      continue;
    }
    if ((flo < 0) == (fhi < 0)) continue;
    boost::uintmax_t iters = 100;
    const auto bracket = boost::math::tools::toms748_solve(
        f, lo, hi, flo, fhi, [tol](double a, double b) { return std::abs(b - a) <= tol; }, iters, NoThrow());
    roots.push_back(bracket.first);
  }
  return roots;
}

// The contact normal at the toi (ccd.h): the closest points' direction, or the feature plane's
// normal oriented to the side feature a was on at t = 0 when they touch.
Vec3 contact_normal(const MovingPair& m, const Closest& c, double toi, double scale) {
  if (c.distance > 1e-12 * scale) return (c.pa - c.pb) / c.distance;
  Vec3 e1, e2, e3;
  m.triple(0, toi, e1, e2, e3);
  Vec3 n = e1.cross(e2);
  if (!(n.norm() > 1e-300)) {  // parallel edges or a degenerate triangle: the start offset
    const Closest c0 = m.closest(0.0);
    n = c0.pa - c0.pb;
    if (!(n.norm() > 1e-300)) n = Vec3::UnitZ();
    return n.normalized();
  }
  n.normalize();
  // orient: a on the positive side at the start (for edge-edge e3 = r - p points from a to b)
  Vec3 s1, s2, s3;
  m.triple(0, 0.0, s1, s2, s3);
  double side = s1.cross(s2).dot(s3);
  if (m.edge_edge) side = -side;
  if (side == 0) {
    const Closest c0 = m.closest(0.0);
    side = (c0.pa - c0.pb).dot(n);
  }
  return side < 0 ? Vec3(-n) : n;
}

std::optional<CcdHit> ccd(const MovingPair& m, const CcdOptions& opt) {
  const double eta = std::max(0.0, opt.thickness);
  const double L = m.lipschitz();
  const double scale = m.scale();
  const double tol_t = std::max(opt.time_tolerance, 1e-15);
  const double slack = opt.feature_tolerance * scale;  // distance counted as touching
  double toi = 2.0;  // none yet
  // touching at the start
  const Closest c0 = m.closest(0.0);
  if (c0.distance <= eta + slack) {
    toi = 0.0;
  } else if (c0.distance - eta - slack > L) {
    return std::nullopt;  // too far to meet in this step (the distance changes by at most L)
  } else {
    // the coplanarity roots (crossings)
    const double size3 = scale * scale * scale;
    for (double r : cubic_roots01(coplanarity_cubic(m), size3, tol_t)) {
      const Closest c = m.closest(r);
      if (c.distance <= eta + slack + L * tol_t) {
        toi = r;
        break;
      }
    }
    // conservative advancement on the distance (never steps over the first time d = eta)
    if (L > 0) {
      double t = 0.0, d = c0.distance;
      for (int it = 0; it < opt.max_iterations && t < toi; ++it) {
        const double step = (d - eta - slack) / L;
        if (step <= tol_t) {  // within L tol_t of the thickness: contact
          toi = std::min(toi, t);
          break;
        }
        t += step;
        if (t > 1.0) break;
        d = m.closest(t).distance;
        if (it + 1 == opt.max_iterations) toi = std::min(toi, t);  // at the cap: report (conservative)
      }
      if (toi > 1.0) {  // the end of the step (advancement may stop just short of it)
        const Closest c1 = m.closest(1.0);
        if (c1.distance <= eta + slack) toi = 1.0;
      }
    }
  }
  if (toi > 1.0) return std::nullopt;
  const Closest c = m.closest(toi);
  CcdHit hit;
  hit.toi = toi;
  hit.wa = c.wa;
  hit.wb = c.wb;
  hit.pa = c.pa;
  hit.pb = c.pb;
  hit.distance = c.distance;
  hit.normal = contact_normal(m, c, toi, scale);
  return hit;
}

}  // namespace

std::optional<CcdHit> ccd_vertex_face(const Vec3& p0, const Vec3& a0, const Vec3& b0, const Vec3& c0,
                                      const Vec3& p1, const Vec3& a1, const Vec3& b1, const Vec3& c1,
                                      const CcdOptions& opt) {
  MovingPair m;
  m.edge_edge = false;
  m.x0 = {p0, a0, b0, c0};
  m.dx = {p1 - p0, a1 - a0, b1 - b0, c1 - c0};
  return ccd(m, opt);
}

std::optional<CcdHit> ccd_edge_edge(const Vec3& p0, const Vec3& q0, const Vec3& r0, const Vec3& s0,
                                    const Vec3& p1, const Vec3& q1, const Vec3& r1, const Vec3& s1,
                                    const CcdOptions& opt) {
  MovingPair m;
  m.edge_edge = true;
  m.x0 = {p0, q0, r0, s0};
  m.dx = {p1 - p0, q1 - q0, r1 - r0, s1 - s0};
  return ccd(m, opt);
}

}  // namespace coulomb
