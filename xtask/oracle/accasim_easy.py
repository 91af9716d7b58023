"""Runs AccaSim's EASY-like scheduler (EASYBackfilling + FirstFit) on an SWF trace.

For the speed comparison of docs/performance.md "[slarm-sim]" only; AccaSim's EASY is not
design.md section 3's (node-level allocation, its own reservation bookkeeping), so its
schedule is not compared job by job. Usage, with AccaSim installed in some Python:

    python accasim_easy.py TRACE.swf RESULTS_DIR [NODES CORES_PER_NODE]

TRACE.swf must be plain text (AccaSim opens it with open()). The default machine is
HPC2N's: 120 nodes of 2 processors (AccaSim's own config/HPC2N.config). Two adaptations,
neither of which changes AccaSim's code:
  * AccaSim 1.1.3 does `from collections import Mapping`, removed in Python 3.10; the
    alias is restored before the import;
  * memory requests are dropped (processors only, as in design.md section 3): with the
    default tweaker, jobs without a memory field request 0 and AccaSim's EASY slot
    computation divides by that request.
"""

import collections
import collections.abc
import json
import os
import sys
import time

collections.Mapping = collections.abc.Mapping  # noqa: E402 (see the docstring)

from accasim.base.allocator_class import FirstFit  # noqa: E402
from accasim.base.scheduler_class import EASYBackfilling  # noqa: E402
from accasim.base.simulator_class import Simulator  # noqa: E402
from accasim.utils.reader_class import DefaultTweaker  # noqa: E402


class ProcessorsOnly(DefaultTweaker):
    """Drops the per-processor memory request before AccaSim's default tweak."""

    def tweak_function(self, _dict):
        _dict.pop("mem", None)
        return DefaultTweaker.tweak_function(self, _dict)


def main(argv):
    trace, results = argv[0], os.path.abspath(argv[1])
    nodes = int(argv[2]) if len(argv) > 2 else 120
    cores = int(argv[3]) if len(argv) > 3 else 2
    os.makedirs(results, exist_ok=True)
    config = os.path.join(results, "system.config")
    with open(config, "w") as f:
        json.dump({"system_name": f"{nodes} x {cores} processors",
                   "groups": {"g0": {"core": cores}}, "resources": {"g0": nodes}}, f)
    t0 = time.process_time()
    sim = Simulator(trace, config, EASYBackfilling(FirstFit()), RESULTS_FOLDER_PATH=results,
                    tweak_function=ProcessorsOnly(0))
    sim.start_simulation()
    print(f"main-process CPU {time.process_time() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
