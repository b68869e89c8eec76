#!/usr/bin/env python3
"""Fits the polynomial of fp_logf (firmware/runtime/fp_rules.h); run once, by hand.

fp_logf reduces x to 2^e * (1 + f) with f in [sqrt(1/2) - 1, sqrt(2) - 1] and evaluates
log1p(f) = f - f^2/2 + f^3 * P(f). P approximates Q(f) = (log1p(f) - f + f^2/2) / f^3.
This fits P by weighted least squares on Chebyshev nodes, refined by Lawson's iteration
towards the minimax of the error that matters, the relative error of the whole log1p:
    E(f) = f^3 (P(f) - Q(f)) / log1p(f),
then rounds the coefficients to binary32 and prints them as C hex floats with the
resulting max |E| (in units of 2^-24). Needs mpmath (pip install mpmath).
"""
import struct
import sys

import mpmath as mp

mp.mp.dps = 50
A = mp.sqrt(mp.mpf(1) / 2) - 1
B = mp.sqrt(mp.mpf(2)) - 1


def q(f):
    if abs(f) < mp.mpf("1e-12"):
        return mp.mpf(1) / 3 - f / 4
    return (mp.log1p(f) - f + f * f / 2) / f**3


def weight(f):
    return f**3 / mp.log1p(f) if f != 0 else mp.mpf(0)


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def fit(degree, nodes=400, lawson=60):
    xs = [A + (B - A) * (1 - mp.cos(mp.pi * (i + mp.mpf(0.5)) / nodes)) / 2 for i in range(nodes)]
    ys = [q(x) for x in xs]
    ws = [abs(weight(x)) for x in xs]
    lw = [mp.mpf(1) / nodes] * nodes  # Lawson weights
    coeffs = None
    for _ in range(lawson):
        n = degree + 1
        m = mp.matrix(n, n)
        v = mp.matrix(n, 1)
        for x, y, w, l in zip(xs, ys, ws, lw):
            ww = l * w * w
            p = [x**k for k in range(n)]
            for i in range(n):
                v[i] += ww * p[i] * y
                for j in range(n):
                    m[i, j] += ww * p[i] * p[j]
        coeffs = mp.lu_solve(m, v)
        errs = [abs(w * (sum(coeffs[k] * x**k for k in range(n)) - y)) for x, y, w in zip(xs, ys, ws)]
        total = sum(l * e for l, e in zip(lw, errs))
        lw = [l * e / total for l, e in zip(lw, errs)]
    return [coeffs[k] for k in range(degree + 1)]


def max_err(coeffs, samples=4000):
    worst = 0
    for i in range(samples + 1):
        f = A + (B - A) * i / samples
        if f == 0:
            continue
        p = sum(c * f**k for k, c in enumerate(coeffs))
        worst = max(worst, abs(f**3 * (p - q(f)) / mp.log1p(f)))
    return worst


degree = int(sys.argv[1]) if len(sys.argv) > 1 else 7
c = fit(degree)
c32 = [to_f32(x) for x in c]
print(f"// degree {degree}: max rel. error {float(max_err(c)) * 2**24:.4f} * 2^-24 (exact coefficients), "
      f"{float(max_err(c32)) * 2**24:.4f} * 2^-24 (binary32 coefficients)")
for k, x in enumerate(c32):
    mant, exp = x.hex().split("p")
    print(f"  {mant.rstrip('0').rstrip('.')}p{exp}f,  // c{k} = {x!r}")
