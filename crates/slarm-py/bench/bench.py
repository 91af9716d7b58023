"""Speed of the Python package against its Python anchors, side by side in one process.

    python crates/slarm-py/bench/bench.py [--reps N] [--trace SDSC-SP2.swf.gz] [--accasim PYTHON]

Rows (each the median of --reps runs after one warm-up, timed with time.perf_counter inside
this process, so interpreter start-up and imports are not counted):

1. 10,000 sizing queries (loads 1..1000 erlangs, mu = 1, P(T <= 3) >= 0.9): one call of
   slarm.queueing.min_nodes, including the call overhead, against the numpy-vectorised
   Algorithm 1 of xtask/anchors/anchors.py (same answers, checked) and against pyworkforce's
   ErlangC.required_positions (its own waiting-time SLA P(W <= 3) >= 0.9, one object and
   query per load: the loop a pyworkforce user writes).
2. Erlang C over 10^6 (A, m) pairs in one call.
3. EASY on SDSC-SP2 (read + clean + simulate) from Python, against the reference EASY of
   xtask/oracle/easy.py (same schedule) in the same process; AccaSim's EASY (its own machine
   model) only with --accasim PYTHON, as a subprocess, timed once.
4. The overhead per scheduling pass of a Python-defined policy: a Python FCFS policy against
   the built-in FCFS on the same trace, divided by the number of passes.
"""

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import slarm

REPO = Path(__file__).resolve().parents[3]


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# The anchors' timing helper (median of `reps` runs after a warm-up), so both sides of every
# ratio are timed by the same code.
ANCHORS = load("anchors", REPO / "xtask" / "anchors" / "anchors.py")
median_seconds = ANCHORS.median_seconds


def fmt(s):
    return f"{s * 1e3:.1f} ms" if s < 10 else f"{s:.1f} s"


