"""slarm.queueing: values equal the CLI's --json answers, vectorised equals a scalar loop,
Erlang C agrees with pyworkforce, and hostile input ends in a Python exception."""

from __future__ import annotations

import math

import numpy as np
import pytest

import slarm
from slarm import queueing as q

from conftest import optional_module

CDF_CASES = [
    (40.0, 1.0, 52, 3.0),
    (0.5, 1.0, 1, 2.0),
    (7.5, 2.0, 5, 0.7),
    (99.0, 1.0, 100, 10.0),
    (0.0, 1.0, 3, 1.0),
    (1234.5, 0.5, 2500, 4.0),
    (3.0, 1.0, 4, 0.0),
]


@pytest.mark.parametrize("lam,mu,m,x", CDF_CASES)
def test_cdf_family_equals_cli(cli, lam, mu, m, x):
    want = cli.json("queue", "cdf", "--lambda", repr(lam), "--mu", repr(mu), "--servers", str(m), "--x", repr(x))
    assert q.erlang_c(lam, m, mu) == want["erlang_c"]
    assert q.response_cdf(lam, m, x, mu) == want["cdf"]
    assert q.mean_response(lam, m, mu) == want["mean_response"]


def test_min_nodes_equals_cli_batch(cli, tmp_path):
    rng = np.random.default_rng(7)
    lam = np.round(rng.uniform(0.0, 300.0, 200), 3)
    x = np.round(rng.uniform(0.5, 6.0, 200), 3)
    y = np.round(rng.uniform(0.5, 0.99, 200), 3)
    mu = np.round(rng.uniform(0.5, 2.0, 200), 3)
    path = tmp_path / "rows.csv"
    path.write_text("lambda,mu,x,y\n" + "".join(f"{a!r},{d!r},{b!r},{c!r}\n" for a, b, c, d in zip(lam, x, y, mu)))
    want = cli.json("queue", "size", "--batch", str(path), ok_codes=(0, 2))["results"]
    got = q.min_nodes(lam, x, y, mu, errors="mask")
    assert len(want) == len(got)
    infeasible = 0
    for row, nodes in zip(want, got):
        if row["error"] is None:
            assert nodes == row["nodes"]
        else:
            infeasible += 1
            assert nodes == -1
            with pytest.raises(ValueError) as e:
                q.min_nodes(row["lambda"], row["x"], row["y"], row["mu"])
            assert str(e.value) == row["error"]
    assert 0 < infeasible < len(want)


@pytest.mark.parametrize(
    "classes",
    [
        [(10.0, 3.0, 0.95), (20.0, 4.0, 0.9)],
        [(12.0, 5.0, 0.85), (3.0, 3.0, 0.95), (20.0, 4.0, 0.9)],
        [(5.0, 3.0, 0.9)],
        [(5.0, 3.0, 0.9), (6.0, 2.5, 0.8), (7.0, 4.0, 0.95), (1.0, 3.0, 0.7)],
    ],
)
def test_size_equals_cli(cli, classes):
    args = ["queue", "size"]
    for lam, x, y in classes:
        args += ["--class", f"{lam!r}:{x!r}:{y!r}"]
    assert q.size(classes) == cli.json(*args)


def test_scalars_give_python_numbers():
    assert isinstance(q.erlang_c(1.0, 2), float)
    assert isinstance(q.min_nodes(40.0, 3.0, 0.95), int)
    assert q.min_nodes(40.0, 3.0, 0.95) == 52
    assert abs(q.erlang_c(1.0, 2) - 1.0 / 3.0) < 1e-15
    # M/M/1: T ~ Exp(mu - lambda), so the median response is ln 2 / 0.5.
    assert abs(q.response_quantile(0.5, 1, 0.5) - 2.0 * math.log(2.0)) < 1e-11


def grid():
    rng = np.random.default_rng(11)
    lam = rng.uniform(0.0, 80.0, 400)
    servers = rng.integers(0, 120, 400)
    x = rng.uniform(0.1, 5.0, 400)
    p = rng.uniform(0.0, 0.999, 400)
    y = rng.uniform(0.3, 0.999, 400)
    return lam, servers, x, p, y


def test_vectorised_equals_scalar_loop():
    lam, servers, x, p, y = grid()
    cases = [
        (q.erlang_c, (lam, servers), math.nan),
        (q.mean_response, (lam, servers), math.nan),
        (q.response_cdf, (lam, servers, x), math.nan),
        (q.response_quantile, (lam, servers, p), math.nan),
        (q.min_nodes, (lam, x, y), -1),
    ]
    for f, args, fill in cases:
        vec = f(*args, errors="mask")
        assert vec.shape == (400,)
        bad = 0
        for i in range(400):
            row = [a[i] for a in args]
            try:
                want = f(*[a.item() for a in row])
            except ValueError:
                want = fill
                bad += 1
            if isinstance(want, float) and math.isnan(want):
                assert math.isnan(vec[i]), (f.__name__, i)
            else:
                assert vec[i] == want, (f.__name__, i)
        assert bad < 400, f.__name__  # the grid has answers
    assert any(math.isnan(v) for v in q.erlang_c(lam, servers, errors="mask"))  # and holes


