"""A site's own Slurm log under FCFS, EASY, backfilling with four reservations and
conservative backfilling.

Reads Slurm accounting records, the output of

    SLURM_TIME_FORMAT=standard sacct -a -X -P -S 2024-01-01 -E 2025-01-01 \
      --format=JobIDRaw,Submit,Eligible,Start,End,Elapsed,TimelimitRaw,NCPUS,NNodes,ReqCPUS,State,Partition,User,Group

replays the jobs under each policy on the same machine and prints each policy's mean wait,
mean bounded slowdown and utilisation beside the log's own waits. The conservative schedule
is written as Batsim's jobs.csv, with the processors each job ran on, for evalys
(``evalys.jobset.JobSet.from_csv(JOBS.csv)`` draws its Gantt chart).

    python examples/python/slurm_log_policies.py [SITE.sacct[.gz] [PROCS [JOBS.csv]]]

Without a file it writes a small made-up log (seeded, 300 jobs on 64 processors) to a
temporary folder, so that the script runs anywhere; no real site data comes with slarm.
"""

import sys
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

import slarm

HEADER = "JobIDRaw|Submit|Eligible|Start|End|Elapsed|TimelimitRaw|NCPUS|NNodes|ReqCPUS|State|Partition|User|Group"


def made_up_log(path: Path, jobs: int = 300, procs: int = 64) -> None:
    """Jobs arriving about every 20 minutes, 1-32 processors, run times up to 2 hours, each
    started when it was submitted (the recorded waits are 0; the simulation decides)."""
    rng = np.random.default_rng(7)
    t0 = datetime(2024, 3, 1)
    fmt = "%Y-%m-%dT%H:%M:%S"
    lines = [HEADER]
    submit = 0.0
    for k in range(jobs):
        submit += rng.exponential(1200.0)
        run = int(rng.uniform(60, 2 * 3600))
        limit_min = int(np.ceil(run * rng.uniform(1.0, 3.0) / 60))
        cpus = int(rng.choice([1, 2, 4, 8, 16, 32]))
        start = t0 + timedelta(seconds=int(submit))
        end = start + timedelta(seconds=run)
        elapsed = f"{run // 3600:02d}:{run // 60 % 60:02d}:{run % 60:02d}"
        lines.append(
            f"{1000 + k}|{start:{fmt}}|{start:{fmt}}|{start:{fmt}}|{end:{fmt}}|{elapsed}|"
            f"{limit_min}|{cpus}|1|{cpus}|COMPLETED|batch|user{k % 7}|group{k % 3}"
        )
    path.write_text("\n".join(lines) + "\n")


def main() -> None:
    tmp = tempfile.TemporaryDirectory()
    if len(sys.argv) > 1:
        path, procs = Path(sys.argv[1]), (int(sys.argv[2]) if len(sys.argv) > 2 else None)
    else:
        path, procs = Path(tmp.name) / "made-up.sacct", 64
        made_up_log(path, procs=procs)
    trace = slarm.sim.read_sacct(path, procs=procs)
    print(f"{path.name}: {len(trace)} jobs on {trace.machine_procs} processors "
          f"({trace.dropped['total']} dropped, {trace.skipped_lines} bad lines skipped)")
    print(f"{'policy':<14}{'mean wait (s)':>15}{'mean bsld':>12}{'utilisation':>13}")
    print(f"{'(the log)':<14}{float(np.mean(trace.wait)):>15.1f}")
    for policy in ("fcfs", "easy", "backfill:4", "conservative"):
        schedule = slarm.sim.simulate(trace, policy)
        m = schedule.metrics()
        print(f"{policy:<14}{m['mean_wait_s']:>15.1f}{m['mean_bounded_slowdown']:>12.2f}"
              f"{m['utilization']:>13.3f}")
    jobs_csv = Path(sys.argv[3]) if len(sys.argv) > 3 else Path(tmp.name) / "conservative-jobs.csv"
    schedule.write_batsim(jobs_csv)
    print(f"{jobs_csv.name}: Batsim jobs.csv of the conservative schedule, {len(schedule)} jobs; "
          f"the first ran on processors {schedule.allocated_resources[0]}")


if __name__ == "__main__":
    main()