class PyFcfs:
    """FCFS without backfilling, in Python; counts its passes."""

    name = "fcfs (Python)"

    def __init__(self):
        self.passes = 0

    def schedule(self, machine, queue):
        self.passes += 1
        free, start = machine.free, []
        for pos, (_key, procs, _est) in enumerate(queue):
            if procs > free:
                break
            free -= procs
            start.append(pos)
        return start


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--trace", default=None)
    ap.add_argument("--accasim", default=None, help="a Python with AccaSim installed")
    args = ap.parse_args()
    folder = Path(os.environ.get("SLARM_TRACES") or REPO.parent / "shared" / "data" / "traces")
    trace_path = Path(args.trace) if args.trace else folder / "SDSC-SP2-1998-4.2-cln.swf.gz"
    rows = []

    # 1. sizing
    n = 10_000
    lam = 1.0 + 999.0 * np.arange(n) / (n - 1)
    ours = slarm.queueing.min_nodes(lam, 3.0, 0.9)
    assert np.array_equal(ours, ANCHORS.min_nodes(lam, 1.0, 3.0, 0.9)), "sizing answers differ"
    t_ours = median_seconds(lambda: slarm.queueing.min_nodes(lam, 3.0, 0.9), args.reps)
    t_np = median_seconds(lambda: ANCHORS.min_nodes(lam, 1.0, 3.0, 0.9), args.reps)
    rows.append(("10,000 sizing queries", fmt(t_ours), "numpy vectorised Algorithm 1", fmt(t_np), t_np / t_ours))
    try:
        from pyworkforce.queuing import ErlangC

        def pwf():
            for a in lam:
                ErlangC(transactions=float(a), aht=1.0, asa=3.0, interval=1, shrinkage=0.0).required_positions(
                    service_level=0.9, max_occupancy=1.0
                )

        t_pwf = median_seconds(pwf, max(1, args.reps // 5))
        rows.append(("10,000 sizing queries", fmt(t_ours), "pyworkforce required_positions loop", fmt(t_pwf), t_pwf / t_ours))
    except ImportError:
        rows.append(("10,000 sizing queries", fmt(t_ours), "pyworkforce (not installed)", "-", None))

    # 2. Erlang C over 10^6 pairs
    rng = np.random.default_rng(1)
    a = rng.uniform(0.1, 1000.0, 1_000_000)
    m = np.floor(a).astype(np.int64) + 1 + rng.integers(0, 50, a.size)
    t_c = median_seconds(lambda: slarm.queueing.erlang_c(a, m), args.reps)
    rows.append(("Erlang C, 10^6 (A, m) pairs", fmt(t_c), f"{t_c / a.size * 1e9:.0f} ns per pair", "-", None))

    # 3. EASY on SDSC-SP2
    if trace_path.is_file():
        ref = load("easy_ref", REPO / "xtask" / "oracle" / "easy.py")

        def ours_easy():
            return slarm.sim.simulate(slarm.sim.read_swf(trace_path), "easy")

        def ref_easy():
            raw, machine = ref.read_swf(str(trace_path))
            return ref.easy(ref.prepare(raw, machine), machine)

        s = ours_easy()
        jobs = ref_easy()
        same = np.array_equal(s.start, np.array([j["start"] for j in jobs], dtype=np.float64))
        t_e = median_seconds(ours_easy, args.reps)
        t_r = median_seconds(ref_easy, max(1, args.reps // 2))
        label = f"EASY, {trace_path.name.split('-cln')[0]} ({len(s)} jobs), read + simulate"
        rows.append((label, fmt(t_e), "reference EASY (xtask/oracle/easy.py)" + ("" if same else " [schedules differ!]"), fmt(t_r), t_r / t_e))
        if args.accasim:
            with tempfile.TemporaryDirectory() as tmp:
                plain = Path(tmp) / "trace.swf"
                import gzip

                plain.write_bytes(gzip.decompress(trace_path.read_bytes()) if trace_path.suffix == ".gz" else trace_path.read_bytes())
                t = time.perf_counter()
                subprocess.run(
                    [args.accasim, str(REPO / "xtask" / "oracle" / "accasim_easy.py"), str(plain), tmp, "128", "1"],
                    check=True,
                    capture_output=True,
                )
                t_a = time.perf_counter() - t
            rows.append((label, fmt(t_e), "AccaSim EASYBackfilling (subprocess, once)", fmt(t_a), t_a / t_e))

        # 4. Python policy overhead per pass
        trace = slarm.sim.read_swf(trace_path)
        p = PyFcfs()
        slarm.sim.simulate(trace, p)
        passes = p.passes
        t_py = median_seconds(lambda: slarm.sim.simulate(trace, PyFcfs()), args.reps)
        t_rs = median_seconds(lambda: slarm.sim.simulate(trace, "fcfs"), args.reps)
        same = np.array_equal(slarm.sim.simulate(trace, PyFcfs()).start, slarm.sim.simulate(trace, "fcfs").start)
        rows.append(
            (
                f"Python FCFS policy, {passes} passes",
                fmt(t_py),
                "built-in FCFS" + ("" if same else " [schedules differ!]"),
                fmt(t_rs),
                None,
            )
        )
        rows.append(("overhead per scheduling pass", f"{(t_py - t_rs) / passes * 1e6:.1f} us", "-", "-", None))
    else:
        rows.append((f"EASY ({trace_path} missing)", "-", "-", "-", None))

    print(f"slarm {slarm.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}, median of {args.reps}")
    print(f"| {'what':<58} | {'slarm (Python)':>14} | {'anchor':<44} | {'anchor time':>11} | {'ratio':>7} |")
    print(f"|{'-' * 60}|{'-' * 16}:|{'-' * 46}|{'-' * 12}:|{'-' * 8}:|")
    for what, ours_t, anchor, anchor_t, ratio in rows:
        r = f"{ratio:.1f}x" if ratio else "-"
        print(f"| {what:<58} | {ours_t:>14} | {anchor:<44} | {anchor_t:>11} | {r:>7} |")


if __name__ == "__main__":
    main()
