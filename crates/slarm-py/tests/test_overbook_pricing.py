"""slarm.overbook.OnlinePlanner and slarm.pricing.Cluster: round trips with the Rust
semantics (the same scenarios as the Rust crates' documentation examples) and hostile
input."""

from __future__ import annotations

import math

import pytest

from slarm import overbook, pricing


def planner(**kw):
    # History: jobs use half of their one-hour estimate on two nodes.
    return overbook.OnlinePlanner(4, [3600] * 50, [1800] * 50, [2] * 50, **kw)


def test_planner_round_trip():
    p = planner(strategy="heur-overbook", test="pof:0.5")
    assert (p.nodes, p.now, p.strategy) == (4, 0, "heur-overbook")
    offer = p.offer(1, 0, 3600, 4)
    assert (offer.start, offer.allotted, offer.overbooked) == (0, 3600, False)
    assert 0.0 <= offer.pof <= 1.0 and offer.fee == pytest.approx(4.0) and offer.penalty == pytest.approx(4.0)
    key = p.accept(offer)
    assert key == 0
    second = p.offer(2, 0, 3600, 4)
    assert second.start == 3600
    p.reject(second)
    p.update(1200, [("finished", key)])
    assert p.now == 1200
    assert p.offer(2, 1200, 3600, 4).start == 1200
    jobs = p.jobs()
    assert len(jobs) == 1 and jobs[0]["job_id"] == 1 and jobs[0]["state"] == "succeeded"
    assert set(offer.to_dict()) == {"job_id", "start", "slot_end", "allotted", "nodes", "pof", "overbooked", "fee", "penalty"}


def test_planner_node_events_and_strategies():
    for strategy in ("comp-backfill", "heur-plan", "comp-overbook", "heur-overbook"):
        p = planner(strategy=strategy, test="risk:1")
        k = p.accept(p.offer(7, 0, 3600, 2, penalty_ratio=2.0))
        p.update(10, [("node-failed", 0), ("node-repaired", 0)])
        p.update(4000, [])
        assert p.jobs()[0]["key"] == k


def test_offer_is_used_once():
    p = planner()
    o = p.offer(1, 0, 3600, 1)
    p.accept(o)
    with pytest.raises(RuntimeError, match="already"):
        p.accept(o)
    with pytest.raises(RuntimeError, match="already"):
        p.reject(o)


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda: planner(strategy="greedy"), ValueError),
        (lambda: planner(test="pof"), ValueError),
        (lambda: planner(test="pof:2"), ValueError),
        (lambda: planner(stats="colour"), ValueError),
        (lambda: overbook.OnlinePlanner(0, [3600], [1800]), ValueError),
        (lambda: overbook.OnlinePlanner(4, [3600, 10], [1800]), ValueError),
        (lambda: overbook.OnlinePlanner(4, [0], [10]), ValueError),
        (lambda: overbook.OnlinePlanner(4, [3600], [-5]), ValueError),
        (lambda: overbook.OnlinePlanner(4, [3600], [1800.5]), TypeError),
        (lambda: overbook.OnlinePlanner(4, [], []), ValueError),
        (lambda: planner().offer(1, 0, 0, 1), ValueError),
        (lambda: planner().offer(1, 0, 3600, 0), ValueError),
        (lambda: planner().offer(1, 0, 3600, 1, penalty_ratio=math.nan), ValueError),
        (lambda: planner().offer(1, 0, 3600, 1, penalty_ratio=-1.0), ValueError),
        (lambda: planner().offer(1, 0, 3600, -1), OverflowError),
        (lambda: planner().update(10, [("finished", 3)]), ValueError),
        (lambda: planner().update(10, [("exploded", 0)]), ValueError),
        (lambda: planner().update(10, [("node-failed", 99)]), ValueError),
    ],
)
def test_planner_hostile_input(call, exc):
    with pytest.raises(exc) as e:
        call()
    assert "\n" not in str(e.value)


