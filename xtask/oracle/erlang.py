"""Reference Erlang C figures from pyworkforce (oracle comparison 1).

Usage: python erlang.py INPUT.json OUTPUT.json

INPUT: {"cases": [{"traffic": A, "asa": t, "target": y}, ...]} with time in units of the
mean service time (aht = 1, interval = 1, so pyworkforce's intensity equals A).
OUTPUT: per case pyworkforce's required positions for the waiting-time service level
P(W <= asa) >= target, its Erlang C and service level at those positions, its search
start round(A + 1), and its Erlang C at the smallest stable size floor(A) + 1.
"""

import json
import math
import sys

from pyworkforce.queuing import ErlangC


def main(inp, out):
    with open(inp) as f:
        cases = json.load(f)["cases"]
    results = []
    for case in cases:
        a, asa, y = case["traffic"], case["asa"], case["target"]
        erl = ErlangC(transactions=a, aht=1.0, asa=asa, interval=1, shrinkage=0.0)
        req = erl.required_positions(service_level=y, max_occupancy=1.0)
        n = int(req["raw_positions"])
        m_stable = int(math.floor(a)) + 1
        results.append({
            "positions": n,
            "search_start": int(round(a + 1)),
            "erlang_c": erl.waiting_probability(positions=n),
            "service_level": erl.service_level(positions=n),
            "stable_servers": m_stable,
            "erlang_c_stable": erl.waiting_probability(positions=m_stable),
            "service_level_stable": erl.service_level(positions=m_stable),
        })
    with open(out, "w") as f:
        json.dump({"results": results}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
