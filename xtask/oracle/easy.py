"""A straightforward reference EASY backfilling scheduler (oracle comparison 4).

Written from design.md section 3 alone, independently of slarm-sim, so that per-job start
times can be compared. Usage:

    python easy.py TRACE.swf[.gz] OUTPUT.csv [--procs N] [--first N] [--first-reach]

Writes `job_id,submit,start,end,procs` (the `slarm simulate --schedule-out` columns) in
queue order. Rules (design.md section 3):
  * 18 numeric fields per job line, ';' starts a header comment; MaxProcs (else MaxNodes)
    is the machine size unless --procs overrides it;
  * processors = requested (field 8) if > 0 else allocated (field 5); estimate = requested
    time (field 9) if > 0 else run time (field 4); jobs with run time <= 0, processors <= 0
    or processors > machine size are dropped;
  * a job runs for min(run time, estimate);
  * queue order is (submit, job number); at each event time completions release
    processors, then arrivals join the queue, then one scheduling pass runs;
  * EASY pass: start queued jobs in order while they fit; the blocked head gets a
    reservation at the shadow time (earliest time enough processors are predicted free,
    running jobs predicted to end at start + estimate); processors predicted free then
    beyond the head's need are `extra`; a later job starts now iff it fits and either ends
    by the shadow time or uses no more than `extra` (and then `extra` shrinks by its size).

--first-reach is a diagnostic variant, not design.md: `extra` counts only the processors
accumulated up to the first running job (by predicted end) that covers the head, ignoring
other jobs that end at the same shadow time. The oracle runs it when the schedules differ,
to tell this tie rule apart from other causes.
"""

import gzip
import heapq
import sys


def read_swf(path, first=None):
    opener = gzip.open if path.endswith(".gz") else open
    max_procs = max_nodes = None
    jobs = []
    with opener(path, "rt") as f:
        for line in f:
            s = line.strip()
            if not s:
                continue
            if s.startswith(";"):
                body = s[1:].strip()
                if ":" in body:
                    key, _, val = body.partition(":")
                    key = key.strip()
                    tok = val.split()
                    if tok and key in ("MaxProcs", "MaxNodes"):
                        try:
                            v = int(tok[0])
                        except ValueError:
                            continue
                        if key == "MaxProcs":
                            max_procs = v
                        else:
                            max_nodes = v
                continue
            fields = s.split()
            if len(fields) != 18:
                raise ValueError(f"{path}: line has {len(fields)} fields: {s!r}")
            jobs.append([int(float(x)) for x in fields])
            if first is not None and len(jobs) >= first:
                break
    return jobs, (max_procs if max_procs and max_procs > 0 else max_nodes)


def prepare(raw, machine):
    jobs = []
    for f in raw:
        job_id, submit, run, alloc, req_procs, req_time = f[0], f[1], f[3], f[4], f[7], f[8]
        procs = req_procs if req_procs > 0 else alloc
        estimate = req_time if req_time > 0 else run
        if run <= 0 or procs <= 0 or procs > machine:
            continue
        jobs.append({"id": job_id, "submit": submit, "procs": procs,
                     "estimate": estimate, "duration": min(run, estimate)})
    jobs.sort(key=lambda j: (j["submit"], j["id"]))
    for k, j in enumerate(jobs):
        j["idx"] = k
    return jobs


def easy(jobs, machine, first_reach=False):
    free = machine
    queue = []          # waiting jobs in queue order
    running = []        # (predicted end, job) of running jobs
    ends = []           # heap of (actual end, seq, job)
    i = 0
    n = len(jobs)
    seq = 0

    def start(job, now):
        nonlocal free, seq
        job["start"] = now
        job["end"] = now + job["duration"]
        free -= job["procs"]
        running.append(job)
        heapq.heappush(ends, (job["end"], seq, job))
        seq += 1

    while i < n or ends or queue:
        candidates = []
        if i < n:
            candidates.append(jobs[i]["submit"])
        if ends:
            candidates.append(ends[0][0])
        if not candidates:
            raise RuntimeError("queued jobs can never start")
        now = min(candidates)
        # 1. completions release processors
        while ends and ends[0][0] == now:
            _, _, job = heapq.heappop(ends)
            free += job["procs"]
            running.remove(job)
        # 2. arrivals join the queue (jobs are sorted by (submit, id))
        while i < n and jobs[i]["submit"] == now:
            queue.append(jobs[i])
            i += 1
        # 3. one EASY pass
        while queue and queue[0]["procs"] <= free:
            start(queue.pop(0), now)
        if not queue:
            continue
        head = queue[0]
        avail = free
        shadow = extra = None
        # running jobs by predicted end; ties: jobs running before this pass first, then
        # queue order (only the first_reach variant depends on the tie order)
        order = sorted(running, key=lambda j: (j["start"] + j["estimate"], j["start"] == now, j["idx"]))
        for job in order:
            avail += job["procs"]
            if avail >= head["procs"]:
                shadow = job["start"] + job["estimate"]
                extra = avail - head["procs"]
                break
        if shadow is None:
            raise RuntimeError("head job larger than the machine")
        if not first_reach:
            # design.md: every processor predicted free at the shadow time beyond the
            # head's need, so jobs tied at the shadow time all count
            extra = free + sum(j["procs"] for j in running
                               if j["start"] + j["estimate"] <= shadow) - head["procs"]
        k = 1
        while k < len(queue):
            job = queue[k]
            if job["procs"] <= free:
                if now + job["estimate"] <= shadow:
                    start(queue.pop(k), now)
                    continue
                if job["procs"] <= extra:
                    extra -= job["procs"]
                    start(queue.pop(k), now)
                    continue
            k += 1
    return jobs


def main(argv):
    trace, out = argv[0], argv[1]
    procs = first = None
    first_reach = False
    rest = argv[2:]
    while rest:
        if rest[0] == "--first-reach":
            first_reach, rest = True, rest[1:]
            continue
        flag, val, rest = rest[0], rest[1], rest[2:]
        if flag == "--procs":
            procs = int(val)
        elif flag == "--first":
            first = int(val)
        else:
            raise ValueError(f"unknown flag {flag}")
    raw, header_procs = read_swf(trace, first)
    machine = procs if procs is not None else header_procs
    if not machine or machine <= 0:
        raise ValueError("no machine size: give --procs or a MaxProcs/MaxNodes header")
    jobs = easy(prepare(raw, machine), machine, first_reach)
    with open(out, "w") as f:
        f.write("job_id,submit,start,end,procs\n")
        for j in jobs:
            f.write(f"{j['id']},{j['submit']},{j['start']},{j['end']},{j['procs']}\n")


if __name__ == "__main__":
    main(sys.argv[1:])
