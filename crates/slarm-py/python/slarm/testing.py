"""The schedule checker: every way a schedule breaks a scheduling contract.

Contracts: ``"capacity"`` (the machine is never over-committed, no job starts before its
submission or runs longer than its estimate, every job runs once), ``"fcfs"`` (also: jobs
start in queue order), ``"easy"`` (also: the queue head's EASY reservation is never
delayed, Lifka 1995) and ``"conservative"`` (also: no job starts after the latest
reservation conservative backfilling can have given it on arrival, Mu'alem & Feitelson
2001).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

import numpy as np

from . import _native
from .sim import Schedule, Trace

__all__ = ["check"]

COLUMNS = ("job_id", "submit", "start", "end", "procs")


def _column(schedule: Any, name: str, dtype: Any) -> np.ndarray:
    try:
        values = schedule[name]
    except (KeyError, IndexError, TypeError):
        raise ValueError(f"the schedule has no column {name!r} (needs {', '.join(COLUMNS)})") from None
    a = np.asarray(values)
    if a.ndim != 1:
        raise ValueError(f"column {name!r} must be one-dimensional, got shape {a.shape}")
    if a.dtype.kind not in ("iu" if dtype is not np.float64 else "iuf"):
        raise TypeError(f"column {name!r} must hold {'integers' if dtype is not np.float64 else 'numbers'}, got dtype {a.dtype}")
    if dtype is not np.float64 and a.size:
        lo, hi = int(a.min()), int(a.max())
        info = np.iinfo(dtype)
        if lo < 0 or hi > info.max:
            raise ValueError(f"column {name!r} must lie in 0..{info.max}, got {lo if lo < 0 else hi}")
    return np.ascontiguousarray(a.astype(dtype, copy=False))


def check(trace: Trace, schedule: Any, contract: str = "capacity") -> List[Dict[str, Any]]:
    """Every violation of ``contract`` by ``schedule`` against ``trace`` (empty when the
    schedule keeps it), as dicts with a ``kind`` key (``over-commit``, ``head-delayed``,
    ...) and the fields of ``slarm check-schedule --json``'s ``list``.

    ``schedule`` is a :class:`slarm.sim.Schedule`, a dict of arrays or a pandas DataFrame
    with the columns ``job_id, submit, start, end, procs``.
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a slarm.sim.Trace, got {type(trace).__name__}")
    if isinstance(schedule, Schedule):
        schedule = schedule.to_dict()
    text = _native.check_columns(
        trace,
        _column(schedule, "job_id", np.uint64),
        _column(schedule, "submit", np.float64),
        _column(schedule, "start", np.float64),
        _column(schedule, "end", np.float64),
        _column(schedule, "procs", np.uint32),
        str(contract),
    )
    return json.loads(text)
