"""slarm.sim: traces, the simulator under built-in and Python policies, the step-wise
simulation, and hostile input."""

from __future__ import annotations

import csv
import gzip
import math
import threading

import numpy as np
import pytest

import slarm
from slarm import sim

from conftest import optional_module

SWF = """; MaxProcs: 10
; MaxNodes: 10
1 0 -1 100 6 -1 -1 6 100 -1 1 1 -1 -1 -1 -1 -1 -1
2 1 -1 50 8 -1 -1 8 50 -1 1 1 -1 -1 -1 -1 -1 -1
3 2 -1 90 4 -1 -1 4 90 -1 1 1 -1 -1 -1 -1 -1 -1
4 3 -1 0 4 -1 -1 4 90 -1 1 1 -1 -1 -1 -1 -1 -1
5 4 -1 500 4 -1 -1 4 500 -1 1 1 -1 -1 -1 -1 -1 -1
6 5 -1 30 12 -1 -1 12 30 -1 1 1 -1 -1 -1 -1 -1 -1
7 6 -1 10 2 -1 -1 2 20 -1 1 1 -1 -1 -1 -1 -1 -1
"""


@pytest.fixture()
def small(tmp_path):
    path = tmp_path / "small.swf"
    path.write_text(SWF)
    return path


class FirstFit:
    """Starts every queued job that fits, in queue order (no reservation)."""

    name = "first-fit"

    def schedule(self, machine, queue):
        free = machine.free
        out = []
        for pos, procs in enumerate(queue.procs.tolist()):
            if procs <= free:
                free -= procs
                out.append(pos)
        return out


class Greedy:
    """Starts the whole queue: over-commits as soon as the queue does not fit."""

    def schedule(self, machine, queue):
        return list(range(len(queue)))


def read_csv(path):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    return {k: np.array([float(r[k]) for r in rows]) for k in ("job_id", "submit", "start", "end", "procs")}


def test_read_swf_counts_and_columns(small):
    t = sim.read_swf(small)
    assert len(t) == 5 and t.machine_procs == 10
    assert t.dropped == {"runtime_nonpositive": 1, "procs_nonpositive": 0, "procs_exceed_machine": 1, "total": 2}
    assert list(t.job_id) == [1, 2, 3, 5, 7]
    assert list(t.estimate) == [100.0, 50.0, 90.0, 500.0, 20.0]
    assert t.job_id.dtype == np.uint64 and t.submit.dtype == np.float64
    assert set(t.to_dict()) >= {"job_id", "submit", "runtime", "procs", "estimate"}
    assert len(sim.read_swf(small, procs=12)) == 6


def test_gzip_and_trace_stats_equal_cli(cli, small, tmp_path):
    gz = tmp_path / "small.swf.gz"
    gz.write_bytes(gzip.compress(small.read_bytes()))
    t = sim.read_swf(gz)
    want = cli.json("trace", "stats", str(gz))
    assert (len(t), t.machine_procs, t.dropped["total"], t.skipped_lines) == (
        want["jobs"],
        want["max_procs"],
        want["dropped"],
        want["skipped_lines"],
    )
    assert t.dropped["procs_exceed_machine"] == want["dropped_by_reason"]["procs_exceed_machine"]


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "backfill:0", "backfill:4", "backfill:all"])
def test_builtin_policies_equal_cli(cli, small, tmp_path, policy):
    out = tmp_path / "s.csv"
    want = cli.json("simulate", "--trace", str(small), "--policy", policy, "--schedule-out", str(out))
    s = sim.simulate(sim.read_swf(small), policy)
    rows = read_csv(out)
    for k, v in s.to_dict().items():
        assert np.array_equal(v.astype(np.float64), rows[k]), k
    m = s.metrics()
    for k in ("jobs", "mean_wait_s", "max_wait_s", "mean_response_s", "mean_bounded_slowdown", "utilization", "makespan_s"):
        assert m[k] == want[k], k
    assert s.policy == policy


def test_easy_on_kth_equals_cli_job_for_job(cli, kth_path, kth, tmp_path):
    out = tmp_path / "kth-easy.csv"
    cli.json("simulate", "--trace", str(kth_path), "--policy", "easy", "--schedule-out", str(out))
    rows = read_csv(out)
    s = sim.simulate(kth, "easy")
    d = s.to_dict()
    assert len(s) == len(rows["job_id"]) > 28000
    for k in ("job_id", "submit", "start", "end", "procs"):
        assert np.array_equal(d[k].astype(np.float64), rows[k]), k


def test_python_first_fit_runs_and_breaks_easy(kth):
    s = sim.simulate(kth, FirstFit())
    assert s.policy == "first-fit" and len(s) == len(kth)
    assert slarm.testing.check(kth, s, "capacity") == []
    violations = slarm.testing.check(kth, s, "easy")
    assert violations and all(v["kind"] == "head-delayed" for v in violations)
    easy = sim.simulate(kth, "easy")
    assert slarm.testing.check(kth, easy, "easy") == []


