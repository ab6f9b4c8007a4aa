// Isotropic hyperelastic materials for constant-strain tetrahedra: the strain energy density
// Psi(F) and its gradient, the first Piola-Kirchhoff stress P = dPsi/dF, for four models.
//
// Why free functions over an enum: the element kernels (element_constraint.h) and the solvers
// switch once on the model per element batch, with no virtual calls in the inner loop
// (STYLE.md lessons 5 and 10). Every model is zero-energy and stress-free at F = I; all but
// Linear are also invariant under rotations F -> Q F.
#pragma once
#include <coulomb/math.h>

#include <optional>
#include <string_view>

namespace coulomb {

enum class MaterialModel { Linear, Corotational, StVK, NeoHookean };

// Scene names: "linear", "corotational", "stvk", "neo-hookean"; nullopt for anything else.
std::optional<MaterialModel> parse_material_model(std::string_view name);
// The scene name of a model (inverse of parse_material_model).
const char* material_model_name(MaterialModel model);

// Lame parameters (unit: Pa).
struct Lame {
  double mu = 0.0;      // shear modulus
  double lambda = 0.0;  // first Lame parameter (negative for a negative Poisson ratio)
};

// mu = E / (2 (1 + nu)), lambda = E nu / ((1 + nu)(1 - 2 nu)). Throws std::invalid_argument
// unless young > 0 and -1 < poisson < 0.5 (the range where mu > 0 and the bulk modulus
// lambda + 2 mu / 3 > 0, i.e. the material is stable).
Lame lame_from_young(double young, double poisson);

// The rotation R of the polar decomposition F = R S (S symmetric), from the SVD F = U Sigma V^T
// with R = U V^T. When det(U V^T) < 0 the column of U with the smallest singular value is
// negated, so R is always a proper rotation (det R = +1); for an inverted F (det F < 0) the
// symmetric factor S = R^T F then has one negative eigenvalue ("inversion-safe" polar
// decomposition, Irving et al. 2004).
Mat3 polar_rotation(const Mat3& F);

// F = U diag(s) V^T with U and V rotations, s decreasing in magnitude; an inverted F (det < 0)
// gets s[2] < 0 (the inversion-safe SVD of Irving et al. 2004). polar_rotation is U V^T.
void signed_svd(const Mat3& F, Mat3& U, Vec3& s, Mat3& V);

// Strain energy density Psi(F) (unit: J/m^3), zero at F = I:
//   Linear:       \epsilon = sym(F) - I,  \Psi = \mu \epsilon:\epsilon + \frac{\lambda}{2} tr(\epsilon)^2
//   Corotational: F = R S,  \Psi = \mu \|F - R\|_F^2 + \frac{\lambda}{2} tr(R^T F - I)^2
//   StVK:         E = \frac{1}{2}(F^T F - I),  \Psi = \mu E:E + \frac{\lambda}{2} tr(E)^2
//   NeoHookean:   stable Neo-Hookean (Smith et al. 2018; seed 003 App. B eq. 107 with
//                 C_1 = \mu/2, D_1 = \lambda/2, without the log term):
//                 \Psi = \frac{\mu}{2}(I_C - 3) + \frac{\lambda}{2}(J - \alpha)^2 - \frac{\lambda}{2}(1 - \alpha)^2,
//                 \alpha = 1 + \mu/\lambda, I_C = tr(F^T F), J = det F.
// NeoHookean is evaluated in the algebraically equal form
// \frac{\mu}{2}(I_C - 3) - \mu (J - 1) + \frac{\lambda}{2}(J - 1)^2, which needs no division
// by lambda (so lambda <= 0 is allowed here) and is defined for inverted F (J < 0).
double energy_density(MaterialModel model, const Lame& lame, const Mat3& F);

// First Piola-Kirchhoff stress P = dPsi/dF (unit: Pa):
//   Linear:       P = 2\mu \epsilon + \lambda tr(\epsilon) I
//   Corotational: P = 2\mu (F - R) + \lambda tr(R^T F - I) R   (the dR terms vanish)
//   StVK:         P = F (2\mu E + \lambda tr(E) I)
//   NeoHookean:   P = \mu F + \lambda (J - \alpha) \partial J/\partial F,  \partial J/\partial F = cof(F)
Mat3 first_piola(MaterialModel model, const Lame& lame, const Mat3& F);

// Stable Neo-Hookean linearises at F = I to Lame parameters (mu, lambda - mu), not (mu, lambda):
// dP = mu (dF + dF^T) + (lambda - mu) tr(dF) I. To make the NeoHookean model agree with the
// other three at small strain, pass it {mu, lambda + mu} (Smith et al. 2018 make the same
// re-parameterisation). This is the helper for that; the solvers decide whether to use it.
Lame stable_neo_hookean_lame(const Lame& small_strain);

// cof(F) = det(F) F^{-T}, computed from 2x2 minors so it is defined for singular F: dJ/dF.
Mat3 cofactor(const Mat3& F);

}  // namespace coulomb
