#!/usr/bin/env python3
"""The measurements of docs/amoebot.md: amoebot algorithms run one amoebot at a time (sequential)
and concurrently on lmx locks.

    scripts/amoebot-study.py [--lmx PATH] [--seeds N] [--jobs J] [--sizes 50,200,...]
                             [--algorithms hexagon,line:500] [--baseline-max N]
                             [--data FILE] [--doc FILE] [--img DIR] [--reuse]

For every algorithm, n in --sizes, hole probability in {0, 0.2, 0.5} and seed 1..N, runs
`lmx amoebot run --json` with `--execution sequential` and `--execution locks` (same seed, so the
same initial configuration), and for n <= --baseline-max also `--execution locks
--one-at-a-time` (one Lock cycle in the system at a time: what the run costs on the
message-passing model without concurrency). Keeps every run's summary in --data (JSON Lines, default
build/amoebot-study.jsonl, one line per run, appended as runs finish: a study stopped midway
resumes where it stopped), writes the Markdown tables into --doc between
"<!-- amoebot-tables: begin -->" and "<!-- amoebot-tables: end -->" and the plots into --img.
--reuse reads --data instead of running. Needs python3-scipy and python3-matplotlib (Debian).

Statistics: per (n, hole probability), the paired ratios over seeds of concurrent rounds to
sequential rounds, with a two-sided Wilcoxon signed-rank test of "concurrent rounds = sequential
rounds"; medians and quartiles elsewhere.
"""
import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOLES = [0.0, 0.2, 0.5]


def fail(message):
    print(f"amoebot-study: {message}", file=sys.stderr)
    sys.exit(2)


def run_lmx(lmx, algorithm, n, hole, seed, execution):
    args = [lmx, "amoebot", "run", "--algorithm", algorithm, "--n", str(n), "--hole-prob", str(hole),
            "--seed", str(seed), "--json"]
    if execution == "sequential":
        args += ["--execution", "sequential"]
    elif execution == "locks":
        args += ["--execution", "locks"]
    else:
        args += ["--execution", "locks", "--one-at-a-time"]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip() or p.stdout[:300]}")
    j = json.loads(p.stdout)
    keep = {k: j[k] for k in ("terminated", "final_shape_ok", "rounds", "activations", "actions", "moves",
                               "wall_seconds", "violations")}
    keep.update(algorithm=algorithm, n=n, hole=hole, seed=seed, execution=execution)
    if "locks" in j:
        keep["locks"] = j["locks"]
    return keep


def collect(args):
    jobs = []
    for algorithm in args.algorithms:
        for n in args.sizes:
            if n > args.largest.get(algorithm, n):
                continue
            for hole in HOLES:
                for seed in range(1, args.seeds + 1):
                    jobs.append((algorithm, n, hole, seed, "sequential"))
                    jobs.append((algorithm, n, hole, seed, "locks"))
                    if n <= args.baseline_max:
                        jobs.append((algorithm, n, hole, seed, "one-at-a-time"))
    # Each finished run is appended to --data at once (JSON Lines), and runs already there are not
    # run again: an interrupted study resumes where it stopped.
    data = Path(args.data)
    done = []
    if data.exists():
        for line in data.read_text().splitlines():
            if line.strip():
                done.append(json.loads(line))
    have = {(r["algorithm"], r["n"], r["hole"], r["seed"], r["execution"]) for r in done}
    jobs = [j for j in jobs if j not in have]
    # Smallest first: every size gets its seeds before the long runs.
    jobs.sort(key=lambda j: (j[1], j[3]))
    data.parent.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool, data.open("a") as out:
        futures = [pool.submit(run_lmx, args.lmx, *j) for j in jobs]
        for i, f in enumerate(futures):
            r = f.result()
            done.append(r)
            out.write(json.dumps(r) + "\n")
            out.flush()
            if (i + 1) % 50 == 0:
                print(f"amoebot-study: {i + 1}/{len(jobs)} runs", file=sys.stderr)
    return done


def quartiles(values):
    import numpy as np
    a = np.array(values, dtype=float)
    return float(np.median(a)), float(np.percentile(a, 25)), float(np.percentile(a, 75))


def fmt(x, digits=0):
    if digits == 0:
        return f"{x:,.0f}".replace(",", " ")
    return f"{x:,.{digits}f}".replace(",", " ")


