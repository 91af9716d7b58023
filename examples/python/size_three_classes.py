"""Sizing a cluster for three SLA classes over a load sweep (Hu 2009, sections 4 and 6).

Three job classes share a cluster of identical servers (service rate mu = 1, so times are
in mean service times). Each class has an arrival rate and an SLA P(T <= x) >= y. For every
load level the script sizes a dedicated pool per class (DA), one shared pool (SA), every
other partition of the classes into pools, and reports the best one and Hu's Algorithm 3
choice.

    python examples/python/size_three_classes.py
"""

import numpy as np

import slarm
from slarm.queueing import min_nodes, size

# (share of the load, x, y): a strict interactive class, a medium class and a loose batch class.
CLASSES = [(0.1, 1.5, 0.75), (0.3, 4.0, 0.9), (0.6, 10.0, 0.8)]


def main() -> None:
    loads = np.arange(10.0, 201.0, 10.0)  # total arrival rate, in jobs per mean service time
    shares = np.array([c[0] for c in CLASSES])
    x = np.array([c[1] for c in CLASSES])
    y = np.array([c[2] for c in CLASSES])

    # DA for the whole sweep in one vectorised call: shape (len(loads), 3).
    dedicated = min_nodes(loads[:, None] * shares, x, y)

    print(f"slarm {slarm.__version__}: three SLA classes, mu = 1")
    print(f"{'load':>6} {'DA':>6} {'SA':>6} {'best':>6}  {'best partition':<16} {'Alg. 3':<16} {'Alg. 3 nodes':>12}")
    for load, da in zip(loads, dedicated):
        r = size([(load * s, xi, yi) for s, xi, yi in zip(shares, x, y)])
        sa = next(s["nodes"] for s in r["strategies"] if s["partition"] == "SA")
        assert int(da.sum()) == next(s["nodes"] for s in r["strategies"] if s["partition"] == "DA")
        print(
            f"{load:6.0f} {int(da.sum()):6d} {sa:6d} {r['best']['nodes']:6d}  {r['best']['partition']:<16} "
            f"{r['heuristic']['partition']:<16} {r['heuristic']['nodes']:12d}"
        )


if __name__ == "__main__":
    main()
