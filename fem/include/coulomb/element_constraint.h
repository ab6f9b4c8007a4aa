// The constraint (compliance) form of one linear tetrahedron, for the position-level solver.
//
// Seed 002 s.2.3: an elastic energy written as U = 1/2 c(x)^T C c(x) (eq. 15), with C a
// stiffness, is integrated implicitly by the regularised constraint c(x) + C^{-1} gamma = 0
// (eq. 16), whose Schur complement is N = h^2 J M^{-1} J^T + C^{-1} (eq. 18, algorithm 3).
// Each element therefore hands the solver its constraint value c, its Jacobian J = dc/dx and
// its compliance C^{-1}. Seed 002 s.3.3 (eq. 34) and App. A give the St. Venant-Kirchhoff
// form c = sqrt(V) vec6(E); seed 003 s.9.2 gives the same construction for linear materials
// (eq. 85) and principal-stretch hyperelasticity. Stable Neo-Hookean uses the two-constraint
// form of Macklin & Mueller 2021 ("A Constraint-based Formulation of Stable Neo-Hookean
// Materials").
//
// Layout: F = Ds Dm^{-1}, Ds = [x1 - x0 | x2 - x0 | x3 - x0] (seed 002 algorithm 3); columns
// 3i..3i+2 of J belong to vertex i. Strain 6-vectors are (S11, S22, S33, S23, S13, S12) with
// tensor (not engineering) shear components. The rest volume V0 is used throughout (total
// Lagrangian), so 1/2 c^T C c = V0 Psi(F) exactly for Linear, Corotational and StVK.
#pragma once
#include <coulomb/materials.h>

#include <array>

namespace coulomb {

using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat6x12 = Eigen::Matrix<double, 6, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;

struct ElementConstraint {
  int rows = 0;                   // meaningful rows: 6 (strain forms) or 3 (Neo-Hookean)
  Vec6 c = Vec6::Zero();          // constraint value (unit: sqrt(m^3) for strain rows)
  Mat6x12 J = Mat6x12::Zero();    // dc/dx
  Mat6 compliance = Mat6::Zero(); // C^{-1}; the element energy is 1/2 c^T C c
};

// F = Ds Dm^{-1} for the current vertex positions x (seed 002 algorithm 3).
Mat3 deformation_gradient(const std::array<Vec3, 4>& x, const Mat3& Dm_inv);

// (S11, S22, S33, S23, S13, S12) of a symmetric matrix (tensor shear components).
Vec6 strain_vec6(const Mat3& S);

// d vec6(sym(A^T F(x))) / dx for a fixed matrix A: the helper matrices Lambda_n, Lambda_s of
// seed 002 App. A (eq. 36-38, built from the rows y_i of Dm^{-1}, y_0 = -y_1 - y_2 - y_3)
// multiplied block by block by A^T as in eq. 39. A = F gives the Green strain Jacobian
// (d vec6(E), since dE = sym(F^T dF)), A = I the small strain one, A = R (held fixed) the
// corotational one.
Mat6x12 strain_jacobian(const Mat3& Dm_inv, const Mat3& A);

// The 6x6 stiffness C of the strain 6-vector, so that 1/2 s^T C s = mu S:S + lambda/2 tr(S)^2:
// normal block [[l+2m, l, l], [l, l+2m, l], [l, l, l+2m]], shear block 4 mu I (tensor shear).
Mat6 strain_stiffness(const Lame& lame);
// Its inverse, in closed form (needs mu > 0 and 2 mu + 3 lambda > 0, as lame_from_young gives).
Mat6 strain_compliance(const Lame& lame);

// Whether element_constraint can represent the model: a valid Lame pair (mu > 0 and a positive
// bulk modulus), and lambda > 0 for Neo-Hookean (alpha = 1 + mu / lambda; the World passes it
// stable_neo_hookean_lame, whose lambda + mu is positive for every valid Poisson ratio).
// element_constraint returns rows = 0 for an unsupported pair.
bool constraint_form_supported(MaterialModel model, const Lame& lame);

// The constraint form of one tetrahedron with rest volume V0 = rest_volume:
//  StVK:   6 rows, c = sqrt(V0) vec6(E), E = (F^T F - I)/2 (seed 002 eq. 34). Because V0 is the
//          rest volume, the grad V term of App. A eq. 39 vanishes and J = sqrt(V0) Lambda F^T.
//  Linear: 6 rows, c = sqrt(V0) vec6(sym(F) - I); J = sqrt(V0) Lambda is constant in x.
//  Corotational: 6 rows, c = sqrt(V0) vec6(sym(R^T F) - I), R = polar_rotation(F). J treats R
//          as fixed (J = sqrt(V0) Lambda R^T), the usual corotational linearisation; the dR
//          term it drops contributes nothing to the force J^T C c (R^T F is symmetric and its
//          stress commutes with it), so forces are exact, only the Schur complement is approximate.
//  All three: compliance = strain_compliance(lame), and 1/2 c^T C c = V0 Psi(F).
//  NeoHookean: 3 rows in the compliance form of seed 003 eq. 79-84 and App. B: s = the signed
//          principal stretches of F, c = (V0 H)^-1 V0 dPsi/ds, compliance = (V0 H)^-1 with
//          H = d2Psi/ds2 projected to be positive definite (absolute eigenvalues, at least mu),
//          J = ds/dx.
//          Then -J^T C c = -V0 J^T dPsi/ds is the exact elastic force, c = 0 at rest, and
//          1/2 c^T C c is the local quadratic model of V0 Psi.
void element_constraint(MaterialModel model, const Lame& lame, const std::array<Vec3, 4>& x,
                        const Mat3& Dm_inv, double rest_volume, ElementConstraint& out);

// Stable Neo-Hookean in principal stretches s (seed 003 App. B): g = dPsi/ds and the unprojected
// H = d2Psi/ds2.
void neo_hookean_stretch_derivatives(const Lame& lame, const Vec3& s, Vec3& g, Mat3& H);

// Elastic forces f = -V0 dPsi(F(x))/dx (12-vector, vertex i at 3i..3i+2): H = -V0 P Dm^{-T}
// gives f1, f2, f3 as its columns and f0 = -(f1 + f2 + f3).
void element_forces(MaterialModel model, const Lame& lame, const std::array<Vec3, 4>& x,
                    const Mat3& Dm_inv, double rest_volume, Vec12& f);

}  // namespace coulomb
