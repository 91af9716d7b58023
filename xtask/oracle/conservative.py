"""A straightforward reference conservative backfilling scheduler (oracle comparison 5).

Written from Mu'alem & Feitelson (2001, "Utilization, predictability, workloads, and user
runtime estimates in scheduling the IBM SP2 with backfilling", IEEE TPDS 12(6): their
description of conservative backfilling) and the trace conventions that easy.py follows,
independently of slarm-sim, so that per-job start times can be compared. Usage:

    python conservative.py TRACE.swf[.gz] OUTPUT.csv [--procs N] [--first N]
                           [--order reserve-first|compress-first] [--summary OUT.json]

Writes `job_id,submit,start,end,procs` (the `slarm simulate --schedule-out` columns) in
queue order. Trace reading and drop rules are easy.py's. Rules:
  * every queued job holds a reservation in an availability profile: running jobs occupy
    their processors up to their predicted end (start + estimate), queued jobs their
    reserved slot [reservation, reservation + estimate); an arriving job is reserved at
    the earliest time from its arrival at which its processors are free for its estimate;
  * a job starts when its reservation begins (a pass runs at every reservation start);
  * a job that ends before its predicted end frees the rest of its slot, and the plan is
    compressed: each queued job in queue order (submit, job number) moves to the earliest
    time from now at which it fits, its own slot counted as free, never later than before;
  * at one second: completions release processors first; the order of the rest is the
    switch --order, which Mu'alem & Feitelson do not fix:
      reserve-first  (default) arrivals are reserved, then the plan is compressed;
      compress-first the plan is compressed, then arrivals are reserved;
    then every queued job whose reservation has begun starts.

--summary runs the given order and, at every second in which an early end and an arrival
coincide, also applies the other order to a copy of the state and counts the seconds at
which the plans (every queued job's reservation) differ; it then runs the other order on
the whole trace and writes both mean waits. The JSON has `coincident`, `differing`,
`mean_wait`, `other_mean_wait` and `jobs`.
"""

import bisect
import heapq
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from easy import prepare, read_swf  # noqa: E402  (same folder, same trace rules)

INF = float("inf")


class Profile:
    """Free processors as a step function: free[k] over [times[k], times[k+1])."""

    def __init__(self, machine, origin):
        self.machine = machine
        self.times = [origin]
        self.free = [machine]

    def copy(self):
        p = Profile(self.machine, self.times[0])
        p.times = list(self.times)
        p.free = list(self.free)
        return p

    def _split(self, t):
        """Index of the segment starting at t (creates the breakpoint)."""
        k = bisect.bisect_right(self.times, t) - 1
        if self.times[k] == t:
            return k
        self.times.insert(k + 1, t)
        self.free.insert(k + 1, self.free[k])
        return k + 1

    def add(self, start, end, delta):
        """Adds delta free processors over [start, end)."""
        if end <= start:
            return
        a = self._split(start)
        b = self._split(end)
        seg = [x + delta for x in self.free[a:b]]
        if min(seg) < 0 or max(seg) > self.machine:
            raise RuntimeError(f"profile out of range between {start} and {end}")
        self.free[a:b] = seg
        # merge equal neighbours around the changed range
        for k in (b, a):
            if 0 < k < len(self.times) and self.free[k] == self.free[k - 1]:
                del self.times[k]
                del self.free[k]

    def advance(self, now):
        """Forgets the profile before now."""
        k = bisect.bisect_right(self.times, now) - 1
        if k > 0:
            del self.times[:k]
            del self.free[:k]
        self.times[0] = now

    def earliest(self, now, procs, est):
        """Earliest t >= now with procs free over [t, t + est)."""
        times, free = self.times, self.free
        j = bisect.bisect_right(times, now) - 1
        t = now
        while True:
            # segments j..e-1 overlap [t, t + est)
            e = bisect.bisect_left(times, t + est, j)
            if min(free[j:e]) >= procs:
                return t
            # no start before the end of the last segment in the window that is too full
            k = e - 1
            while free[k] >= procs:
                k -= 1
            j = k + 1
            t = times[j]  # the last segment has the whole machine free: never past it

    def first_with(self, now, procs):
        """First t >= now with at least procs free (None: never; cannot happen)."""
        times, free = self.times, self.free
        j = bisect.bisect_right(times, now) - 1
        for k in range(j, len(times)):
            if free[k] >= procs:
                return max(times[k], now)
        return None


