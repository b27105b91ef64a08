#!/usr/bin/python3
# groupoid_identities.py — checks with SymPy, in exact arithmetic, the identities behind the
# discrete Lagrange–d'Alembert equations on Lie groupoids (doc/theory.md §14.2,
# src/core/cml-variational-groupoid.c), for the heavy top's action algebroid so(3) ⋉ ℝ³:
#
#   1. the anchor ρ(e_i) = Γ × E_i of models/heavy-top.cml is Γ ↦ R_i Γ with R(ξ) = −ξ̂, a
#      right action: R_B R_A − R_A R_B = C^D_AB R_D for the body brackets C^k_ij = ε_ijk, and
#      R(ξ)³ = (K(ξ, ξ)/2) R(ξ) with the Killing form K (rotations of vectors);
#   2. the base point moves by x₁ = cay(h ξ)⁻¹ x₀ = cay(h R(ξ)) x₀, which is the implicit
#      midpoint rule of the anchor, x₁ − x₀ = h R(ξ) (x₀ + x₁)/2, with the midpoint
#      x_m = (I − (h/2) R(ξ))⁻¹ x₀; |x₁| = |x₀|;
#   3. the node momenta, defined as derivatives of L_d(x₀, g) = h L(x_m, cay⁻¹(g)/h) along the
#      groupoid's variations (g ↦ g c(εη) at the end node; g ↦ c(−εη) g, x₀ ↦ x₀ + ε R(η) x₀ at
#      the start node), equal the closed forms the C code uses,
#        M^start = M⁺(ξ, μ) − (h/2) ρ(x₀)ᵀ L_x,   M^end = M⁻(ξ, μ) + (h/2) ρ(x₁)ᵀ L_x,
#        M^±_B = μ_B ∓ (h/2) C^C_AB ξ^A μ_C − (h²/8) (μ·ξ) K_AB ξ^A,  μ = L_y, at (x_m, ξ);
#   4. the discrete momentum map: ⟨M^end, x₁⟩ = ⟨M^start, x₀⟩ for every step (the vertical
#      angular momentum ⟨M, Γ⟩ is kept exactly), for a Lagrangian L(Γ, W) of any form.
#
# A generic Lagrangian (the heavy top's plus a term coupling Γ and W) at a few random
# rational points; exits 0 when every identity holds exactly, 1 otherwise, 77 (skip) without
# SymPy.
#
# SPDX-License-Identifier: GPL-3.0-or-later

import random
import sys

try:
    import sympy as sp
except ImportError:
    print("SymPy is not installed: skipped")
    sys.exit(77)

I3 = sp.eye(3)


