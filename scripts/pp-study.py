#!/usr/bin/env python3
"""The measurements of docs/population.md: population protocols under lmx locks against the
sequential schedulers.

    scripts/pp-study.py [--lmx PATH] [--seeds N] [--jobs J] [--data FILE] [--doc FILE] [--img DIR]
                        [--only equivalence|growth|leader|rates] [--reuse]

Runs `lmx pp run --json` for every measurement (each seed one process), keeps every run's
summary in --data (JSON, default build/pp-study.json), writes the Markdown tables into
--doc between "<!-- pp-tables: begin -->" and "<!-- pp-tables: end -->" and the plots into --img.
--reuse reads --data instead of running. Needs python3-scipy and python3-matplotlib (Debian).

1. equivalence: every shipped protocol on a static graph (random 4-regular, Delta = 4) and a
   dynamic one (mobility, Delta = 8), 65 agents, N seeds each, under lock-neighbourhood,
   lock-pair and the sequential graph scheduler. On the dynamic graph the sequential scheduler
   runs as many interactions per round as the lock scheduler it is compared with did (its mean
   over the seeds), so that the graph moves as much per interaction. Two-sample
   Kolmogorov-Smirnov test of the convergence time (interactions per agent), chi-square test of
   the outcomes.
2. growth: approximate majority (both rule sets; x = 0.55, y = 0.45) with the sequential
   scheduler on the complete graph, n = 10^2 ... 10^7: parallel time against ln n.
3. leader: leader election, sequential, complete graph: mean parallel time against (n-1)^2/n,
   one-sample t-test per n.
4. rates: interactions per round and per second of the lock schedulers, at Delta = 8 under full
   contention (every agent locks all the time), static 8-regular and mobility graphs.
"""
import argparse
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTOCOLS = ["approximate-majority", "approximate-majority-double-b", "exact-majority", "leader-election",
             "epidemic", "averaging"]
GRAPHS = {
    "static": ["topology.kind=regular", "topology.degree=4", "delta=4"],
    "dynamic": ["topology.kind=mobility", "delta=8"],
}
LOCKS = ["lock-neighbourhood", "lock-pair"]


def fail(message):
    print(f"pp-study: {message}", file=sys.stderr)
    sys.exit(2)


def run_lmx(lmx, protocol, scheduler, seed, sets):
    args = [lmx, "pp", "run", protocol, "--scheduler", scheduler, "--seed", str(seed), "--json"]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{' '.join(args)} exited {p.returncode}: {p.stderr.strip() or p.stdout[:300]}")
    j = json.loads(p.stdout)
    keep = {k: j[k] for k in ("converged", "parallel_time", "outcome", "interactions", "agents",
                               "interactions_per_second", "wall_seconds")}
    for k in ("rounds", "interactions_per_round", "graph"):
        if k in j:
            keep[k] = j[k]
    if "lock" in j:
        keep["lock"] = j["lock"]
    if j["violations"]:
        fail(f"{' '.join(args)}: violations {j['violations'][:2]}")
    return keep


def batch(pool, lmx, protocol, scheduler, seeds, sets):
    return list(pool.map(lambda s: run_lmx(lmx, protocol, scheduler, s, sets), seeds))


def equivalence(pool, lmx, seeds, agents):
    out = {}
    for protocol in PROTOCOLS:
        for graph, sets in GRAPHS.items():
            base = sets + [f"agents={agents}", "max_time=100000"]
            cell = {}
            for lock in LOCKS:
                cell[lock] = batch(pool, lmx, protocol, lock, seeds, base)
                rate = sum(r["interactions_per_round"] for r in cell[lock]) / len(seeds) / agents
                extra = [f"interactions_per_round={rate:.6g}"] if graph == "dynamic" else []
                key = "sequential-graph" if graph == "static" else f"sequential-graph@{lock}"
                if key not in cell:
                    cell[key] = batch(pool, lmx, protocol, "sequential-graph", seeds, base + extra)
            out[f"{protocol}/{graph}"] = cell
            print(f"  equivalence {protocol} {graph}: done", file=sys.stderr)
    return out


def graphs(pool, lmx, seeds, agents):
    """Whether each seed's static graph is connected (the random 4-regular generator drops an
    edge now and then, and a few seeds leave a node or two apart)."""
    base = GRAPHS["static"] + [f"agents={agents}", "max_time=0.01"]
    runs = batch(pool, lmx, "epidemic", "sequential-graph", seeds, base)
    return {str(seed): r["graph"]["connected"] for seed, r in zip(seeds, runs)}