def test_python_policy_equal_to_builtin_fcfs(small):
    class Fcfs:
        def schedule(self, machine, queue):
            free, out = machine.free, []
            for pos, (_, procs, _) in enumerate(queue):
                if procs > free:
                    break
                free -= procs
                out.append(pos)
            return out

    t = sim.read_swf(small)
    a, b = sim.simulate(t, Fcfs()).to_dict(), sim.simulate(t, "fcfs").to_dict()
    for k in a:
        assert np.array_equal(a[k], b[k])


def test_hooks_are_called(small):
    class Hooked(FirstFit):
        def __init__(self):
            self.log = []

        def begin(self, capacity, origin):
            self.log.append(("begin", capacity, origin))

        def on_arrival(self, now, job):
            self.log.append(("arrive", now, job))
            return now + 1000.0

        def on_finish(self, now, job, predicted_end):
            self.log.append(("finish", now, job[0], predicted_end))

    p = Hooked()
    t = sim.read_swf(small)
    s = sim.simulate(t, p)
    assert p.log[0] == ("begin", 10, 0.0)
    assert sum(1 for e in p.log if e[0] == "arrive") == len(t)
    assert sum(1 for e in p.log if e[0] == "finish") == len(t)
    assert list(s.reservation) == list(t.submit + 1000.0)


def test_over_committing_policy_raises(kth):
    with pytest.raises(ValueError, match="free processors"):
        sim.simulate(kth, Greedy())


@pytest.mark.parametrize(
    "answer,exc,match",
    [
        ([5], ValueError, "inside the queue"),
        ([0, 0], ValueError, "ascending"),
        ([-1], ValueError, "negative"),
        (["0"], TypeError, "int"),
        ([0.0], TypeError, "int"),
        (42, TypeError, "positions"),
        ({"start": [99]}, ValueError, "inside the queue"),
    ],
)
def test_garbage_answers_raise(small, answer, exc, match):
    class Bad:
        def schedule(self, machine, queue):
            return answer

    with pytest.raises(exc, match=match):
        sim.simulate(sim.read_swf(small), Bad())


def test_policy_exception_propagates(small):
    class Boom(Exception):
        pass

    class Raises:
        def schedule(self, machine, queue):
            raise Boom("policy bug")

    with pytest.raises(Boom, match="policy bug"):
        sim.simulate(sim.read_swf(small), Raises())

    class BadHook(FirstFit):
        def on_arrival(self, now, job):
            return "soon"

    with pytest.raises(TypeError):
        sim.simulate(sim.read_swf(small), BadHook())


def test_endless_wakeups_are_stopped(small):
    class Sleeper:
        def schedule(self, machine, queue):
            return {"start": [], "wake": machine.now + 1.0}

    with pytest.raises(RuntimeError, match="scheduling passes"):
        sim.simulate(sim.read_swf(small), Sleeper())


def test_policy_that_starts_nothing_ends(small):
    class Idle:
        def schedule(self, machine, queue):
            return None

    s = sim.simulate(sim.read_swf(small), Idle())
    assert len(s) == 0


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda p: sim.simulate(sim.read_swf(p), "sjf"), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), "backfill:-1"), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), "backfill:1000001"), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), "backfill:+4"), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), "backfill:"), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), "backfill:1e3"), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), 3), TypeError),
        (lambda p: sim.simulate(sim.read_swf(p), object()), TypeError),
        (lambda p: sim.simulate("trace.swf", "easy"), TypeError),
        (lambda p: sim.simulate(sim.read_swf(p), "easy", procs=0), ValueError),
        (lambda p: sim.simulate(sim.read_swf(p), "easy", procs=-3), OverflowError),
        (lambda p: sim.simulate(sim.read_swf(p), "easy", procs=4), ValueError),
        (lambda p: sim.read_swf(p, procs=0), ValueError),
        (lambda p: sim.read_swf(p.parent / "missing.swf"), OSError),
        (lambda p: sim.read_swf(p.parent), OSError),
        (lambda p: sim.read_swf(None), TypeError),
        (lambda p: sim.simulate(sim.read_swf(p), "easy").metrics(tau=math.nan), ValueError),
    ],
)
def test_hostile_sim_input(small, call, exc):
    with pytest.raises(exc) as e:
        call(small)
    assert "\n" not in str(e.value)


def test_malformed_line_names_file_and_line(tmp_path):
    path = tmp_path / "bad.swf"
    lines = SWF.splitlines()
    lines[4] = "3 2 -1 ninety 4 -1 -1 4 90 -1 1 1 -1 -1 -1 -1 -1 -1"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ValueError, match=r"bad\.swf.*line 5"):
        sim.read_swf(path)
    t = sim.read_swf(path, lenient=True)
    assert t.skipped_lines == 1 and len(t) == 4


