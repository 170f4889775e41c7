#!/usr/bin/env bash
# Soak test (docs/reliability.md, "Soak"): the repaired variant (or VARIANT), all monitors on, over every
# combination of engine, adversary (activation and delivery), topology and dynamics, pass after
# pass with new seeds, until at least ACTIONS simulated actions (default 10^9) have run. A safety
# violation (P1-P6), a global stall (P7's proof of lockout) and a failed run fail the soak
# (exit 1). Requests that P7's monitor reports late (pending past the scenario's horizon, 30
# uncontended Lock times) are counted and recorded with the longest wait: under continuous
# locking they measure contention, not a defect (docs/reliability.md). What ran is recorded in
# OUT/record.json (per combination: runs, seeds, actions, locks, late requests, longest wait) and
# summarised on stdout; the runs' summaries stay in OUT/runs/.
#
#   scripts/soak.sh [ACTIONS] [OUT]        (defaults: 1000000000 build/soak; JOBS=nproc runs at once)
#
# VARIANT=fast soaks the fast variant instead (with K = 32, its default; the repaired one runs
# with K = 4, where contention is hardest).
#
# Runs at nice 10. 10^9 actions took 7 min 12 s with JOBS=1 (one core of a 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
actions=${1:-1000000000}
out=${2:-build/soak}
lmx=${LMX:-build/release/tools/lmx/lmx}
jobs=${JOBS:-$(nproc)}
variant=${VARIANT:-repaired}
case $variant in
  repaired) k=4 ;;
  fast) k=32 ;;
  *) echo "soak: VARIANT must be repaired or fast, got '$variant'" >&2; exit 2 ;;
esac
[[ $actions =~ ^[0-9]+$ ]] && [ "$actions" -ge 1 ] || { echo "soak: ACTIONS must be a whole number >= 1, got '$actions'" >&2; exit 2; }
[ -x "$lmx" ] || { echo "soak: no lmx binary at $lmx (run scripts/build.sh release first)" >&2; exit 1; }
mkdir -p "$out/runs"
exec python3 - "$lmx" "$actions" "$out" "$jobs" "$variant" "$k" <<'PY'
import itertools, json, os, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

lmx, target, out, jobs = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
variant, k = sys.argv[5], int(sys.argv[6])
# Every adversary the engines have: the semi-synchronous engine's activations and deliveries,
# the asynchronous engine's deliveries (its executions are its own schedule).
adversaries = [("semi-sync", a, d) for a in ("random", "sequential", "synchronous")
               for d in ("random", "oldest", "delay-target")]
adversaries += [("async", None, d) for d in ("random", "oldest", "delay-target")]
topologies = ("ring", "grid", "regular", "unit-disk", "mobility")
dynamics = ("static", "churn", "starve", "flap", "swizzle")
combos = list(itertools.product(adversaries, topologies, dynamics))

def settings(combo, seed):
    (engine, activation, delivery), topology, dyn = combo
    s = {"variant": variant, "engine": engine, "nodes": 300, "delta": 6, "k": k,
         "rounds": 400 if engine == "async" else 1500, "delivery.kind": delivery,
         "topology.kind": topology, "dynamics.kind": dyn}
    if activation:
        s["activation.kind"] = activation
    return s

def name(combo):
    (engine, activation, delivery), topology, dyn = combo
    return "/".join(x for x in (engine, activation, delivery, topology, dyn) if x)

def run(combo, seed):
    args = [lmx, "run", "--json", "--seed", str(seed)]
    for k, v in settings(combo, seed).items():
        args += ["--set", f"{k}={v}"]
    p = subprocess.run(["nice", "-n", "10"] + args, capture_output=True, text=True)
    path = os.path.join(out, "runs", f"{name(combo).replace('/', '_')}_{seed}.json")
    with open(path, "w") as f:
        f.write(p.stdout)
    # lmx run exits 1 when a monitor reported something (here, typically P7's late requests,
    # which are counted, not failed); any other exit is a failed run.
    if p.returncode not in (0, 1):
        return combo, seed, None, f"exit {p.returncode}: {p.stderr.strip()[:300]}"
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return combo, seed, None, f"exit {p.returncode}, no JSON summary: {p.stderr.strip()[:300]}"
    problems = [f"{k}: {v}" for k, v in j["properties"].items() if v != "pass" and k != "P7"]
    problems += [f"P7: {v['detail']}" for v in j["violations"] if v["property"] == "P7" and "stall" in v["detail"]]
    if j["stalled"]:
        problems.append("stalled")
    return combo, seed, j, "; ".join(problems)

record = {name(c): {"settings": settings(c, 0), "runs": 0, "seeds": [], "actions": 0, "locks_completed": 0,
                    "late_requests": 0, "longest_wait_rounds": 0, "safety_violations": 0} for c in combos}
total, failures, passes, start = 0, [], 0, time.time()
with ThreadPoolExecutor(max_workers=jobs) as pool:
    while total < target and not failures:
        passes += 1
        seed_base = passes * 1000
        for combo, seed, j, problem in pool.map(lambda ci: run(ci[1], seed_base + ci[0]), enumerate(combos)):
            r = record[name(combo)]
            r["runs"] += 1
            r["seeds"].append(seed)
            if j is not None:
                r["actions"] += j["actions"]
                r["locks_completed"] += j["locks_completed"]
                counts = j["violation_counts"]
                r["late_requests"] += counts.get("P7", 0)
                r["safety_violations"] += sum(v for k, v in counts.items() if k != "P7")
                waits = [x for x in (j["latency_rounds_with_pending"]["max"],) if x is not None]
                r["longest_wait_rounds"] = max([r["longest_wait_rounds"]] + waits)
                total += j["actions"]
            if problem:
                failures.append(f"{name(combo)} seed {seed}: {problem}")
        print(f"pass {passes}: {total:,} actions, {time.time() - start:.0f} s", flush=True)

summary = {"lmx": subprocess.run([lmx, "--version"], capture_output=True, text=True).stdout.strip(),
           "variant": variant, "k": k, "target_actions": target, "actions": total, "passes": passes, "combinations": len(combos),
           "runs": sum(r["runs"] for r in record.values()), "locks_completed": sum(r["locks_completed"] for r in record.values()),
           "safety_violations": sum(r["safety_violations"] for r in record.values()),
           "late_requests": sum(r["late_requests"] for r in record.values()),
           "longest_wait_rounds": max(r["longest_wait_rounds"] for r in record.values()), "failures": failures,
           "wall_seconds": round(time.time() - start, 1), "combinations_run": record}
with open(os.path.join(out, "record.json"), "w") as f:
    json.dump(summary, f, indent=1)
print(f"soak ({variant}, K = {k}): {summary['runs']} runs over {len(combos)} combinations, {total:,} actions, "
      f"{summary['locks_completed']:,} locks completed, {summary['safety_violations']} safety violations, "
      f"{summary['late_requests']:,} requests late for P7's horizon (longest wait {summary['longest_wait_rounds']:.0f} rounds), "
      f"{len(failures)} failed runs, {summary['wall_seconds']} s (record: {out}/record.json)")
for line in failures[:20]:
    print("FAIL", line)
sys.exit(1 if failures else 0)
PY