def growth(pool, lmx, seeds):
    out = {}
    for protocol in ["approximate-majority", "approximate-majority-double-b"]:
        rows = {}
        for e in range(2, 8):
            n = 10 ** e
            k = len(seeds) if e <= 5 else (50 if e == 6 else 20)
            rows[str(n)] = batch(pool, lmx, protocol, "sequential", seeds[:k], [f"agents={n}"])
            print(f"  growth {protocol} n={n}: done", file=sys.stderr)
        out[protocol] = rows
    return out


def leader(pool, lmx, seeds):
    out = {}
    for n in [10, 30, 100, 300, 1000, 3000, 10000]:
        out[str(n)] = batch(pool, lmx, "leader-election", "sequential", seeds, [f"agents={n}", "max_time=1e9"])
        print(f"  leader n={n}: done", file=sys.stderr)
    return out


def rates(pool, lmx, seeds):
    out = {}
    for graph, sets in {"static": ["topology.kind=regular", "delta=8"],
                        "mobility": ["topology.kind=mobility", "delta=8"]}.items():
        for n in [1000, 100000]:
            k = seeds[:10] if n == 1000 else seeds[:3]
            for lock in LOCKS:
                # Long enough for a steady rate: 2 interactions per agent at 1000 agents, 0.2 at 10^5.
                time = 2 if n == 1000 else 0.2
                out[f"{graph}/{n}/{lock}"] = batch(pool, lmx, "approximate-majority", lock, k,
                                                   sets + [f"agents={n}", f"max_time={time}"])
                print(f"  rates {graph} n={n} {lock}: done", file=sys.stderr)
    return out


# ------------------------------------------------------------------------------------ analysis
def stats():
    try:
        from scipy import stats as s
        return s
    except ImportError:
        fail("needs python3-scipy (apt-get install python3-scipy)")


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def fmt_p(p):
    return "1" if p >= 0.9995 else (f"{p:.3f}" if p >= 0.001 else f"{p:.1e}")


def outcome_class(protocol, outcome):
    """Averaging's outcome is its final counts; on a static graph they vary a lot, so its class is
    the spread of the final values (max - min)."""
    if protocol == "averaging":
        values = [int(part.split(":")[0][1:]) for part in outcome.split()] if ":" in outcome else \
            [int(outcome.split()[1][1:])]
        return f"spread {max(values) - min(values)}"
    return outcome


def equivalence_table(data, seeds, connected=None):
    s = stats()
    lines = ["| protocol | graph | scheduler | converged (lock vs sequential) | mean time (interactions/agent) | "
             "KS D, p | outcomes (lock/sequential) | chi-square p |", "|---|---|---|---|---|---|---|---|"]
    notes = []
    for key, cell in data.items():
        protocol, graph = key.split("/")
        if protocol == "exact-majority" and graph == "static" and connected:
            ok = [sum(r["outcome"] == "consensus X" for i, r in enumerate(cell[name]) if connected.get(str(i + 1)))
                  for name in cell]
            on = sum(bool(v) for v in connected.values())
            apart = sorted(int(k) for k, v in connected.items() if not v)
            stuck = sorted({i + 1 for k2, c2 in data.items() if k2.endswith("/static") for runs in c2.values()
                            for i, r in enumerate(runs) if not r["converged"]})
            where = ("every run that did not converge on a static graph, in any row, was on one of them"
                     if set(stuck) <= set(apart) else f"runs that did not converge: seeds {stuck}")
            notes.append(f"- Exact majority on the static graphs: the initial majority won in {min(ok)} of the {on} "
                         f"runs on a connected graph under every scheduler ({', '.join(cell)}). "
                         f"{len(apart)} seeds draw a graph that is not connected (seeds "
                         f"{', '.join(map(str, apart))}: the random 4-regular generator left 124 of 130 edges); "
                         f"{where}.")
        for lock in LOCKS:
            ref_key = "sequential-graph" if graph == "static" else f"sequential-graph@{lock}"
            ref, runs = cell[ref_key], cell[lock]
            a = [r["parallel_time"] for r in runs if r["converged"]]
            b = [r["parallel_time"] for r in ref if r["converged"]]
            ks = s.ks_2samp(a, b) if a and b else None
            classes = sorted({outcome_class(protocol, r["outcome"]) for r in runs + ref})
            table = [[sum(outcome_class(protocol, r["outcome"]) == c for r in rs) for c in classes] for rs in (runs, ref)]
            if len(classes) > 1:
                chi = s.chi2_contingency(table)
                chi_p = fmt_p(chi.pvalue if hasattr(chi, "pvalue") else chi[1])
            else:
                chi_p = "(one outcome)"
            summary = ", ".join(f"{c}: {table[0][i]}/{table[1][i]}" for i, c in enumerate(classes))
            lines.append(f"| {protocol} | {graph} | {lock} | {len(a)}/{len(runs)} vs {len(b)}/{len(ref)} | "
                         f"{mean(a):.1f} vs {mean(b):.1f} | "
                         f"{(f'{ks.statistic:.3f}, {fmt_p(ks.pvalue)}') if ks else '-'} | {summary} | {chi_p} |")
    return "\n".join(lines) + ("\n\n" + "\n".join(notes) if notes else "")


