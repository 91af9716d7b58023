"""slarm.testing.check: equal to `slarm check-schedule --json`, for every schedule form."""

from __future__ import annotations

import numpy as np
import pytest

from slarm import sim, testing

from conftest import optional_module
from test_sim import SWF, FirstFit


@pytest.fixture()
def small(tmp_path):
    path = tmp_path / "small.swf"
    path.write_text(SWF)
    return path


def write_csv(path, d):
    with open(path, "w") as f:
        f.write("job_id,submit,start,end,procs\n")
        for row in zip(*(d[k].tolist() for k in ("job_id", "submit", "start", "end", "procs"))):
            f.write(",".join(repr(v) for v in row) + "\n")


@pytest.mark.parametrize("contract", ["capacity", "fcfs", "easy", "conservative"])
def test_check_equals_cli(cli, small, tmp_path, contract):
    t = sim.read_swf(small)
    s = sim.simulate(t, FirstFit())
    d = s.to_dict()
    d["start"] = d["start"].copy()
    d["start"][0] -= 1.0  # starts before its submission
    d["end"] = d["end"].copy()
    d["end"][1] += 5.0  # runs past its estimate
    path = tmp_path / "s.csv"
    write_csv(path, d)
    want = cli.json(
        "check-schedule", "--trace", str(small), "--schedule", str(path), "--contract", contract, ok_codes=(0, 3)
    )
    got = testing.check(t, d, contract)
    assert got == want["list"] and got


def test_every_schedule_form(small):
    t = sim.read_swf(small)
    s = sim.simulate(t, FirstFit())
    want = testing.check(t, s, "easy")
    assert want and testing.check(t, s.to_dict(), "easy") == want
    lists = {k: v.tolist() for k, v in s.to_dict().items()}
    assert testing.check(t, lists, "easy") == want
    pd = optional_module("pandas")
    assert testing.check(t, pd.DataFrame(s.to_dict()), "easy") == want
    assert testing.check(t, sim.simulate(t, "easy"), "easy") == []


def test_missing_rows_and_unknown_jobs(small):
    t = sim.read_swf(small)
    d = sim.simulate(t, "easy").to_dict()
    cut = {k: v[1:] for k, v in d.items()}
    assert [v["kind"] for v in testing.check(t, cut)] == ["missing-job"]
    d["job_id"] = d["job_id"].copy()
    d["job_id"][0] = 999
    kinds = {v["kind"] for v in testing.check(t, d)}
    assert {"unknown-job", "missing-job"} <= kinds


@pytest.mark.parametrize(
    "schedule,contract,exc",
    [
        ({"job_id": [1]}, "easy", ValueError),
        ({"job_id": [1], "submit": [0.0], "start": [0.0], "end": [1.0], "procs": [1.5]}, "easy", TypeError),
        ({"job_id": [-1], "submit": [0.0], "start": [0.0], "end": [1.0], "procs": [1]}, "easy", ValueError),
        ({"job_id": [1], "submit": [0.0], "start": ["x"], "end": [1.0], "procs": [1]}, "easy", TypeError),
        ({"job_id": [1, 2], "submit": [0.0], "start": [0.0], "end": [1.0], "procs": [1]}, "easy", ValueError),
        ({"job_id": [[1]], "submit": [0.0], "start": [0.0], "end": [1.0], "procs": [1]}, "easy", ValueError),
        ({"job_id": [1], "submit": [0.0], "start": [0.0], "end": [1.0], "procs": [1]}, "lenient", ValueError),
        (42, "easy", ValueError),
    ],
)
def test_hostile_check_input(small, schedule, contract, exc):
    with pytest.raises(exc):
        testing.check(sim.read_swf(small), schedule, contract)


def test_nan_times_are_violations_not_crashes(small):
    t = sim.read_swf(small)
    d = sim.simulate(t, "easy").to_dict()
    d["start"] = d["start"].copy()
    d["start"][2] = np.nan
    testing.check(t, d, "conservative")  # returns (whatever it finds), never crashes
