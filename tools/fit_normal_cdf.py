"""Fit the rational function behind gluonlite's float32 GELU (`gluonlite/ops/normal_cdf.py`)
and print its coefficients as that module lists them.

The module computes E = Phi(-a) = erfc(a / sqrt 2) / 2 for a = |x| as exp(-a^2 / 2) * P(a) /
Q(a). So P / Q approximates R(a) = erfcx(a / sqrt 2) / 2 on [0, AMAX]: a smooth function that
falls from 1/2 at 0 like 1 / (a sqrt(2 pi)), where a rational of one more degree below than
above fits it closely.

The fit minimises the largest relative error over dense points:
- linearised least squares on P - R Q (Q(0) = 1), reweighted by the last Q (Sanathanan-Koerner);
- then weights grown where the error is largest (Lawson), keeping the best iterate.

The coefficients are rounded to float32, and the error printed is that of the rounded table
evaluated in float64.

usage: python3 tools/fit_normal_cdf.py [--degrees 4 5] [--amax 15]
"""
import argparse

import numpy as np
from scipy.special import erfcx


def fit(num_degree, den_degree, amax, points=8000, rounds=300):
    """(p, q, error): monomial coefficients in `a`, lowest first, with q[0] = 1, of the
    rational closest to erfcx(a / sqrt 2) / 2 in relative error on [0, amax], rounded to
    float32; `error` is the largest relative error of the rounded table."""
    k = np.arange(points)
    a = np.concatenate([amax * (0.5 - 0.5 * np.cos(np.pi * (k + 0.5) / points)),
                        np.linspace(0, amax, points), np.linspace(0, 4, points)])
    target = erfcx(a / np.sqrt(2)) / 2
    u = a / amax  # the fit runs on [0, 1], where the monomials are well conditioned
    vp = np.vander(u, num_degree + 1, increasing=True)
    vq = np.vander(u, den_degree + 1, increasing=True)[:, 1:]
    q_prev, lawson, best = np.ones_like(u), np.ones_like(u), None
    for i in range(rounds):
        weight = lawson / (target * q_prev)
        system = np.hstack([vp, -target[:, None] * vq]) * weight[:, None]
        coef = np.linalg.lstsq(system, target * weight, rcond=None)[0]
        p, q = coef[:num_degree + 1], np.concatenate([[1.0], coef[num_degree + 1:]])
        q_prev = vq @ q[1:] + 1
        rel = (vp @ p / q_prev - target) / target
        err = np.abs(rel).max()
        if best is None or err < best[0]:
            best = (err, p, q)
        if i >= 10:
            lawson = lawson * (np.abs(rel) + 1e-3 * err)
            lawson /= lawson.mean()
    _, p, q = best
    p32 = (p / amax ** np.arange(num_degree + 1)).astype(np.float32)
    q32 = (q / amax ** np.arange(den_degree + 1)).astype(np.float32)
    approx = (np.polyval(p32[::-1].astype(np.float64), a)
              / np.polyval(q32[::-1].astype(np.float64), a))
    return p32, q32, float(np.abs(approx / target - 1).max())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--degrees", type=int, nargs=2, default=(4, 5), metavar=("P", "Q"))
    ap.add_argument("--amax", type=float, default=15.0)
    a = ap.parse_args(argv)
    p, q, err = fit(*a.degrees, a.amax)
    roots = np.roots(q[::-1].astype(np.float64))
    if any(abs(r.imag) < 1e-9 and r.real >= 0 for r in roots):
        raise SystemExit("the denominator has a root in [0, inf): choose other degrees")
    print(f"# R(a) = erfcx(a / sqrt 2) / 2 on [0, {a.amax:g}]: relative error {err:.2e}")
    print("_P = (" + ", ".join(repr(float(c)) for c in p) + ")")
    print("_Q = (" + ", ".join(repr(float(c)) for c in q) + ")")


if __name__ == "__main__":
    main()