def test_planner_time_moves_forward_only():
    p = planner()
    p.update(100)
    with pytest.raises(ValueError):
        p.update(50)


def test_offer_of_another_planner_is_refused():
    a, b = planner(), planner()
    with pytest.raises(ValueError):
        b.accept(a.offer(1, 0, 3600, 1))


def test_cluster_round_trip():
    c = pricing.Cluster(1, rating=168.0, policy="libra+$", alpha=1.0, beta=0.1, pbase=1.0)
    assert (c.clock, c.submitted, c.running, c.policy) == (0.0, 0, 0, "libra-plus")
    q = c.quote(0, 0.0, 100.0, 1, 800.0, 200.0, runtime=100.0)
    price = 100.0 * (1.0 + 0.1 * 800.0 / 700.0)  # eq. 6 on an idle node
    assert q["accepted"] and abs(q["price"] - price) < 1e-9
    assert c.submitted == 0  # a quote changes nothing
    d = c.submit(0, 0.0, 100.0, 1, 800.0, 200.0, runtime=100.0)
    assert d["accepted"] and d["index"] == 0 and d["nodes"] == [0] and d["cost"] == q["cost"]
    assert c.outcome(0) is None and c.running == 1
    late = c.quote(1, 10.0, 100.0, 1, 400.0, 110.0)
    assert not late["accepted"] and late["reason"] == "cannot_meet_budget" and late["price"] > 110.0
    d = c.submit(1, 10.0, 100.0, 1, 400.0, 110.0)
    assert not d["accepted"] and c.outcome(1) == {"kind": "rejected", "reason": "cannot_meet_budget"}
    c.advance_to(1000.0)
    o = c.outcome(0)
    assert o["kind"] == "completed" and o["cost"] == q["cost"] and o["start"] == 0.0
    c.run_to_completion()


def test_cluster_policies():
    for policy in ("libra", "fixed", "libra+$"):
        c = pricing.Cluster(4, policy=policy)
        assert c.submit(0, 0.0, 100.0, 2, 1000.0, 1e6)["accepted"]


@pytest.mark.parametrize(
    "call,exc",
    [
        (lambda: pricing.Cluster(0), ValueError),
        (lambda: pricing.Cluster(2, rating=-1.0), ValueError),
        (lambda: pricing.Cluster(2, rating=math.nan), ValueError),
        (lambda: pricing.Cluster(2, policy="auction"), ValueError),
        (lambda: pricing.Cluster(2, alpha=math.inf), ValueError),
        (lambda: pricing.Cluster(2).quote(0, 0.0, -1.0, 1, 100.0, 10.0), ValueError),
        (lambda: pricing.Cluster(2).quote(0, 0.0, 10.0, 0, 100.0, 10.0), ValueError),
        (lambda: pricing.Cluster(2).quote(0, math.nan, 10.0, 1, 100.0, 10.0), ValueError),
        (lambda: pricing.Cluster(2).quote(0, 0.0, 10.0, 1, 100.0, 10.0, urgency="medium"), ValueError),
        (lambda: pricing.Cluster(2).submit(0, 0.0, 10.0, 1, math.inf, 10.0), ValueError),
        (lambda: pricing.Cluster(2).advance_to(math.nan), ValueError),
        (lambda: pricing.Cluster(2).outcome(0), ValueError),
        (lambda: pricing.Cluster(2).quote(0, 0.0, 10.0, 1, 100.0, "ten"), TypeError),
    ],
)
def test_cluster_hostile_input(call, exc):
    with pytest.raises(exc) as e:
        call()
    assert "\n" not in str(e.value)


def test_cluster_time_moves_forward_only():
    c = pricing.Cluster(2)
    c.advance_to(100.0)
    with pytest.raises(ValueError):
        c.submit(0, 50.0, 10.0, 1, 100.0, 100.0)