def test_broadcasting_like_a_ufunc():
    lam = np.array([[10.0], [20.0], [30.0]])
    servers = np.array([40, 50])
    c = q.erlang_c(lam, servers)
    assert c.shape == (3, 2)
    for i in range(3):
        for j in range(2):
            assert c[i, j] == q.erlang_c(float(lam[i, 0]), int(servers[j]))
    m = q.min_nodes([10.0, 20.0], 3.0, np.array([[0.9], [0.95]]))
    assert m.shape == (2, 2) and m.dtype == np.int64
    assert q.erlang_c(np.array([]), 3).shape == (0,)
    assert q.min_nodes(np.zeros((0, 4)), 3.0, 0.9).shape == (0, 4)


def test_raise_names_the_first_bad_index():
    with pytest.raises(ValueError, match=r"at index 2: unstable queue"):
        q.erlang_c([1.0, 2.0, 5.0, 9.0], 4)
    with pytest.raises(ValueError, match=r"at index \(1, 0\)"):
        q.erlang_c(np.array([[1.0, 1.0], [7.0, 1.0]]), 4)
    masked = q.erlang_c([1.0, 2.0, 5.0], 4, errors="mask")
    assert math.isnan(masked[2]) and not math.isnan(masked[1])
    assert list(q.min_nodes([40.0, 1.0], [3.0, 2.0], 0.9, errors="mask")) == [q.min_nodes(40.0, 3.0, 0.9), -1]


def test_agrees_with_pyworkforce_on_1000_pairs():
    queuing = optional_module("pyworkforce.queuing")
    ErlangC = queuing.queuing.ErlangC
    rng = np.random.default_rng(2026)
    a = rng.uniform(0.2, 150.0, 1000)
    m = np.floor(a).astype(np.int64) + 1 + rng.integers(0, 25, 1000)
    ours = q.erlang_c(a, m)
    worst = 0.0
    for ai, mi, ci in zip(a, m, ours):
        theirs = ErlangC(transactions=float(ai), aht=1.0, asa=1.0, interval=1, shrinkage=0.0).waiting_probability(
            positions=int(mi)
        )
        worst = max(worst, abs(ci - theirs) / max(theirs, 1e-300))
    # pyworkforce sums the Erlang series in floating point; 1e-9 relative is far tighter than
    # any sizing decision needs and far looser than either side's rounding.
    assert worst < 1e-9, worst


@pytest.mark.parametrize(
    "call",
    [
        lambda: q.erlang_c(math.nan, 3),
        lambda: q.erlang_c(math.inf, 3),
        lambda: q.erlang_c(-1.0, 3),
        lambda: q.erlang_c(1.0, 0),
        lambda: q.erlang_c(1.0, -5),
        lambda: q.erlang_c(1.0, 3, mu=0.0),
        lambda: q.erlang_c(1.0, 3, mu=-1.0),
        lambda: q.erlang_c(1e300, 2**62),
        lambda: q.response_cdf(1.0, 3, math.nan),
        lambda: q.response_cdf(1.0, 3, math.inf),
        lambda: q.response_quantile(1.0, 3, 1.0),
        lambda: q.response_quantile(1.0, 3, -0.1),
        lambda: q.response_quantile(1.0, 3, math.nan),
        lambda: q.min_nodes(1e300, 3.0, 0.9),
        lambda: q.min_nodes(math.nan, 3.0, 0.9),
        lambda: q.min_nodes(1.0, 0.0, 0.9),
        lambda: q.min_nodes(1.0, 3.0, 1.0),
        lambda: q.min_nodes(1.0, math.inf, 0.9),
        lambda: q.min_nodes(1.0, 3.0, 0.9, mu=math.nan),
        lambda: q.erlang_c([1.0, 2.0], [1, 2, 3]),
        lambda: q.erlang_c(1.0, 3, errors="ignore"),
        lambda: q.erlang_c(1.0, np.array([2**63], dtype=np.uint64)),
        lambda: q.size([]),
        lambda: q.size([(1.0, 2.0)]),
        lambda: q.size([(1.0, 0.5, 0.99), (1.0, 3.0, 0.9)]),
        lambda: q.size([(math.nan, 3.0, 0.9)]),
        lambda: q.size([(1.0, 3.0, 0.9)] * 40),
    ],
)
def test_hostile_values_raise_value_error(call):
    with pytest.raises(ValueError) as e:
        call()
    assert "\n" not in str(e.value) and str(e.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: q.erlang_c("40", 3),
        lambda: q.erlang_c(1.0, 3.0),
        lambda: q.erlang_c(1.0, [3.5]),
        lambda: q.erlang_c([1 + 2j], 3),
        lambda: q.erlang_c(np.array([object()]), 3),
        lambda: q.min_nodes(None, 3.0, 0.9),
        lambda: q.min_nodes(True, 3.0, 0.9),
        lambda: q.size("abc"),
    ],
)
def test_wrong_dtypes_raise(call):
    with pytest.raises((TypeError, ValueError)):
        call()


def test_huge_loads_answer_or_refuse_quickly():
    # A load at the model's limit answers (bounded work); beyond it, a ValueError.
    assert q.min_nodes(1e6, 3.0, 0.9) > 1e6
    assert q.erlang_c(1e9, 10**9 + 10**6) >= 0.0
    with pytest.raises(ValueError):
        q.erlang_c(1e13, 10**14)


def test_module_layout():
    assert slarm.__version__ == "0.1.0"
    import slarm.queueing as direct

    assert direct.erlang_c is q.erlang_c