class State:
    def __init__(self, machine, origin):
        self.profile = Profile(machine, origin)
        self.queue = []       # queued jobs in queue order
        self.res = {}         # job idx -> reservation
        self.compress = False

    def copy(self):
        s = State.__new__(State)
        s.profile = self.profile.copy()
        s.queue = list(self.queue)
        s.res = dict(self.res)
        s.compress = self.compress
        return s

    def reserve(self, job, now):
        t = self.profile.earliest(now, job["procs"], job["estimate"])
        self.profile.add(t, t + job["estimate"], -job["procs"])
        self.res[job["idx"]] = t

    def compress_plan(self, now):
        if not self.compress:
            return
        self.compress = False
        prof = self.profile
        first = {}  # procs -> first time with that many free (valid until a move before it)
        for job in self.queue:
            s = self.res[job["idx"]]
            if s <= now:
                continue
            p, est = job["procs"], job["estimate"]
            f = first.get(p)
            if f is None:
                f = prof.first_with(now, p)
                first[p] = f
            if f is None or f >= s:
                continue
            prof.add(s, s + est, p)
            t = prof.earliest(now, p, est)
            prof.add(t, t + est, -p)
            if t > s:
                raise RuntimeError("compression moved a reservation later")
            if t < s:
                self.res[job["idx"]] = t
                # the profile changed from t on: forget what was found at or after t
                first = {q: v for q, v in first.items() if v is not None and v < t}

    def plan(self):
        return tuple(self.res[j["idx"]] for j in self.queue)


def simulate(jobs, machine, order, counterfactual=False):
    """Runs conservative backfilling; returns (jobs with start/end, coincident, differing)."""
    if not jobs:
        return jobs, 0, 0
    st = State(machine, jobs[0]["submit"])
    ends = []  # heap of (actual end, idx, job)
    i, n = 0, len(jobs)
    coincident = differing = 0
    while i < n or ends or st.queue:
        now = INF
        if i < n:
            now = jobs[i]["submit"]
        if ends:
            now = min(now, ends[0][0])
        for job in st.queue:
            now = min(now, st.res[job["idx"]])
        if now == INF:
            raise RuntimeError("queued jobs can never start")
        st.profile.advance(now)
        # 1. completions release processors; an early end frees the rest of its slot
        early = False
        while ends and ends[0][0] == now:
            _, _, job = heapq.heappop(ends)
            predicted = job["start"] + job["estimate"]
            if predicted > now:
                st.profile.add(now, predicted, job["procs"])
                st.compress = True
                early = True
        arrivals = []
        while i < n and jobs[i]["submit"] == now:
            arrivals.append(jobs[i])
            i += 1
        other = None
        if counterfactual and early and arrivals:
            coincident += 1
            other = st.copy()
        # 2. the two orders of reserving arrivals and compressing
        for s, o in ((st, order), (other, "compress-first" if order == "reserve-first"
                                   else "reserve-first")):
            if s is None:
                continue
            if o == "compress-first":
                s.compress_plan(now)
            for job in arrivals:
                s.queue.append(job)
                s.reserve(job, now)
            if o == "reserve-first":
                s.compress_plan(now)
        if other is not None and other.plan() != st.plan():
            differing += 1
        # 3. every job whose reservation has begun starts (its slot is already booked)
        keep = []
        for job in st.queue:
            r = st.res[job["idx"]]
            if r <= now:
                if r < now:
                    raise RuntimeError(f"job {job['id']} missed its reservation")
                job["start"] = now
                job["end"] = now + job["duration"]
                heapq.heappush(ends, (job["end"], job["idx"], job))
            else:
                keep.append(job)
        st.queue = keep
    return jobs, coincident, differing


def mean_wait(jobs):
    return sum(j["start"] - j["submit"] for j in jobs) / len(jobs) if jobs else 0.0


def main(argv):
    trace, out = argv[0], argv[1]
    procs = first = summary = None
    order = "reserve-first"
    rest = argv[2:]
    while rest:
        if len(rest) < 2:
            raise ValueError(f"flag {rest[0]} needs a value")
        flag, val, rest = rest[0], rest[1], rest[2:]
        if flag == "--procs":
            procs = int(val)
        elif flag == "--first":
            first = int(val)
        elif flag == "--order":
            if val not in ("reserve-first", "compress-first"):
                raise ValueError(f"--order: {val!r} is not reserve-first or compress-first")
            order = val
        elif flag == "--summary":
            summary = val
        else:
            raise ValueError(f"unknown flag {flag}")
    raw, header_procs = read_swf(trace, first)
    machine = procs if procs is not None else header_procs
    if not machine or machine <= 0:
        raise ValueError("no machine size: give --procs or a MaxProcs/MaxNodes header")
    jobs, coincident, differing = simulate(prepare(raw, machine), machine, order,
                                           counterfactual=summary is not None)
    with open(out, "w") as f:
        f.write("job_id,submit,start,end,procs\n")
        for j in jobs:
            f.write(f"{j['id']},{j['submit']},{j['start']},{j['end']},{j['procs']}\n")
    if summary is not None:
        other_order = "compress-first" if order == "reserve-first" else "reserve-first"
        other, _, _ = simulate(prepare(raw, machine), machine, other_order)
        with open(summary, "w") as f:
            json.dump({"order": order, "jobs": len(jobs), "coincident": coincident,
                       "differing": differing, "mean_wait": mean_wait(jobs),
                       "other_order": other_order, "other_mean_wait": mean_wait(other)}, f)


if __name__ == "__main__":
    main(sys.argv[1:])
