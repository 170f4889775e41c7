#!/usr/bin/env python3
"""Tables and plots of docs/performance.md from the result stores of the latency study.

    scripts/performance-figures.py [--stores DIR] [--img DIR] [--doc FILE]

Reads the SQLite stores that `lmx sweep examples/sweeps/NAME.toml` writes beside the sweep files
(latency.sqlite, participation.sqlite, ...), prints the Markdown tables on stdout (or, with --doc,
writes them into FILE between the lines "<!-- tables: begin -->" and "<!-- tables: end -->") and
writes the plots as SVG into --img (default docs/img). Standard library only. A store that is
missing is skipped with a note; a store that is not one of lmx sweep's is an error.
"""
import argparse
import math
import sqlite3
import statistics
import sys
from pathlib import Path

FIGURES = {
    "locks_per_round": "locks per round",
    "pending_p50": "p50 latency, rounds (pending at their age)",
    "pending_p99": "p99 latency, rounds (pending at their age)",
    "messages_per_lock": "messages per lock",
    "trials_mean": "trials per lock",
    "throughput_over_bound": "throughput / limit",
}


def fail(message):
    print(f"performance-figures: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, table, keys):
    """Rows of one store: a dict per run with the grid keys and the figures."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        columns = [r[1] for r in db.execute(f'PRAGMA table_info("{table}")')]
    except sqlite3.Error as e:
        fail(f"{path}: {e}")
    wanted = keys + ["seed"] + list(FIGURES)
    missing = [c for c in wanted if c not in columns]
    if missing:
        fail(f"{path}: table {table} has no column {', '.join(missing)} (not a store of this study)")
    query = "SELECT " + ", ".join(f'"{c}"' for c in wanted) + f' FROM "{table}"'
    return [dict(zip(wanted, row)) for row in db.execute(query)]


def group(rows, keys):
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(r)
    return out


def values(runs, figure):
    return [r[figure] for r in runs if r[figure] is not None]


def mean_sd(xs):
    if not xs:
        return None, None
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def fmt(x, digits=3):
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:,.0f}".replace(",", " ")
    return f"{x:.{digits}g}"


def mann_whitney_greater(a, b):
    """Exact one-sided p-value of the Mann-Whitney U test that a is stochastically larger than b
    (ties count one half; the exact null distribution is the one without ties)."""
    n, m = len(a), len(b)
    if n == 0 or m == 0:
        return None
    u = sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in a for y in b)
    # counts[k][j]: arrangements of k values of a among j + k positions with U = ...
    from functools import lru_cache

    @lru_cache(maxsize=None)
    def count(i, j, target):  # ways for i a-values and j b-values to reach U >= target
        if target <= 0:
            return math.comb(i + j, i)
        if i == 0 or j == 0:
            return 0
        # the largest value is an a (beats all j b's) or a b (beats none)
        return count(i - 1, j, target - j) + count(i, j - 1, target)

    return count(n, m, math.ceil(u - 1e-9)) / math.comb(n + m, n)


def table_main(rows):
    """The Delta x K table: one line per (Delta, K), the two variants side by side."""
    by = group(rows, ["delta", "k", "variant"])
    deltas = sorted({k[0] for k in by})
    ks = sorted({k[1] for k in by})
    seeds = sorted({len(v) for v in by.values()})
    lines = [
        f"Mean over {'/'.join(map(str, seeds))} seeds (± standard deviation for locks per round); "
        "p is the exact one-sided Mann-Whitney test that `fast` completes more locks per round than "
        "`repaired` at that point.",
        "",
        "| Δ | K | locks/round repaired | locks/round fast | p | p50 rep. | p50 fast | p99 rep. | p99 fast "
        "| msgs/lock rep. | msgs/lock fast | trials/lock rep. | trials/lock fast | /limit rep. | /limit fast |",
        "|" + "---|" * 15,
    ]
    for d in deltas:
        for k in ks:
            rep, fast = by.get((d, k, "repaired"), []), by.get((d, k, "fast"), [])
            cells = [str(d), str(k)]
            for runs in (rep, fast):
                m, s = mean_sd(values(runs, "locks_per_round"))
                cells.append("—" if m is None else f"{fmt(m)} ± {fmt(s, 2)}")
            a, b = values(fast, "locks_per_round"), values(rep, "locks_per_round")
            p = mann_whitney_greater(a, b) if any(x > 0 for x in a + b) else None
            cells.append("—" if p is None else f"{p:.1g}")
            for fig in ("pending_p50", "pending_p99", "messages_per_lock", "trials_mean", "throughput_over_bound"):
                for runs in (rep, fast):
                    cells.append(fmt(mean_sd(values(runs, fig))[0]))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def table_factor(rows, key, label):
    """One factor around the middle point: a line per setting and variant."""
    by = group(rows, [key, "variant"])
    settings = sorted({k[0] for k in by}, key=lambda x: (isinstance(x, str), x))
    variants = [v for v in ("paper", "repaired", "fast") if any(k[1] == v for k in by)]
    first = [label] if key != "variant" else []
    lines = ["| " + " | ".join(first + ["variant", "seeds", "locks/round", "p50", "p99", "msgs/lock", "trials/lock",
                                         "/limit"]) + " |",
             "|" + "---|" * (len(first) + 8)]
    for x in settings:
        for v in variants:
            runs = by.get((x, v), [])
            if not runs:
                continue
            m, s = mean_sd(values(runs, "locks_per_round"))
            cells = ([str(x)] if key != "variant" else []) + [v, str(len(runs)), f"{fmt(m)} ± {fmt(s, 2)}"]
            for fig in ("pending_p50", "pending_p99", "messages_per_lock", "trials_mean", "throughput_over_bound"):
                cells.append(fmt(mean_sd(values(runs, fig))[0]))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ SVG
COLOURS = {"fast": "#1b7837", "repaired": "#762a83", "paper": "#b35806"}


def svg_plot(path, title, series, xs, log_y, y_label):
    """series: list of (label, colour, dash, {x: [values]}). Mean line with a min-max band."""
    w, h, left, right, top, bottom = 640, 380, 70, 150, 36, 46
    pw, ph = w - left - right, h - top - bottom
    all_y = [y for _, _, _, pts in series for ys in pts.values() for y in ys if y is not None and (y > 0 or not log_y)]
    if not all_y:
        return
    lo, hi = min(all_y), max(all_y)
    if log_y:
        lo, hi = 10 ** math.floor(math.log10(lo)), 10 ** math.ceil(math.log10(hi))
    else:
        lo, hi = 0.0, hi * 1.05 if hi > 0 else 1.0

    def sx(i):
        return left + (pw * i / (len(xs) - 1) if len(xs) > 1 else pw / 2)

    def sy(y):
        if log_y:
            y = max(y, lo)
            return top + ph * (1 - (math.log10(y) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))
        return top + ph * (1 - (y - lo) / (hi - lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="14">{title}</text>',
           f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="black"/>',
           f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + ph}" stroke="black"/>']
    for i, x in enumerate(xs):
        out.append(f'<text x="{sx(i):.1f}" y="{top + ph + 16}" text-anchor="middle">{x}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{h - 8}" text-anchor="middle">Δ (degree of the random regular graph)</text>')
    ticks = []
    if log_y:
        e = math.log10(lo)
        while e <= math.log10(hi) + 1e-9:
            ticks.append(10 ** e)
            e += 1
    else:
        ticks = [lo + (hi - lo) * i / 5 for i in range(6)]
    for t in ticks:
        out.append(f'<line x1="{left - 4}" y1="{sy(t):.1f}" x2="{left + pw}" y2="{sy(t):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{sy(t) + 4:.1f}" text-anchor="end">{fmt(t, 2)}</text>')
    out.append(f'<text x="14" y="{top + ph / 2}" transform="rotate(-90 14 {top + ph / 2})" text-anchor="middle">{y_label}</text>')
    for n, (label, colour, dash, pts) in enumerate(series):
        idx = [i for i, x in enumerate(xs) if pts.get(x)]
        if not idx:
            continue
        upper = [(sx(i), sy(max(pts[xs[i]]))) for i in idx]
        lower = [(sx(i), sy(min(pts[xs[i]]))) for i in reversed(idx)]
        band = " ".join(f"{a:.1f},{b:.1f}" for a, b in upper + lower)
        out.append(f'<polygon points="{band}" fill="{colour}" opacity="0.15"/>')
        line = " ".join(f"{sx(i):.1f},{sy(statistics.fmean(pts[xs[i]])):.1f}" for i in idx)
        out.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>')
        ly = top + 14 + 18 * n
        out.append(f'<line x1="{left + pw + 10}" y1="{ly}" x2="{left + pw + 34}" y2="{ly}" stroke="{colour}" '
                   f'stroke-width="2" stroke-dasharray="{dash}"/>')
        out.append(f'<text x="{left + pw + 38}" y="{ly + 4}">{label}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def plots(rows, img):
    by = group(rows, ["delta", "k", "variant"])
    deltas = sorted({k[0] for k in by})
    for fig, log_y in (("locks_per_round", True), ("pending_p50", False), ("messages_per_lock", True),
                       ("throughput_over_bound", False)):
        series = []
        for variant in ("fast", "repaired"):
            for k, dash in ((32, ""), (4, "5,4")):
                pts = {d: values(by.get((d, k, variant), []), fig) for d in deltas}
                series.append((f"{variant}, K = {k}", COLOURS[variant], dash, pts))
        svg_plot(img / f"latency-{fig.replace('_', '-')}.svg", f"{FIGURES[fig]} against Δ (n = 1000, every node locking)",
                 series, deltas, log_y, FIGURES[fig])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--stores", default="examples/sweeps", help="directory of the result stores")
    ap.add_argument("--img", default="docs/img", help="directory for the SVG plots")
    ap.add_argument("--doc", help="a Markdown file whose marked region receives the tables")
    a = ap.parse_args()
    stores, img = Path(a.stores), Path(a.img)
    if not img.is_dir():
        fail(f"--img {img}: not a directory")
    main_store = stores / "latency.sqlite"
    if not main_store.is_file():
        fail(f"{main_store}: no such store (run: lmx sweep examples/sweeps/latency.toml)")
    rows = load(main_store, "latency", ["delta", "k", "variant"])
    parts = ["### The main grid: Δ × K, both variants\n", table_main(rows)]
    plots(rows, img)
    for name, key, label in (("participation", "workload.participation", "participation"),
                             ("topology", "topology.kind", "topology"), ("churn", "dynamics.kind", "dynamics"),
                             ("engine", "engine", "engine"), ("nodes", "nodes", "n"), ("variant", "variant", "variant")):
        path = stores / f"{name}.sqlite"
        if not path.is_file():
            parts.append(f"\n(no store {path}: `lmx sweep examples/sweeps/{name}.toml` has not run)")
            continue
        keys = [key] if key == "variant" else [key, "variant"]
        factor_rows = load(path, name, keys)
        parts += [f"\n### One factor: {label}\n", table_factor(factor_rows, key, label)]
    text = "\n".join(parts) + "\n"
    if not a.doc:
        print(text, end="")
        return
    doc = Path(a.doc)
    try:
        old = doc.read_text()
    except OSError as e:
        fail(f"--doc {doc}: {e.strerror}")
    begin, end = "<!-- tables: begin -->\n", "<!-- tables: end -->"
    if old.count(begin) != 1 or old.count(end) != 1 or old.index(begin) > old.index(end):
        fail(f"--doc {doc}: needs one line '<!-- tables: begin -->' before one line '<!-- tables: end -->'")
    new = old[: old.index(begin) + len(begin)] + text + old[old.index(end):]
    tmp = doc.with_name(doc.name + ".tmp")
    try:
        tmp.write_text(new)
        tmp.replace(doc)
    except OSError as e:
        fail(f"--doc {doc}: cannot write: {e.strerror}")


if __name__ == "__main__":
    main()