def hat(v):
    return sp.Matrix([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def vee(A):
    return sp.Matrix([A[2, 1], A[0, 2], A[1, 0]])


def cay(A):
    return (I3 - A / 2).inv() * (I3 + A / 2)


def cay_inv(g):
    return 2 * (g - I3) * (g + I3).inv()


failures = []


def zero(e):
    """Whether the rational function E vanishes identically."""
    return sp.cancel(sp.together(sp.expand(e))) == 0


def check(what, expr):
    entries = list(expr) if hasattr(expr, "shape") else [expr]
    if not all(zero(e) for e in entries):
        failures.append(what)
        print("FAILED:", what, expr)
    else:
        print("ok:", what)


# --- 1. the anchor of models/heavy-top.cml and the brackets -------------------------------
G = sp.Matrix(sp.symbols("G1 G2 G3"))
E = [I3[:, i] for i in range(3)]
# [anchor]: e1 = G2: G3; G3: -G2, e2 = G1: -G3; G3: G1, e3 = G1: G2; G2: -G1
anchor = [sp.Matrix([0, G[2], -G[1]]), sp.Matrix([-G[2], 0, G[0]]), sp.Matrix([G[1], -G[0], 0])]
R = [anchor[A].jacobian(G) for A in range(3)]
for A in range(3):
    check("anchor e%d is Γ × E_%d" % (A + 1, A + 1), anchor[A] - G.cross(E[A]))
    check("anchor e%d is linear: R_%d Γ" % (A + 1, A + 1), anchor[A] - R[A] * G)
    check("R_%d = −Ê_%d" % (A + 1, A + 1), R[A] + hat(E[A]))
C = [[[sp.LeviCivita(a, b, d) for d in range(3)] for b in range(3)] for a in range(3)]
for a in range(3):
    for b in range(3):
        check("right action: R_%d R_%d − R_%d R_%d = C^D R_D" % (b + 1, a + 1, a + 1, b + 1),
              R[b] * R[a] - R[a] * R[b] - sum((C[a][b][d] * R[d] for d in range(3)), sp.zeros(3)))
K = sp.Matrix(3, 3, lambda a, b: sum(C[a][e][d] * C[b][d][e] for d in range(3) for e in range(3)))
xi_s = sp.Matrix(sp.symbols("xi1 xi2 xi3"))
h = sp.Symbol("h", positive=True)
Rxi = sum((xi_s[A] * R[A] for A in range(3)), sp.zeros(3))
check("R(ξ)³ = (K(ξ, ξ)/2) R(ξ)", Rxi ** 3 - ((xi_s.T * K * xi_s)[0] / 2) * Rxi)
check("K = −2 I (so ξ·η = −K(ξ, η)/2)", K + 2 * I3)

# --- 2. the base motion -------------------------------------------------------------------
x0s = sp.Matrix(sp.symbols("x1 x2 x3"))
x1_cay = cay(h * Rxi) * x0s
# x₁ = cay(h R(ξ)) x₀ solves (I − (h/2) R(ξ)) x₁ = (I + (h/2) R(ξ)) x₀, and x₁ = cay(h ξ̂)⁻¹ x₀
# solves (I + (h/2) ξ̂) x₁ = (I − (h/2) ξ̂) x₀: the same linear system
check("cay(h R(ξ)) = cay(h ξ̂)⁻¹: left sides", (I3 - h * Rxi / 2) - (I3 + h * hat(xi_s) / 2))
check("cay(h R(ξ)) = cay(h ξ̂)⁻¹: right sides", (I3 + h * Rxi / 2) - (I3 - h * hat(xi_s) / 2))
check("x₁ − x₀ = h R(ξ) (x₀ + x₁)/2", x1_cay - x0s - h * Rxi * (x0s + x1_cay) / 2)
check("x_m = (I − (h/2) R(ξ))⁻¹ x₀", (x0s + x1_cay) / 2 - (I3 - h * Rxi / 2).inv() * x0s)
check("|x₁|² = |x₀|²", (x1_cay.T * x1_cay)[0] - (x0s.T * x0s)[0])

# --- 3 and 4. the node momenta ------------------------------------------------------------
I1, I2, I3c, mgl, k = sp.Rational(1), sp.Rational(3, 2), sp.Rational(1, 2), sp.Rational(7, 5), sp.Rational(2, 7)
Wv = sp.Matrix(sp.symbols("W1 W2 W3"))


def lagrangian(x, w):
    # the heavy top's, plus a term coupling the base and the fibre (so ∂²L/∂y∂x ≠ 0)
    return (I1 * w[0] ** 2 + I2 * w[1] ** 2 + I3c * w[2] ** 2) / 2 - mgl * x[2] + k * (w.dot(x)) ** 2 + x[0] * w[1]


L_sym = lagrangian(G, Wv)
Ly = sp.Matrix([sp.diff(L_sym, w) for w in Wv])
Lx = sp.Matrix([sp.diff(L_sym, g) for g in G])


def L_d(hh, x0, g):
    xi = vee(cay_inv(g)) / hh
    x1 = g.T * x0  # x₁ = g⁻¹ x₀ (g a rotation)
    xm = (x0 + x1) / 2
    return hh * lagrangian(xm, xi)


eps = sp.Symbol("eps")
rng = random.Random(35)


def rnd():
    return sp.Rational(rng.randint(-9, 9), rng.randint(1, 5))


for trial in range(2):
    hh = sp.Rational(rng.randint(1, 6), 10)
    xi = sp.Matrix([rnd() for _ in range(3)])
    x0 = sp.Matrix([rnd() for _ in range(3)])
    g = cay(hh * hat(xi))
    x1 = g.T * x0
    xm = (x0 + x1) / 2
    subs = dict(zip(G, xm)) | dict(zip(Wv, xi))
    mu = Ly.subs(subs)
    lx = Lx.subs(subs)
    mx = (mu.T * xi)[0]
    M_formula = {}
    for sign in (1, -1):
        M_formula[sign] = sp.Matrix([mu[B] - sign * hh / 2 * sum(C[a][B][c] * xi[a] * mu[c] for a in range(3) for c in range(3))
                                     - hh ** 2 / 8 * mx * sum(K[a, B] * xi[a] for a in range(3)) for B in range(3)])
    rho0 = sp.Matrix(3, 3, lambda i, B: (R[B] * x0)[i])
    rho1 = sp.Matrix(3, 3, lambda i, B: (R[B] * x1)[i])
    start_formula = M_formula[1] - hh / 2 * rho0.T * lx
    end_formula = M_formula[-1] + hh / 2 * rho1.T * lx
    start, end = sp.zeros(3, 1), sp.zeros(3, 1)
    for B in range(3):
        eta = E[B]
        fs = L_d(hh, x0 + eps * R[B] * x0, cay(-eps * hat(eta)) * g)
        fe = L_d(hh, x0, g * cay(eps * hat(eta)))
        start[B] = -sp.diff(fs, eps).subs(eps, 0)
        end[B] = sp.diff(fe, eps).subs(eps, 0)
    check("point %d: the start-node momentum is M⁺ − (h/2) ρ(x₀)ᵀ L_x" % trial, start - start_formula)
    check("point %d: the end-node momentum is M⁻ + (h/2) ρ(x₁)ᵀ L_x" % trial, end - end_formula)
    check("point %d: ⟨M^end, x₁⟩ = ⟨M^start, x₀⟩" % trial, (end.T * x1)[0] - (start.T * x0)[0])

if failures:
    print("%d identities fail" % len(failures))
    sys.exit(1)
print("all identities hold")