def test_empty_and_binary_files(tmp_path):
    empty = tmp_path / "empty.swf"
    empty.write_text("; MaxProcs: 4\n")
    with pytest.raises(ValueError, match="no job lines"):
        sim.read_swf(empty)
    junk = tmp_path / "junk.swf.gz"
    junk.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(ValueError):
        sim.read_swf(junk)


def test_from_jobs_and_schedule_columns():
    t = sim.Trace.from_jobs([1, 2, 3], [0.0, 1.0, 2.0], [100.0, 50.0, 90.0], [6, 8, 4], [100.0, 50.0, 90.0], 10)
    s = sim.simulate(t, "easy")
    assert list(s.start) == [0.0, 100.0, 2.0]
    with pytest.raises(ValueError):
        sim.Trace.from_jobs([1], [0.0, 1.0], [1.0], [1], [1.0], 4)
    with pytest.raises(ValueError):
        sim.Trace.from_jobs([1], [math.nan], [1.0], [1], [1.0], 4)


# ---- step-wise ----------------------------------------------------------------------------


def drive(simulation, policy):
    decisions = 0
    while not simulation.done:
        d = simulation.next_decision()
        simulation.start(policy.schedule(d.machine, d.queue))
        decisions += 1
    return simulation.schedule(), decisions


def test_stepwise_equals_simulate_with_the_same_choices(kth):
    want = sim.simulate(kth, FirstFit()).to_dict()
    got, decisions = drive(sim.Simulation(kth), FirstFit())
    assert decisions > 1000
    for k, v in got.to_dict().items():
        assert np.array_equal(v, want[k]), k
    assert got.allocated_resources == sim.simulate(kth, FirstFit()).allocated_resources


def test_stepwise_state(small):
    s = sim.Simulation(sim.read_swf(small))
    d = s.next_decision()
    assert (d.time, d.free, len(d.queue)) == (0.0, 10, 1)
    assert list(d.queue.procs) == [6] and list(d.machine.running_end) == []
    s.start([0])
    d = s.next_decision()
    assert d.time == 1.0 and d.free == 4 and list(d.machine.running_procs) == [6]
    assert list(d.machine.running_end) == [100.0]


def test_queue_indexing_and_iteration(small):
    s = sim.Simulation(sim.read_swf(small))
    s.start([0])
    q = s.next_decision().queue
    assert len(q) == 1 and q[0] == q[-1] == (1, 8, 50.0) and list(q) == q.tolist() == [(1, 8, 50.0)]
    with pytest.raises(IndexError):
        q[1]
    with pytest.raises(IndexError):
        q[-2]


def test_stepwise_bad_answers(small):
    s = sim.Simulation(sim.read_swf(small))
    with pytest.raises(ValueError, match="inside the queue"):
        s.start([3])
    assert s.done and s.next_decision() is None and s.schedule() is None
    with pytest.raises(RuntimeError, match="done"):
        s.start([])
    s = sim.Simulation(sim.read_swf(small))
    with pytest.raises(TypeError):
        s.start("x")
    s.start([0])  # still usable after a rejected answer's type error


def test_stepwise_abandoned_midway_does_not_hang(kth):
    for _ in range(3):
        s = sim.Simulation(kth)
        s.start([0])
        del s
    assert threading.active_count() < 50


def test_to_dict_goes_to_pandas(small):
    pd = optional_module("pandas")
    s = sim.simulate(sim.read_swf(small), "easy")
    df = pd.DataFrame(s.to_dict())
    assert list(df.columns) == ["job_id", "submit", "start", "end", "procs"] and len(df) == 5


@pytest.mark.parametrize("policy", ["easy", "conservative"])
def test_write_batsim_equals_the_cli_file(cli, kth_path, kth, tmp_path, policy):
    # The file `.ci/evalys` has evalys read and draw, written from Python instead.
    want, got = tmp_path / "cli-jobs.csv", tmp_path / "py-jobs.csv"
    cli.json("simulate", "--trace", str(kth_path), "--policy", policy, "--schedule-format", "batsim", "--schedule-out", str(want))
    s = sim.simulate(kth, policy)
    s.write_batsim(got)
    assert got.read_bytes() == want.read_bytes()
    with open(got) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(s) > 28000
    assert [r["allocated_resources"] for r in rows] == s.allocated_resources
    r = cli.run("check-schedule", "--trace", str(kth_path), "--schedule", str(got), "--schedule-format", "batsim", "--contract", policy)
    assert r.returncode == 0, r.stderr


