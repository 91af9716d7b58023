"""The online overbooking planner (Birkenheuer 2012, §3.1 negotiation, §3.3 planning, §3.6
strategies).

:class:`OnlinePlanner` learns the runtime statistics of job classes (the ratio of real run
time to estimate, per runtime / resource / user / application class) from history given as
arrays, then negotiates: :meth:`OnlinePlanner.offer` tells what could be promised to a new
job (start, allotted time, probability of failure, fee, penalty) without committing,
:meth:`OnlinePlanner.accept` or :meth:`OnlinePlanner.reject` settles the offer, and
:meth:`OnlinePlanner.update` reports what happens on the machine: ``("finished", key)``,
``("killed", key)``, ``("node-failed", node)``, ``("node-repaired", node)``. Times are
integer seconds.
"""

from __future__ import annotations

from ._native import Offer, OnlinePlanner

__all__ = ["OnlinePlanner", "Offer"]
