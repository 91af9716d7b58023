"""slarm: SLA-aware resource management with a Rust core.

Modules (each a thin layer over the Rust crates of the same name):

- :mod:`slarm.queueing` -- M/M/m FCFS formulas and sizing after Hu (2009): Erlang C, the
  response-time CDF and quantile, the mean response time, Algorithm 1's minimum nodes and
  the multiclass SA/DA sizing; scalars or numpy arrays in, broadcast like ufuncs.
- :mod:`slarm.sim` -- SWF traces of the Parallel Workloads Archive, a site's Slurm
  accounting records (``sacct``), and the trace-driven batch simulator (FCFS, EASY
  backfilling after Lifka 1995, conservative backfilling after Mu'alem & Feitelson 2001, or
  a policy written in Python), also step by step.
- :mod:`slarm.testing` -- the schedule checker (capacity, FCFS, EASY, conservative).
- :mod:`slarm.overbook` -- the online overbooking planner after Birkenheuer et al. (2012).
- :mod:`slarm.pricing` -- Libra's admission control and pricing after Yeo & Buyya.

Every bad input raises ``ValueError`` or ``TypeError`` with one line; long calls release
the GIL.
"""

from . import _native
from . import overbook, pricing, queueing, sim, testing

__version__: str = _native.__version__

__all__ = ["queueing", "sim", "testing", "overbook", "pricing", "__version__"]
