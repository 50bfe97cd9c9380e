#!/usr/bin/env python3
"""The cubic of SiluCubicEpilogue (scripts/probes/silu_forms.cuh), fitted and checked.

y = silu(v) is computed as u + |u| w with u = v / 2 and w = tanh|u| = (1 - z) / (1 + z),
z = e^-2|u|; w is approximated by 1 + c1 z + c2 z^2 + c3 z^3. The output's error is |u| times
w's error, so the fit minimizes the largest |u| |w error| / (atol + rtol |y|) over both signs of
v (float16's tolerance: atol 2^-9, rtol 2^-10), by Lawson's algorithm (iteratively reweighted
least squares converging to the minimax). Then it simulates the kernel's float32 sequence (ex2
taken as exact, each operation rounded to float32) with the output rounded to float16, and
prints the worst tolerance use. Pure Python, about 20 s.

  python3 scripts/probes/silu_cubic_fit.py
"""
import math
import random
import struct

ATOL, RTOL = 2.0**-9, 2.0**-10


def silu(v):
    return v / (1.0 + math.exp(-v))


def to_float32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def to_float16(x):
    return struct.unpack("e", struct.pack("e", x))[0]


def solve(a, b):
    """Gauss-Jordan elimination with partial pivoting (a few unknowns)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(degree=3, iterations=300):
    points = []  # (z, target w - 1, weight)
    for i in range(1, 12001):
        a = i * 0.002  # |u| up to 24
        z = math.exp(-2 * a)
        for sign in (-1, 1):
            weight = a / (ATOL + RTOL * abs(silu(2 * sign * a)))
            points.append((z, (1 - z) / (1 + z) - 1, weight))
    lam = [1.0] * len(points)
    for _ in range(iterations):
        normal = [[0.0] * degree for _ in range(degree)]
        rhs = [0.0] * degree
        for (z, target, weight), l in zip(points, lam):
            phi = [z ** (k + 1) for k in range(degree)]
            w2 = l * weight * weight
            for i in range(degree):
                rhs[i] += w2 * phi[i] * target
                for j in range(degree):
                    normal[i][j] += w2 * phi[i] * phi[j]
        c = solve(normal, rhs)
        errors = [abs(sum(c[k] * z ** (k + 1) for k in range(degree)) - target) * weight
                  for z, target, weight in points]
        total = sum(l * e for l, e in zip(lam, errors))
        lam = [l * e / total for l, e in zip(lam, errors)]
    return [to_float32(x) for x in c], max(errors)


def kernel_form(u, c):
    """SiluCubicEpilogue's sequence in float32 (ex2 exact, then rounded)."""
    a = abs(u)
    z = to_float32(2.0 ** to_float32(a * to_float32(-2.0 * math.log2(math.e))))
    p = to_float32(c[2] * z + c[1])
    p = to_float32(p * z + c[0])
    w = to_float32(p * z + 1.0)
    return to_float32(a * w + u)


def main():
    c, weighted = fit()
    print("c1, c2, c3 =", ", ".join(repr(x) for x in c))
    print(f"largest |u| |w error| / (atol + rtol |y|): {weighted:.3f}")
    random.seed(1)
    values = [i * 0.0005 for i in range(-60000, 60001)]
    values += [random.uniform(-100, 100) for _ in range(20000)]
    worst = (0.0, 0.0)
    for v in values:
        v = to_float32(v)
        y = to_float16(kernel_form(to_float32(0.5 * v), c))
        want = silu(v)
        worst = max(worst, (abs(y - want) / (ATOL + RTOL * abs(want)), v))
    print(f"float16 outputs: worst {worst[0]:.3f} of the tolerance, at v = {worst[1]:.4f}")


if __name__ == "__main__":
    main()
