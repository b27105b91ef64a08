#!/usr/bin/env python3
# test-fan-closed-forms.py — the closed forms doc/theory.md §18 derives, checked with SymPy
# (those test-explore-cli.py compares the fan with):
# Heisenberg, in the frame of doc/examples/heisenberg.cml: w = c (e^{i p3 t} − 1)/(i p3),
# z = |c|² (t − sin(p3 t)/p3)/(2 p3) solve x' = u1, y' = u2, z' = (x u2 − y u1)/2 with the
# velocity turning at the rate p3 (u1' = −p3 u2, u2' = p3 u1) from the origin; at
# t = 2π/p3 every extremal of the same |c| is at (0, 0, π|c|²/p3²); det ∂(x,y,z)/∂(p1,p2,p3)
# is −|c|² τ (τ sin τ + 2 cos τ − 2)/p3⁵ (τ = p3 t), whose first zero after 0 is τ = 2π.
# Martinet: the half period of x1, 2 ∫₀^X dx/√(1 − (a + k x²/2)²) with X² = 2(1 − a)/k:
# the substitution x = X sin φ (symbolically), and 2 K(m)/√k with m = (1 − a)/2 for a few
# (a, k), to 1e-20 (mpmath's quadrature of the smooth integrand it gives).
# Skips (TAP "1..0 # SKIP") when this Python has no SymPy.
import sys

try:
    import sympy as sp
    import mpmath
except ImportError as e:
    print("1..0 # SKIP SymPy missing for %s (%s)" % (sys.executable, e))
    sys.exit(0)

n = 0
failed = False


def ok(cond, what):
    global n, failed
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, what))
    failed = failed or not cond


t, p1, p2, p3 = sp.symbols("t p1 p2 p3", real=True)
c = p1 + sp.I * p2
w = sp.expand_complex(c * (sp.exp(sp.I * p3 * t) - 1) / (sp.I * p3))
x, y = sp.re(w), sp.im(w)
z = (p1**2 + p2**2) * (t - sp.sin(p3 * t) / p3) / (2 * p3)
u1, u2 = sp.diff(x, t), sp.diff(y, t)
ok(sp.simplify(u1.subs(t, 0) - p1) == 0 and sp.simplify(u2.subs(t, 0) - p2) == 0, "Heisenberg: u(0) = (p1, p2)")
ok(sp.simplify(sp.diff(u1, t) + p3 * u2) == 0 and sp.simplify(sp.diff(u2, t) - p3 * u1) == 0,
   "Heisenberg: the velocity turns at the rate p3")
ok(sp.simplify(sp.diff(z, t) - (x * u2 - y * u1) / 2) == 0, "Heisenberg: z' = (x u2 − y u1)/2")
ok(all(sp.simplify(e.subs(t, 0)) == 0 for e in (x, y, z)), "Heisenberg: from the origin")
T = 2 * sp.pi / p3
ok([sp.simplify(e.subs(t, T)) for e in (x, y, z)] == [0, 0, sp.pi * (p1**2 + p2**2) / p3**2],
   "Heisenberg: at 2π/p3 every extremal of the same speed is at (0, 0, π|c|²/p3²)")
D = sp.Matrix([x, y, z]).jacobian([p1, p2, p3]).det()
tau = p3 * t
claimed = -(p1**2 + p2**2) * tau * (tau * sp.sin(tau) + 2 * sp.cos(tau) - 2) / p3**5
ok(sp.simplify(sp.trigsimp(D - claimed)) == 0, "Heisenberg: det ∂(x,y,z)/∂p as doc/theory.md §18.1 writes it")
s = sp.symbols("s", positive=True)
f = sp.lambdify(s, s * sp.sin(s) + 2 * sp.cos(s) - 2, "mpmath")
mpmath.mp.dps = 30
root = mpmath.findroot(f, 6.3)
signs = [mpmath.sign(f(mpmath.mpf(k) / 100)) for k in range(1, 628)]
ok(abs(root - 2 * mpmath.pi) < 1e-20 and len(set(signs)) == 1,
   "Heisenberg: the first zero of the determinant after 0 is τ = 2π")

# the substitution x1 = X sin φ, X² = 2(1 − a)/k: (dx1/dφ)² / ((1 − a − k x1²/2)(1 + a + k x1²/2))
# is (2/k)/(2 − (1 − a) cos² φ), identically (squares: both sides are positive on (0, π/2))
a_, k_, phi = sp.symbols("a k phi", positive=True)
X2 = 2 * (1 - a_) / k_
x1 = sp.sqrt(X2) * sp.sin(phi)
lhs = sp.diff(x1, phi)**2 / ((1 - a_ - k_ * x1**2 / 2) * (1 + a_ + k_ * x1**2 / 2))
rhs = (2 / k_) / (2 - (1 - a_) * sp.cos(phi)**2)
ok(sp.simplify(sp.trigsimp(lhs - rhs)) == 0, "Martinet: x1 = X sin φ turns dt into √(2/k) dφ/√(2 − (1 − a) cos² φ)")
# and twice its integral over (0, π/2) (a smooth integrand) is 2 K(m)/√k, m = (1 − a)/2
mpmath.mp.dps = 30
for a, k in (("0", "1"), ("0.3", "1"), ("-0.5", "2"), ("0.9", "0.5")):
    a, k = mpmath.mpf(a), mpmath.mpf(k)
    half = 2 * mpmath.quad(lambda f: mpmath.sqrt(2 / k) / mpmath.sqrt(2 - (1 - a) * mpmath.cos(f)**2), [0, mpmath.pi / 2])
    want = 2 * mpmath.ellipk((1 - a) / 2) / mpmath.sqrt(k)
    ok(abs(half - want) < 1e-20, "Martinet: half period 2K(m)/√k for a = %s, k = %s" % (mpmath.nstr(a, 3), mpmath.nstr(k, 3)))

print("1..%d" % n)
sys.exit(1 if failed else 0)
