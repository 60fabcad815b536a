#!/usr/bin/env python3
"""Prints the readings sweep's summary table (docs/paper.md, section 6) from what
experiments/readings/sweep.sh kept: each reading's report.md (Table 2), its probes and
times.txt. Usage: experiments/readings/table.py"""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["paper", "steps-1", "frozen", "gated", "adam-carried", "adam-reset", "lr-1e-4",
         "lr-1e-5", "initial", "turn-zeroed", "depth-2", "depth-4"]


def table2(report):
    """{episodes: [mlp_b, mlp_w, cnn_b, cnn_w]} in percent, from the report's Table 2."""
    rows, inside = {}, False
    for line in open(report):
        if line.startswith("## Table 2"):
            inside = True
        elif line.startswith("## "):
            inside = False
        elif inside and re.match(r"\| \d+ \|", line):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[int(cells[0])] = [float(c.split("%")[0]) for c in cells[1:5]]
    return rows


def times():
    out = {}
    path = os.path.join(HERE, "times.txt")
    if os.path.exists(path):
        for line in open(path):
            name, secs = line.split(":")
            out[name.strip()] = int(secs.split()[0])
    return out


def pct(x):
    return f"{x:g}%"


def main():
    spent = times()
    print("| reading | vs supervised CNN, ep 10 (B / W) | ep 200 (B / W) | vs MLP, ep 200 (B / W) "
          "| best vs supervised CNN (ep) | probe MSE, ep 200 | colour gap over the run | time "
          "| rise to ≥ 76%? |")
    print("|---|---|---|---|---|---:|---|---:|---|")
    for name in ORDER:
        report = os.path.join(HERE, name, "report.md")
        if not os.path.exists(report):
            print(f"| `{name}` | not run yet | | | | | | | |")
            continue
        rows = table2(report)
        first, last = rows[min(rows)], rows[max(rows)]
        best_ep = max(rows, key=lambda e: (rows[e][2] + rows[e][3], -e))
        best = (rows[best_ep][2] + rows[best_ep][3]) / 2
        probes = []
        pdir = os.path.join(HERE, name, "probes")
        for f in sorted(os.listdir(pdir)):
            probes.append(json.load(open(os.path.join(pdir, f))))
        final = max(probes, key=lambda p: p["episode"])
        gaps = [p["colour_gap"] for p in probes]
        rise = "yes" if min(last[2], last[3]) >= 76 else "no"
        minutes = f"{spent[name] // 60} min" if name in spent else "?"
        print(f"| `{name}` | {pct(first[2])} / {pct(first[3])} | {pct(last[2])} / {pct(last[3])} "
              f"| {pct(last[0])} / {pct(last[1])} | {best:.1f}% ({best_ep}) | {final['mse']:.4f} "
              f"| {min(gaps):+.2f} to {max(gaps):+.2f} | {minutes} | {rise} |")


if __name__ == "__main__":
    main()
