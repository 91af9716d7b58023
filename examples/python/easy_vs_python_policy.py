"""EASY backfilling against a scheduling policy written in Python, on a real PWA trace.

EASY (Lifka 1995) starts jobs in queue order and lets later jobs jump ahead only when they
do not delay the reservation of the blocked queue head. The Python policy below is greedy
first-fit: it starts every queued job that fits now, in queue order, with no reservation, so
wide jobs can be overtaken again and again. The script simulates both on the same trace,
prints their metrics side by side and asks the schedule checker how often first-fit broke
EASY's promise to the queue head.

    python examples/python/easy_vs_python_policy.py [TRACE.swf[.gz]]

The default trace is KTH-SP2 from the Parallel Workloads Archive, looked up in
$SLARM_TRACES (else ../shared/data/traces beside the repository).
"""

import os
import sys
import time
from pathlib import Path

import slarm


class FirstFit:
    """Starts every queued job that fits, in queue order (greedy list scheduling)."""

    name = "first-fit (Python)"

    def schedule(self, machine, queue):
        free = machine.free
        start = []
        for pos, (_key, procs, _estimate) in enumerate(queue.tolist()):
            if procs <= free:
                free -= procs
                start.append(pos)
        return start


def default_trace() -> Path:
    repo = Path(__file__).resolve().parents[2]
    folder = Path(os.environ.get("SLARM_TRACES") or repo.parent / "shared" / "data" / "traces")
    return folder / "KTH-SP2-1996-2.1-cln.swf.gz"


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else default_trace()
    trace = slarm.sim.read_swf(path)
    print(f"{trace.name}: {len(trace)} jobs on {trace.machine_procs} processors ({trace.dropped['total']} dropped)")

    rows = []
    for policy in ("easy", FirstFit()):
        t0 = time.perf_counter()
        schedule = slarm.sim.simulate(trace, policy)
        seconds = time.perf_counter() - t0
        head_delays = slarm.testing.check(trace, schedule, "easy")
        rows.append((schedule.policy, schedule.metrics(), len(head_delays), seconds))

    print(f"{'policy':<20} {'mean wait s':>12} {'max wait s':>12} {'bounded sd':>11} {'util':>6} {'EASY violations':>16} {'run s':>7}")
    for name, m, violations, seconds in rows:
        print(
            f"{name:<20} {m['mean_wait_s']:12.0f} {m['max_wait_s']:12.0f} {m['mean_bounded_slowdown']:11.2f} "
            f"{m['utilization']:6.3f} {violations:16d} {seconds:7.2f}"
        )


if __name__ == "__main__":
    main()