def growth_table(data):
    lines = ["| rule set | n | seeds | mean parallel time | sd | mean / ln n | correct (x wins) |",
             "|---|---|---|---|---|---|---|"]
    fits = []
    for protocol, rows in data.items():
        xs, ys = [], []
        for n, runs in rows.items():
            t = [r["parallel_time"] for r in runs]
            m = mean(t)
            sd = math.sqrt(sum((x - m) ** 2 for x in t) / (len(t) - 1))
            wins = sum(r["outcome"] == "consensus x" for r in runs)
            lines.append(f"| {protocol} | {int(n):,} | {len(runs)} | {m:.2f} | {sd:.2f} | {m / math.log(int(n)):.3f} | "
                         f"{wins}/{len(runs)} |")
            for x in t:
                xs.append(math.log(int(n)))
                ys.append(x)
        fit = stats().linregress(xs, ys)
        fits.append(f"{protocol}: parallel time = {fit.slope:.3f} ln n + {fit.intercept:.2f} "
                    f"(least squares over every run, r^2 = {fit.rvalue ** 2:.4f})")
    return "\n".join(lines) + "\n\n" + "\n".join(f"- {f}" for f in fits)


def leader_table(data):
    s = stats()
    lines = ["| n | seeds | mean parallel time | (n-1)^2/n | ratio | t-test p |", "|---|---|---|---|---|---|"]
    for n, runs in data.items():
        n = int(n)
        t = [r["parallel_time"] for r in runs]
        expected = (n - 1) ** 2 / n
        p = s.ttest_1samp(t, expected).pvalue
        lines.append(f"| {n:,} | {len(runs)} | {mean(t):.2f} | {expected:.2f} | {mean(t) / expected:.3f} | {fmt_p(p)} |")
    return "\n".join(lines)


def rates_table(data):
    lines = ["| graph | agents | scheduler | seeds | interactions per round | interactions/s (wall) | "
             "messages per interaction | Locks without a partner |", "|---|---|---|---|---|---|---|---|"]
    for key, runs in data.items():
        graph, n, lock = key.split("/")
        ipr = mean([r["interactions_per_round"] for r in runs])
        ips = mean([r["interactions_per_second"] for r in runs])
        mpi = mean([r["lock"]["messages_per_interaction"] for r in runs])
        alone = mean([r["lock"]["no_partner"] / max(1, r["lock"]["lock_cycles"]) for r in runs])
        lines.append(f"| {graph} | {int(n):,} | {lock} | {len(runs)} | {ipr:.1f} | {ips:,.0f} | {mpi:.1f} | "
                     f"{100 * alone:.0f} % |")
    return "\n".join(lines)


