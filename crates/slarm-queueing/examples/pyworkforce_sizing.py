"""pyworkforce 0.5.1 on the sizing queries of `examples/queueing_perf.rs` (CPU time per query).

Setup (outside the repository):
    python3 -m venv /tmp/venv-queue && /tmp/venv-queue/bin/pip install pyworkforce==0.5.1
Run:
    /tmp/venv-queue/bin/python crates/slarm-queueing/examples/pyworkforce_sizing.py

Units: mean service time 1 (aht = 1, interval = 1, so pyworkforce's intensity is lambda).
Two queries per load, the same as perf.rs:
- waiting-time SLA P(W <= 0.1) >= 0.9: pyworkforce's own `ErlangC.required_positions`
  (slarm: `sizing::min_nodes_waiting`);
- response-time SLA P(T <= 3) >= 0.9 (Hu's Algorithm 1, slarm: `min_nodes`): the upward
  search from floor(lambda) + 1 with pyworkforce's `waiting_probability` as the Erlang C and
  the response-time CDF F(x) = 1 - e^{-x} [1 + C x phi((m - lambda - 1) x)] in Python.
"""

import math
import time

from pyworkforce.queuing import ErlangC

LOADS = [8.0, 90.0, 990.0, 10_000.0, 100_000.0]
RESPONSE_SLA = (3.0, 0.9)
WAITING_SLA = (0.1, 0.9)


def response_cdf(x, lam, m, c):
    """F(x) of M/M/m FCFS with mu = 1 (Hu 2009, Eq. 4.1, in its unified stable form)."""
    z = (m - lam - 1.0) * x
    phi = 1.0 if abs(z) < 1e-300 else -math.expm1(-z) / z
    return 1.0 - math.exp(-x) * (1.0 + c * x * phi)


def size_response(lam):
    erl = ErlangC(transactions=lam, aht=1.0, asa=1.0, interval=1, shrinkage=0.0)
    x, y = RESPONSE_SLA
    m = math.floor(lam) + 1
    while response_cdf(x, lam, m, erl.waiting_probability(positions=m)) < y:
        m += 1
    return m


def size_waiting(lam):
    t, y = WAITING_SLA
    erl = ErlangC(transactions=lam, aht=1.0, asa=t, interval=1, shrinkage=0.0)
    return int(erl.required_positions(service_level=y, max_occupancy=1.0)["raw_positions"])


def per_call(f, lam):
    """CPU seconds per call: batches of doubling size until one takes at least 0.3 s."""
    batch = 1
    while True:
        start = time.process_time()
        for _ in range(batch):
            f(lam)
        spent = time.process_time() - start
        if spent >= 0.3:
            return spent / batch
        batch *= 2


def main():
    for lam in LOADS:
        m_resp, m_wait = size_response(lam), size_waiting(lam)
        t_resp, t_wait = per_call(size_response, lam), per_call(size_waiting, lam)
        print(
            f"lambda={lam}: response SLA(3, 0.9) m = {m_resp} in {t_resp * 1e6:.3f} us; "
            f"waiting SLA P(W<=0.1)>=0.9 m = {m_wait} in {t_wait * 1e6:.3f} us"
        )


if __name__ == "__main__":
    main()
