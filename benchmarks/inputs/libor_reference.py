#!/usr/bin/env python3
"""Host reference for ISPASS-2009 LIB (libor): a LIBOR market model swaption
portfolio, valued per Monte Carlo path, with its sensitivity to the last rate.

    libor_reference.py > reference.txt

The program starts every path from the same rates (L = 0.05) and the same
normals (z = 0.3), so every path has the same value. This recomputes that value
in double precision, line by line from libor.cu's device functions (path_calc,
portfolio; path_calc_b1, portfolio_b, path_calc_b2, with portfolio_b's L_b
aliasing L as in the kernel), and prints the "memzip-check" lines our LIB.sed
makes the program print: the smallest and largest v of each kernel and of Lb,
all equal to the reference here. compare_checks.py compares the two.
"""
import math

N, NMAT = 80, 40
DELTA = 0.25
LAMBDA = [0.2] * N
MATURITIES = [4, 4, 4, 8, 8, 8, 20, 20, 20, 28, 28, 28, 40, 40, 40]
SWAPRATES = [.045, .05, .055, .045, .05, .055, .045, .05, .055, .045, .05, .055, .045, .05, .055]


def path_calc(L, z, L2=None):
    """Forward path of the rates; with L2, stores each step (path_calc_b1)."""
    if L2 is not None:
        L2[:N] = L[:N]
    for n in range(NMAT):
        sqez = math.sqrt(DELTA) * z[n]
        v = 0.0
        for i in range(n + 1, N):
            lam = LAMBDA[i - n - 1]
            con1 = DELTA * lam
            v += con1 * L[i] / (1.0 + DELTA * L[i])
            vrat = math.exp(con1 * v + lam * (sqez - 0.5 * con1))
            L[i] = L[i] * vrat
            if L2 is not None:
                L2[i + (n + 1) * N] = L[i]


def discount(L):
    b = 1.0
    for n in range(NMAT):
        b = b / (1.0 + DELTA * L[n])
    return b


def portfolio(L):
    B, S = [], []
    b, s = 1.0, 0.0
    for n in range(NMAT, N):
        b = b / (1.0 + DELTA * L[n])
        s = s + DELTA * b
        B.append(b)
        S.append(s)
    v = 0.0
    for i, maturity in enumerate(MATURITIES):
        m = maturity - 1
        swapval = B[m] + SWAPRATES[i] * S[m] - 1.0
        if swapval < 0:
            v += -100.0 * swapval
    return discount(L) * v


def portfolio_b(L, L_b):
    """Value and reverse-mode sensitivities; L_b may be L itself (the kernel
    passes the same array), so the order of reads and writes is the kernel's."""
    B, S = [0.0] * (N - NMAT), [0.0] * (N - NMAT)
    b, s = 1.0, 0.0
    for m in range(N - NMAT):
        n = m + NMAT
        b = b / (1.0 + DELTA * L[n])
        s = s + DELTA * b
        B[m], S[m] = b, s
    v = 0.0
    B_b, S_b = [0.0] * (N - NMAT), [0.0] * (N - NMAT)
    for i, maturity in enumerate(MATURITIES):
        m = maturity - 1
        swapval = B[m] + SWAPRATES[i] * S[m] - 1.0
        if swapval < 0:
            v += -100 * swapval
            S_b[m] += -100 * SWAPRATES[i]
            B_b[m] += -100
    for m in range(N - NMAT - 1, -1, -1):
        n = m + NMAT
        B_b[m] += DELTA * S_b[m]
        L_b[n] = -B_b[m] * B[m] * DELTA / (1.0 + DELTA * L[n])
        if m > 0:
            S_b[m - 1] += S_b[m]
            B_b[m - 1] += B_b[m] / (1. + DELTA * L[n])
    b = discount(L)
    v = b * v
    for n in range(NMAT):
        L_b[n] = -v * DELTA / (1.0 + DELTA * L[n])
    for n in range(NMAT, N):
        L_b[n] = b * L_b[n]
    return v


def path_calc_b2(L_b, L2):
    for n in range(NMAT - 1, -1, -1):
        v1 = 0.0
        for i in range(N - 1, n, -1):
            v1 += LAMBDA[i - n - 1] * L2[i + (n + 1) * N] * L_b[i]
            faci = DELTA / (1.0 + DELTA * L2[i + n * N])
            L_b[i] = L_b[i] * L2[i + (n + 1) * N] / L2[i + n * N] + v1 * LAMBDA[i - n - 1] * faci * faci


def values():
    """(v without Greeks, v with Greeks, Lb) of one path."""
    z = [0.3] * N
    L = [0.05] * N
    path_calc(L, z)
    v_plain = portfolio(L)
    L = [0.05] * N
    L2 = [0.0] * (N * (NMAT + 1))
    path_calc(L, z, L2)
    L_b = L  # the kernel's alias
    v_greeks = portfolio_b(L, L_b)
    path_calc_b2(L_b, L2)
    return v_plain, v_greeks, L_b[N - 1]


def main():
    v_plain, v_greeks, lb = values()
    print(f"memzip-check v min {v_plain:.8e} max {v_plain:.8e}")
    print(f"memzip-check v min {v_greeks:.8e} max {v_greeks:.8e}")
    print(f"memzip-check Lb min {lb:.8e} max {lb:.8e}")


if __name__ == "__main__":
    main()
