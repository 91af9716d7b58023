"""SWF traces, Slurm accounting records and the trace-driven batch simulator.

- :func:`read_swf` reads a Parallel Workloads Archive log (plain or gzip) into a cleaned
  :class:`Trace` (jobs with run time <= 0, processors <= 0 or more processors than the
  machine are dropped and counted; jobs in queue order).
- :func:`read_sacct` reads a site's Slurm accounting records (``sacct -P`` output) into the
  same cleaned :class:`Trace`.
- :func:`simulate` replays a trace on a space-shared machine under ``"fcfs"``, ``"easy"``
  (EASY backfilling, Lifka 1995), ``"conservative"`` (Mu'alem & Feitelson 2001),
  ``"backfill:K"`` (backfilling with ``K`` reservations: 0 none, 1 EASY, ``all``
  conservative) or a Python object with a ``schedule(machine, queue)`` method, and returns a
  :class:`Schedule`.
- :class:`Simulation` is the same simulator driven step by step: the caller answers each
  scheduling pass (a gym-style environment owns the loop).
- A :class:`Schedule` has its columns as numpy arrays (``to_dict()`` for pandas), each job's
  processors (``allocated_resources``, Batsim's interval sets such as ``"0-5 8-9"``) and
  ``write_batsim(path)``, Batsim's ``jobs.csv`` as evalys reads it (``JobSet.from_csv``), the
  file of ``slarm simulate --schedule-format batsim``.

A Python policy mirrors the Rust ``SchedulingPolicy`` trait. At each scheduling pass the
simulator calls ``policy.schedule(machine, queue)`` with a :class:`MachineState` (``now``,
``free``, ``capacity``, the running jobs as arrays) and the non-empty waiting
:class:`Queue` in FCFS order (``key``, ``procs``, ``estimate`` arrays; ``key`` indexes the
trace's columns). It returns the queue positions to start now (ascending, fitting in
``free`` together), or ``None``, or a dict ``{"start": [...], "wake": t}`` asking for another
pass at time ``t``. Optional hooks: ``begin(capacity, origin)``, ``on_arrival(now, job)``
(may return a reservation time to record) and ``on_finish(now, job, predicted_end)``, where
``job`` is a ``(key, procs, estimate)`` tuple. The simulator validates every answer: an
over-commit or a bad position raises ``ValueError``; an exception in the policy propagates
unchanged.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence, Union

from ._native import Decision, MachineState, Queue, Schedule, Simulation, Trace
from ._native import read_sacct as _read_sacct
from ._native import read_swf as _read_swf
from ._native import simulate as _simulate

__all__ = [
    "read_swf",
    "read_sacct",
    "simulate",
    "Trace",
    "Schedule",
    "Simulation",
    "Decision",
    "MachineState",
    "Queue",
]

# The fixed names of the built-in policies; "backfill:K" (K reservations) is built in too.
BUILT_IN = ("fcfs", "easy", "conservative")


def read_swf(path: Any, lenient: bool = False, procs: Optional[int] = None) -> Trace:
    """Reads and cleans an SWF trace (plain or ``.gz``).

    ``lenient`` skips malformed job lines (counted in ``Trace.skipped_lines``) instead of
    raising ``ValueError`` naming the file, line and field. ``procs`` overrides the machine
    size of the header (MaxProcs, else MaxNodes). A missing file raises ``OSError``.
    """
    return _read_swf(path, bool(lenient), procs)


def read_sacct(path: Any, tz: str = "UTC", lenient: bool = False, procs: Optional[int] = None) -> Trace:
    """Reads and cleans Slurm accounting records (plain or ``.gz``): the output of

    ``SLURM_TIME_FORMAT=standard sacct -a -X -P --format=JobIDRaw,Submit,Eligible,Start,End,Elapsed,TimelimitRaw,NCPUS,NNodes,ReqCPUS,State,Partition,User,Group``

    (columns found by the header line, in any order; others ignored). Times are read in the
    zone ``tz`` (``"UTC"``, an offset such as ``"+01:00"``, or an IANA name such as
    ``"Europe/Berlin"``) and counted from the first submission; run time is ``Elapsed``,
    processors ``NCPUS``, the estimate ``TimelimitRaw``; users, groups and partitions are
    numbered by first appearance. Jobs that never ran are dropped by the cleaning like jobs of
    run time 0 and counted by state in ``Trace.not_run`` (``{"cancelled": 3, ...}``).
    ``procs`` is the machine size (default: the most processors the log shows in use at
    once). A bad line raises ``ValueError`` naming the file, line and column, unless
    ``lenient`` skips it (counted in ``Trace.skipped_lines``); a missing file raises
    ``OSError``.
    """
    return _read_sacct(path, str(tz), bool(lenient), procs)


def simulate(trace: Trace, policy: Union[str, Any], procs: Optional[int] = None) -> Schedule:
    """Simulates ``trace`` under ``policy`` on ``procs`` processors (default: the trace's
    machine size) and returns the :class:`Schedule`.

    ``policy`` is ``"fcfs"``, ``"easy"``, ``"conservative"``, ``"backfill:K"`` (``K`` in
    0..1000000, or ``"backfill:all"``) or an object with a ``schedule(machine, queue)`` method
    (see the module documentation); an unknown name raises ``ValueError``. The built-in
    policies run without the GIL, split where the machine is idle into parts simulated at
    once on the machine's threads (``RAYON_NUM_THREADS`` sets fewer), with the schedule of
    one run. The EASY schedule equals ``slarm simulate --policy easy --schedule-out`` job
    for job.
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a slarm.sim.Trace (from read_swf), got {type(trace).__name__}")
    return _simulate(trace, policy, procs)
