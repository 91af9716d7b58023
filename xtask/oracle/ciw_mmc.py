"""Reference multiclass M/M/c simulations with Ciw (oracle comparison 3).

Usage: python ciw_mmc.py INPUT.json OUTPUT.json

INPUT: {"scenarios": [{"name": s, "servers": c, "mu": mu, "lambdas": [l0, l1, ...],
         "discipline": "fcfs" | "priority", "horizon": T, "warmup": W,
         "replications": R, "seed": S, "thin": k, "drain": D}, ...]}
All classes share the exponential service rate mu. Under "priority" class 0 has the
highest non-preemptive priority (Ciw's priority_classes given as a plain dict are
non-preemptive); within a class, and for "fcfs" overall, service is first come first served.

Arrivals continue to T + D so that customers arriving before T can finish. OUTPUT: per
scenario and class, the per-replication mean response times (customers that arrive in
[W, T) and finish by T + D) and every k-th such response time of every replication
(thinning weakens the serial correlation of successive customers for the KS test).
"""

import json
import sys

import ciw


def run_scenario(sc):
    k = len(sc["lambdas"])
    names = [f"Class {i}" for i in range(k)]
    kwargs = dict(
        arrival_distributions={n: [ciw.dists.Exponential(rate=l)] for n, l in zip(names, sc["lambdas"])},
        service_distributions={n: [ciw.dists.Exponential(rate=sc["mu"])] for n in names},
        number_of_servers=[sc["servers"]],
    )
    if sc["discipline"] == "priority":
        kwargs["priority_classes"] = {n: i for i, n in enumerate(names)}
    elif sc["discipline"] != "fcfs":
        raise ValueError(f"unknown discipline {sc['discipline']}")
    network = ciw.create_network(**kwargs)
    means = [[] for _ in range(k)]
    samples = [[] for _ in range(k)]
    for r in range(sc["replications"]):
        ciw.seed(sc["seed"] + r)
        q = ciw.Simulation(network)
        q.simulate_until_max_time(sc["horizon"] + sc["drain"])
        per_class = [[] for _ in range(k)]
        for rec in sorted(q.get_all_records(), key=lambda x: x.arrival_date):
            if not (sc["warmup"] <= rec.arrival_date < sc["horizon"]):
                continue
            cls = names.index(rec.customer_class) if isinstance(rec.customer_class, str) else int(rec.customer_class)
            per_class[cls].append(rec.waiting_time + rec.service_time)
        for i in range(k):
            xs = per_class[i]
            means[i].append(sum(xs) / len(xs) if xs else float("nan"))
            samples[i].extend(xs[:: sc["thin"]])
    return {
        "name": sc["name"],
        "classes": [{"replication_means": means[i], "samples": samples[i]} for i in range(k)],
    }


def main(inp, out):
    with open(inp) as f:
        scenarios = json.load(f)["scenarios"]
    results = [run_scenario(sc) for sc in scenarios]
    with open(out, "w") as f:
        json.dump({"ciw": ciw.__version__, "scenarios": results}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