def med(values, digits=0):
    m, lo, hi = quartiles(values)
    return f"{fmt(m, digits)} ({fmt(lo, digits)}–{fmt(hi, digits)})"


def tables(runs, args):
    from scipy import stats
    by = {}
    for r in runs:
        by.setdefault((r["algorithm"], r["n"], r["hole"], r["execution"]), {})[r["seed"]] = r
    out = []
    summary = {}
    for algorithm in args.algorithms:
        out.append(f"\n### {algorithm}\n")
        out.append(f"Medians over {args.seeds} seeds (quartiles in parentheses); every run listed terminated with the "
                   "final shape and no violation unless the last column says otherwise.\n")
        out.append("| n | hole | sequential rounds | concurrent rounds | ratio (paired) | Wilcoxon p | "
                   "sequential moves | concurrent moves | engine rounds | lock latency p50 | messages / action | "
                   "acting at once (mean, max) | in a Lock cycle at once (mean, max) | given up / incomplete per action | protocol actions/s | failed |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for n in args.sizes:
            for hole in HOLES:
                seq = by.get((algorithm, n, hole, "sequential"), {})
                con = by.get((algorithm, n, hole, "locks"), {})
                seeds = sorted(set(seq) & set(con))
                if not seeds:
                    continue
                ok = [s for s in seeds if seq[s]["terminated"] and con[s]["terminated"] and not con[s]["violations"]
                      and con[s]["final_shape_ok"] and seq[s]["final_shape_ok"]]
                failed = len(seeds) - len(ok)
                if not ok:
                    out.append(f"| {n} | {hole} | | | | | | | | | | | | | | {failed} |")
                    continue
                sr = [seq[s]["rounds"] for s in ok]
                cr = [con[s]["rounds"] for s in ok]
                ratio = [c / s for c, s in zip(cr, sr)]
                try:
                    p = stats.wilcoxon(cr, sr).pvalue
                except ValueError:
                    p = float("nan")
                L = [con[s]["locks"] for s in ok]
                per_action = [(l["aborted"] + l["incomplete_locks"]) / max(1, con[s]["actions"]) for l, s in zip(L, ok)]
                out.append(
                    f"| {n} | {hole} | {med(sr)} | {med(cr)} | {med(ratio, 2)} | {p:.1e} | "
                    f"{med([seq[s]['moves'] for s in ok])} | {med([con[s]['moves'] for s in ok])} | "
                    f"{med([l['model_rounds'] for l in L])} | {med([l['lock_latency_p50'] for l in L], 1)} | "
                    f"{med([l['messages_per_action'] for l in L], 1)} | "
                    f"{fmt(quartiles([l['mean_acting'] for l in L])[0], 2)}, {max(l['max_acting'] for l in L)} | "
                    f"{fmt(quartiles([l['mean_locking'] for l in L])[0], 1)}, {max(l['max_locking'] for l in L)} | "
                    f"{med(per_action, 2)} | {med([l['protocol_actions_per_second'] for l in L])} | {failed} |")
                summary[(algorithm, n, hole)] = dict(
                    seq_rounds=quartiles(sr)[0], con_rounds=quartiles(cr)[0], ratio=quartiles(ratio)[0],
                    engine=quartiles([l["model_rounds"] for l in L])[0],
                    acting=quartiles([l["mean_acting"] for l in L])[0], p=p)
        # What concurrency buys: engine rounds one at a time against concurrent.
        rows = []
        for n in args.sizes:
            if n > args.baseline_max:
                continue
            for hole in HOLES:
                con = by.get((algorithm, n, hole, "locks"), {})
                one = by.get((algorithm, n, hole, "one-at-a-time"), {})
                seeds = sorted(s for s in set(con) & set(one) if con[s]["terminated"] and one[s]["terminated"])
                if not seeds:
                    continue
                ce = [con[s]["locks"]["model_rounds"] for s in seeds]
                oe = [one[s]["locks"]["model_rounds"] for s in seeds]
                sp = [o / c for o, c in zip(oe, ce)]
                unfinished = len(set(con) & set(one)) - len(seeds)
                rows.append(f"| {n} | {hole} | {med(oe)} | {med(ce)} | {med(sp, 1)} | {unfinished} |")
                summary.setdefault((algorithm, n, hole), {})["speedup"] = quartiles(sp)[0]
        if rows:
            out.append("\nWhat concurrency buys in model time: engine rounds to termination one amoebot at a time "
                       "(`--one-at-a-time`: one Lock cycle in the system at a time) and concurrently, same seeds; "
                       "the speed-up is the paired ratio (runs where the baseline hit the engine's 2 000 000-round "
                       "limit are left out and counted).\n")
            out.append("| n | hole | one at a time (engine rounds) | concurrent (engine rounds) | speed-up | "
                       "baseline unfinished |")
            out.append("|---|---|---|---|---|---|")
            out += rows
    return "\n".join(out) + "\n", summary


def plots(summary, args):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    img = Path(args.img)
    img.mkdir(parents=True, exist_ok=True)
    written = []
    for algorithm in args.algorithms:
        fig, ax = plt.subplots(1, 2, figsize=(10, 4))
        for hole, style in zip(HOLES, ["o-", "s--", "^:"]):
            ns = [n for n in args.sizes if (algorithm, n, hole) in summary and "seq_rounds" in summary[(algorithm, n, hole)]]
            if not ns:
                continue
            ax[0].plot(ns, [summary[(algorithm, n, hole)]["seq_rounds"] for n in ns], style, label=f"sequential, hole {hole}")
            ax[0].plot(ns, [summary[(algorithm, n, hole)]["con_rounds"] for n in ns], style, alpha=0.6,
                       label=f"locks, hole {hole}")
            ax[1].plot(ns, [summary[(algorithm, n, hole)]["engine"] for n in ns], style, label=f"hole {hole}")
        for a in ax:
            a.set_xscale("log")
            a.set_yscale("log")
            a.set_xlabel("amoebots n")
            a.grid(True, which="both", alpha=0.3)
            a.legend(fontsize=7)
        ax[0].set_ylabel("rounds to termination (median)")
        ax[0].set_title(f"{algorithm}: the amoebot model's rounds")
        ax[1].set_ylabel("engine rounds to termination (median)")
        ax[1].set_title(f"{algorithm}: message-passing time (locks)")
        fig.tight_layout()
        path = img / f"amoebot-{algorithm}-rounds.svg"
        fig.savefig(path, metadata={"Date": None})
        plt.close(fig)
        written.append(path)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lmx", default=str(ROOT / "build/release/tools/lmx/lmx"))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) - 1))
    ap.add_argument("--sizes", default="50,100,200,500,1000,2000,5000,10000")
    ap.add_argument("--algorithms", default="hexagon")
    ap.add_argument("--baseline-max", type=int, default=500)
    ap.add_argument("--data", default=str(ROOT / "build/amoebot-study.jsonl"))
    ap.add_argument("--doc")
    ap.add_argument("--img", default=str(ROOT / "docs/img"))
    ap.add_argument("--reuse", action="store_true")
    args = ap.parse_args()
    try:
        args.sizes = [int(x) for x in args.sizes.split(",")]
    except ValueError:
        fail("--sizes: expected comma-separated integers")
    # "line:500": the algorithm up to n = 500 only (line formation makes about n^2 / 2 moves).
    args.largest = {}
    names = []
    for item in (a for a in args.algorithms.split(",") if a):
        name, _, largest = item.partition(":")
        names.append(name)
        if largest:
            try:
                args.largest[name] = int(largest)
            except ValueError:
                fail(f"--algorithms: {item}: expected NAME or NAME:LARGEST_N")
    args.algorithms = names
    if args.seeds < 1:
        fail("--seeds: at least 1")
    if args.reuse:
        try:
            runs = [json.loads(line) for line in Path(args.data).read_text().splitlines() if line.strip()]
        except (OSError, ValueError) as e:
            fail(f"--data {args.data}: {e}")
    else:
        if not os.access(args.lmx, os.X_OK):
            fail(f"--lmx {args.lmx}: not an executable (build it first)")
        runs = collect(args)
    text, summary = tables(runs, args)
    print(text)
    for p in plots(summary, args):
        print(f"amoebot-study: wrote {p}", file=sys.stderr)
    if args.doc:
        doc = Path(args.doc).read_text()
        begin, end = "<!-- amoebot-tables: begin -->", "<!-- amoebot-tables: end -->"
        if begin not in doc or end not in doc:
            fail(f"--doc {args.doc}: no {begin} ... {end} markers")
        head, rest = doc.split(begin, 1)
        _, tail = rest.split(end, 1)
        Path(args.doc).write_text(head + begin + "\n" + text + end + tail)


if __name__ == "__main__":
    main()
