"""Libra's admission control and pricing on a live time-shared cluster (Yeo & Buyya, §VI).

:class:`Cluster` holds homogeneous time-shared nodes priced by Libra+$ (dynamic pricing),
Libra (static pricing) or a fixed rate. :meth:`Cluster.quote` tells what admission control
(Algorithm 1) would decide for a job and at what price without changing anything;
:meth:`Cluster.submit` admits or rejects it (an accepted job starts at once);
:meth:`Cluster.advance_to` runs the nodes' events (Algorithm 2); :meth:`Cluster.outcome`
reports each job's end once known. Times in seconds.
"""

from __future__ import annotations

from ._native import Cluster

__all__ = ["Cluster"]