def plots(data, img):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        fail("needs python3-matplotlib (apt-get install python3-matplotlib)")
    img.mkdir(parents=True, exist_ok=True)
    if "growth" in data:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        for protocol, rows in data["growth"].items():
            ns = [int(n) for n in rows]
            ms = [mean([r["parallel_time"] for r in rows[n]]) for n in rows]
            ax.plot(ns, ms, marker="o", label=protocol)
        ax.set_xscale("log")
        ax.set_xlabel("agents n")
        ax.set_ylabel("parallel time to consensus")
        ax.set_title("Approximate majority, sequential scheduler, complete graph")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(img / "pp-growth.svg", metadata={"Date": None})
        plt.close(fig)
    if "leader" in data:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
        ns = [int(n) for n in data["leader"]]
        ax.plot(ns, [mean([r["parallel_time"] for r in data["leader"][str(n)]]) for n in ns], marker="o",
                label="measured mean")
        ax.plot(ns, [(n - 1) ** 2 / n for n in ns], linestyle="--", label="(n-1)^2/n")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("agents n")
        ax.set_ylabel("parallel time to one leader")
        ax.set_title("Leader election, sequential scheduler, complete graph")
        ax.grid(True, alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(img / "pp-leader.svg", metadata={"Date": None})
        plt.close(fig)
    if "equivalence" in data:
        for key in ["exact-majority/static", "approximate-majority/dynamic"]:
            cell = data["equivalence"].get(key)
            if not cell:
                continue
            fig, ax = plt.subplots(figsize=(6.4, 3.6))
            for name, runs in cell.items():
                t = sorted(r["parallel_time"] for r in runs if r["converged"])
                ax.step(t, [(i + 1) / len(t) for i in range(len(t))], where="post", label=name)
            ax.set_xlabel("interactions per agent to convergence")
            ax.set_ylabel("fraction of runs")
            ax.set_title(f"{key}: convergence, {len(next(iter(cell.values())))} seeds per scheduler")
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
            fig.tight_layout()
            fig.savefig(img / f"pp-ecdf-{key.replace('/', '-')}.svg", metadata={"Date": None})
            plt.close(fig)


def write_doc(doc, text):
    begin, end = "<!-- pp-tables: begin -->", "<!-- pp-tables: end -->"
    body = doc.read_text()
    if begin not in body or end not in body:
        fail(f"{doc}: the markers {begin} and {end} are missing")
    head, rest = body.split(begin, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(head + begin + "\n" + text + "\n" + end + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lmx", default=str(ROOT / "build/release/tools/lmx/lmx"))
    ap.add_argument("--seeds", type=int, default=200)
    ap.add_argument("--agents", type=int, default=65)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--data", default=str(ROOT / "build/pp-study.json"))
    ap.add_argument("--doc", default=None)
    ap.add_argument("--img", default=str(ROOT / "docs/img"))
    ap.add_argument("--only", choices=["equivalence", "graphs", "growth", "leader", "rates"], action="append")
    ap.add_argument("--reuse", action="store_true")
    a = ap.parse_args()
    if a.seeds < 2:
        fail("--seeds: at least 2")
    data_path = Path(a.data)
    data = json.loads(data_path.read_text()) if data_path.exists() else {}
    if not a.reuse:
        if not Path(a.lmx).is_file():
            fail(f"{a.lmx}: no lmx binary (scripts/build.sh builds it)")
        seeds = list(range(1, a.seeds + 1))
        parts = a.only or ["equivalence", "graphs", "growth", "leader", "rates"]
        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for part in parts:
                if part == "equivalence":
                    data[part] = equivalence(pool, a.lmx, seeds, a.agents)
                elif part == "graphs":
                    data[part] = graphs(pool, a.lmx, seeds, a.agents)
                elif part == "growth":
                    data[part] = growth(pool, a.lmx, seeds)
                elif part == "leader":
                    data[part] = leader(pool, a.lmx, seeds)
                elif part == "rates":
                    data[part] = rates(pool, a.lmx, seeds)
                tmp = data_path.with_suffix(".tmp")
                tmp.write_text(json.dumps(data))
                tmp.replace(data_path)
    sections = []
    if "equivalence" in data:
        sections.append("### Equivalence with the sequential graph scheduler\n\n" +
                        equivalence_table(data["equivalence"], a.seeds, data.get("graphs")))
    if "growth" in data:
        sections.append("### Approximate majority: O(log n) parallel time\n\n" + growth_table(data["growth"]))
    if "leader" in data:
        sections.append("### Leader election: (n-1)^2/n parallel time\n\n" + leader_table(data["leader"]))
    if "rates" in data:
        sections.append("### Interactions per round and per second under full contention\n\n" + rates_table(data["rates"]))
    text = "\n\n".join(sections)
    plots(data, Path(a.img))
    if a.doc:
        write_doc(Path(a.doc), text)
    else:
        print(text)


if __name__ == "__main__":
    main()