def test_batsim_columns_and_processors(small, tmp_path):
    s = sim.simulate(sim.read_swf(small), "easy")
    # Job 1 takes 0-5 at t = 0, job 3 backfills on 6-9 at t = 2 and job 7 on 6-7 when job 3
    # ends at 92; at 100 job 2 takes the lowest free (0-5 and 8-9), job 5 0-3 at 150.
    assert list(s.job_id) == [1, 2, 3, 5, 7]
    assert s.allocated_resources == ["0-5", "0-5 8-9", "6-9", "0-3", "6-7"]
    path = tmp_path / "jobs.csv"
    s.write_batsim(path, workload="site,a")
    with open(path) as f:
        header, first = f.readline().strip().split(","), f.readline().strip().split(",")
    assert header[:3] == ["job_id", "workload_name", "profile"] and header[-2:] == ["allocated_resources", "metadata"]
    assert first[:3] == ["1", "sitea", "delay"] and first[-2] == "0-5"
    pd = optional_module("pandas")
    df = pd.read_csv(path)
    assert len(df) == len(s) and list(df["job_id"]) == list(s.job_id)


def test_write_batsim_bad_paths_leave_files_alone(small, tmp_path):
    s = sim.simulate(sim.read_swf(small), "easy")
    with pytest.raises(OSError, match="no-such-folder"):
        s.write_batsim(tmp_path / "no-such-folder" / "jobs.csv")
    folder = tmp_path / "a-folder"
    folder.mkdir()
    (folder / "inside").write_text("kept")
    with pytest.raises(OSError, match="a-folder"):
        s.write_batsim(folder)
    assert (folder / "inside").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-folder", "small.swf"]


SACCT = """JobIDRaw|Submit|Eligible|Start|End|Elapsed|TimelimitRaw|NCPUS|NNodes|ReqCPUS|State|Partition|User|Group
100|2024-03-01T10:00:00|2024-03-01T10:00:00|2024-03-01T10:00:30|2024-03-01T10:10:30|00:10:00|15|8|1|8|COMPLETED|batch|alice|g1
101_1|2024-03-01T10:01:00|2024-03-01T10:01:00|2024-03-01T10:01:00|2024-03-01T10:02:00|00:01:00|UNLIMITED|4|1|4|TIMEOUT|batch|bob|g1
102|2024-03-01T10:02:00|2024-03-01T10:02:00|Unknown|Unknown|00:00:00|10|0|0|2|CANCELLED by 1000|debug|alice|g2
103+0|2024-03-01T10:03:00|2024-03-01T10:05:00|2024-03-01T10:05:00|2024-03-01T10:06:40|00:01:40|5|2|1|2|COMPLETED|batch|carol|g1
"""


def test_read_sacct_equals_the_cli_import(cli, tmp_path):
    path = tmp_path / "site.sacct"
    path.write_text(SACCT)
    t = sim.read_sacct(path)
    # The cancelled job never ran: dropped like a job of run time 0. Job 103+0 arrives when
    # it became eligible, 300 s after the first submission; 8 + 4 processors were in use at
    # 10:01, the machine size taken when none is given.
    assert len(t) == 3 and t.dropped["total"] == 1 and t.machine_procs == 12
    assert t.not_run == {"cancelled": 1}
    assert list(t.submit) == [0.0, 60.0, 300.0]
    assert list(t.runtime) == [600.0, 60.0, 100.0]
    assert list(t.procs) == [8, 4, 2]
    assert list(t.user) == [1, 2, 3]
    swf = tmp_path / "site.swf"
    r = cli.run("trace", "import", "--from", "sacct", str(path), "--out", str(swf))
    assert r.returncode == 0, r.stderr
    want = sim.read_swf(swf)
    assert want.not_run == {}
    for k, v in want.to_dict().items():
        assert np.array_equal(t.to_dict()[k], v), k
    # Simulated, each job starts when it arrives: 8 + 4 processors fit in 12.
    s = sim.simulate(t, "easy")
    assert list(s.start) == [0.0, 60.0, 300.0]
    # Local times of a zone one hour east of UTC: the same jobs, the header's start an hour
    # earlier; an explicit machine size.
    east = sim.read_sacct(path, tz="+01:00", procs=16)
    assert east.machine_procs == 16 and list(east.submit) == list(t.submit)


def test_read_sacct_bad_input(tmp_path):
    path = tmp_path / "bad.sacct"
    path.write_text(SACCT.replace("00:01:40", "soon"))
    with pytest.raises(ValueError, match=r"bad\.sacct: line 5: column Elapsed"):
        sim.read_sacct(path)
    t = sim.read_sacct(path, lenient=True)
    assert t.skipped_lines == 1 and len(t) == 2
    with pytest.raises(ValueError, match="time zone"):
        sim.read_sacct(path, tz="Mars/Olympus")
    with pytest.raises(ValueError, match="procs"):
        sim.read_sacct(path, procs=0)
    with pytest.raises(OSError):
        sim.read_sacct(tmp_path / "missing.sacct")
