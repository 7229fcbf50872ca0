#!/usr/bin/env python3
"""Checks one `make bench` output directory: the three files exist, results.csv has exactly the
agreed header, every query ran on every engine, and every Bolide answer equals Spark's.
Usage: scripts/check-bench-results.py bench/results/<timestamp>"""
import csv
import os
import sys

HEADER = ["query", "engine", "iteration", "seconds", "rows", "fallbacks", "correct"]


def main(d):
    for f in ("results.csv", "summary.md", "chart.png"):
        if not os.path.getsize(os.path.join(d, f)):
            sys.exit(f"{d}/{f} is empty")
    with open(os.path.join(d, "results.csv"), newline="") as fh:
        rows = list(csv.reader(fh))
    if rows[0] != HEADER:
        sys.exit(f"results.csv header {rows[0]} != {HEADER}")
    recs = [dict(zip(HEADER, r)) for r in rows[1:]]
    engines = sorted({r["engine"] for r in recs})
    queries = sorted({r["query"] for r in recs})
    missing = [(q, e) for q in queries for e in engines
               if not any(r["query"] == q and r["engine"] == e for r in recs)]
    if missing:
        sys.exit(f"runs missing: {missing}")
    wrong = [r for r in recs if r["engine"] == "bolide" and r["correct"] != "true"]
    if wrong:
        sys.exit("Bolide answers differ from Spark's (or failed): " +
                 ", ".join(f"{r['query']}#{r['iteration']}" for r in wrong))
    others = [r for r in recs if r["engine"] not in ("bolide", "spark") and r["correct"] != "true"]
    for r in others:
        print(f"note: {r['engine']} {r['query']} correct={r['correct']}")
    print(f"bench smoke test: {len(queries)} queries x {engines}: all Bolide answers equal Spark's")


if __name__ == "__main__":
    main(sys.argv[1])
