"""Python anchors of docs/performance.md, timed inside one process (median of REPS runs after
one warm-up), so that interpreter start-up and imports are not counted.

    python anchors.py fft LOG2N REPS      scipy.signal.fftconvolve of two 2^LOG2N-bin PMFs
    python anchors.py sizing N REPS       numpy-vectorised Algorithm 1 (Hu 2009, section 4.2)
                                          for N loads 1..1000 erlangs, mu = 1, P(T <= 3) >= 0.9

Prints `seconds <median>` and, for sizing, `checksum <sum of the answers>` (slarm's probe
prints the same sum for the same queries).
"""

import statistics
import sys
import time

import numpy as np


def median_seconds(f, reps):
    f()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def fft(log2n, reps):
    import scipy.signal

    n = 1 << log2n
    rng = np.random.default_rng(1)
    a = rng.random(n)
    b = rng.random(n)
    a /= a.sum()
    b /= b.sum()
    print(f"seconds {median_seconds(lambda: scipy.signal.fftconvolve(a, b), reps):.6f}")


def min_nodes(lam, mu, x, y):
    """Smallest m > rho with F(x) >= y for every load at once: Erlang B by its recursion over
    m for all loads (a vector operation per m), Erlang C and the response-time CDF of M/M/m
    FCFS where m > rho and the answer is not yet known."""
    rho = lam / mu
    answer = np.zeros(lam.shape, dtype=np.int64)
    todo = np.ones(lam.shape, dtype=bool)
    b = np.ones_like(rho)
    e_s = np.exp(-mu * x)
    m = 0
    while todo.any():
        m += 1
        b = rho * b / (m + rho * b)
        live = todo & (m > rho)
        if not live.any():
            continue
        idx = np.flatnonzero(live)
        r, bb = rho[idx], b[idx]
        c = m * bb / (m - r * (1.0 - bb))
        a = m * mu - lam[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            hypo = np.where(
                np.abs(a - mu) > 1e-12,
                (a * e_s - mu * np.exp(-a * x)) / (a - mu),
                (1.0 + mu * x) * e_s,
            )
        f = 1.0 - (1.0 - c) * e_s - c * hypo
        ok = f >= y
        answer[idx[ok]] = m
        todo[idx[ok]] = False
    return answer


def sizing(n, reps):
    lam = 1.0 + 999.0 * np.arange(n) / (n - 1)
    got = min_nodes(lam, 1.0, 3.0, 0.9)
    print(f"seconds {median_seconds(lambda: min_nodes(lam, 1.0, 3.0, 0.9), reps):.6f}")
    print(f"checksum {int(got.sum())}")


if __name__ == "__main__":
    mode, size, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    {"fft": fft, "sizing": sizing}[mode](size, reps)
