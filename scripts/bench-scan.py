#!/usr/bin/env python3
"""`make bench-scan`: single-thread CPU of a full decode of TPC-H lineitem, Q1 and Q6, for Bolide's
Go engine alone, Bolide inside Spark, DuckDB, Comet and vanilla Spark, over the same Parquet files.

The three queries are bench/scan-queries/*.sql (decode: the max of each of lineitem's 16 columns,
so every value is decoded and the answer is one row). The same SQL runs everywhere:

- go:      the native blocks Bolide runs for the query, captured from a Spark run
           (BOLIDE_DUMP_TASKS, native/jni/dump.go) and replayed by native/cmd/replay with
           GOMAXPROCS=1 and no JVM. Process CPU (user + system, GC included) per run.
- duckdb:  DuckDB from PyPI, threads=1, over read_parquet of the same files. Process CPU per run.
- bolide, spark, comet: scripts/bench-tpch.py at local[1]. The sum of the query's task run times:
           with one task slot the executor thread is busy exactly that long. (Task-thread CPU is
           also recorded, but it misses Comet's work, which runs on threads of its own.)

Every figure is the median over --iter runs after one warm-up. Writes into --out: summary.md (the
table and the ratios the issue asks for), scan.csv, go-<query>.pprof (CPU profiles of the Go-only
runs: `go tool pprof -top native/... go-q1.pprof`), tasks/<query>/ (the captured requests) and
spark/ (bench-tpch.py's own output).
"""
import argparse
import csv
import datetime
import glob
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUERIES = ["decode", "q1", "q6"]
QDIR = os.path.join(ROOT, "bench", "scan-queries")


def load_bench_tpch():
    spec = importlib.util.spec_from_file_location("bench_tpch", os.path.join(ROOT, "scripts", "bench-tpch.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def tpch_args(args, out, engines, iters):
    return ["--sf", args.sf, "--engines", engines, "--iter", str(iters), "--queries-list", ",".join(QUERIES),
            "--data", args.data, "--queries", QDIR, "--classpath", args.classpath, "--bolide-jar", args.bolide_jar,
            "--comet-jar", args.comet_jar, "--comet-version", args.comet_version, "--cores", "1", "--out", out]


def capture_tasks(args, bt):
    """Runs each query once through Spark + Bolide with BOLIDE_DUMP_TASKS, one directory per query."""
    ns = bt_namespace(args, bt, os.path.join(args.out, "capture"))
    os.makedirs(os.path.join(ns.out, "logs"), exist_ok=True)
    pending = os.path.join(args.out, "tasks", "_pending")
    os.environ["BOLIDE_DUMP_TASKS"] = pending
    try:
        eng = bt.Engine("bolide", ns, ns.out)
        eng.start()
    finally:
        del os.environ["BOLIDE_DUMP_TASKS"]
    try:
        for q in QUERIES:
            shutil.rmtree(pending, ignore_errors=True)
            r = eng.run(q, "capture")
            if "error" in r:
                sys.exit(f"bench-scan: capturing {q} failed: {r['error']}")
            dst = os.path.join(args.out, "tasks", q)
            shutil.rmtree(dst, ignore_errors=True)
            if not os.path.isdir(pending) or not glob.glob(os.path.join(pending, "task-*.json")):
                sys.exit(f"bench-scan: {q} ran no native block that starts at a scan (fallbacks: {r.get('fallbacks')})")
            os.rename(pending, dst)
    finally:
        eng.stop()


def bt_namespace(args, bt, out):
    p = argparse.Namespace(sf=args.sf, engines="bolide", iter=1, queries_list="", data=args.data, queries=QDIR,
                           classpath=args.classpath, bench_classes=os.path.join(ROOT, "bench", "target", "classes"),
                           bolide_jar=args.bolide_jar, comet_jar=args.comet_jar, comet_version=args.comet_version,
                           out=out, cores=1, heap="4g", offheap="4g", shuffle_partitions=8, timeout=1800,
                           start_timeout=300, format="parquet", warehouse="")
    return p


def go_only(args):
    res = {}
    for q in QUERIES:
        files = sorted(glob.glob(os.path.join(args.out, "tasks", q, "task-*.json")))
        prof = os.path.join(args.out, f"go-{q}.pprof")
        env = dict(os.environ, GOMAXPROCS="1")
        p = subprocess.run([args.replay, "-runs", str(args.iter), "-warmup", "1", "-cpuprofile", prof, *files],
                           env=env, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"bench-scan: replay of {q} failed: {p.stderr.strip()}")
        r = json.loads(p.stdout)
        res[q] = {"cpu": statistics.median(r["cpu_s"]), "wall": statistics.median(r["wall_s"]),
                  "tasks": r["tasks"], "runs": r["cpu_s"]}
        print(f"  go     {q:>6}: {res[q]['cpu']:.3f} s CPU ({r['tasks']} tasks, runs {r['cpu_s']})", flush=True)
    return res


def duckdb_runs(args):
    import duckdb  # from PyPI, installed by the Makefile into the bench venv
    con = duckdb.connect()
    con.execute("SET threads = 1")
    glob_path = os.path.join(args.data, "lineitem", "*.parquet").replace("'", "''")
    con.execute(f"CREATE VIEW lineitem AS SELECT * FROM read_parquet('{glob_path}')")
    res = {}
    for q in QUERIES:
        with open(os.path.join(QDIR, f"{q}.sql")) as f:
            sql = f.read()
        cpus, walls = [], []
        for i in range(args.iter + 1):
            c0, t0 = time.process_time(), time.perf_counter()
            con.execute(sql).fetchall()
            c, w = time.process_time() - c0, time.perf_counter() - t0
            if i > 0:  # the first is the warm-up
                cpus.append(c)
                walls.append(w)
        res[q] = {"cpu": statistics.median(cpus), "wall": statistics.median(walls), "runs": cpus}
        print(f"  duckdb {q:>6}: {res[q]['cpu']:.3f} s CPU (runs {[round(c, 3) for c in cpus]})", flush=True)
    res["_version"] = duckdb.__version__
    return res


def spark_runs(args):
    out = os.path.join(args.out, "spark")
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "bench-tpch.py"), *tpch_args(args, out, args.engines, args.iter)]
    subprocess.run(cmd, check=True, cwd=ROOT)
    res = {}
    with open(os.path.join(out, "task-times.csv")) as f:
        rows = list(csv.DictReader(f))
    for e in args.engines.split(","):
        for q in QUERIES:
            rs = [r for r in rows if r["engine"] == e and r["query"] == q]
            if len(rs) != args.iter:
                res[(e, q)] = None  # an error or a wrong answer: bench-tpch's summary says which
                continue
            res[(e, q)] = {"task": statistics.median(float(r["task_seconds"]) for r in rs),
                           "task_cpu": statistics.median(float(r["task_cpu_seconds"]) for r in rs),
                           "proc_cpu": statistics.median(float(r.get("process_cpu_seconds") or 0) for r in rs)}
    with open(os.path.join(out, "results.csv")) as f:
        wrong = {(r["engine"], r["query"]) for r in csv.DictReader(f) if r["correct"] == "false"}
    for k in wrong:
        res[k] = None
    return res


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else ""


def write_summary(args, go, duck, spark, started):
    lines = [f"# bench-scan: TPC-H SF {args.sf} lineitem, one thread", "",
             f"Run {started:%Y-%m-%d %H:%M} on {os.cpu_count()} cores; median of {args.iter} runs after a warm-up. "
             f"DuckDB {duck.get('_version', '?')} (threads=1); Spark at local[1]; the Go-only runs replay "
             f"the native blocks Bolide ran for the same query (GOMAXPROCS=1, no JVM).", "",
             "CPU seconds: process CPU for go and duckdb; for the engines inside Spark, the sum of the "
             "query's task run times (one task slot: the executor thread's busy time; the driver's "
             "planning is not in it).", "",
             "| query | go (CPU s) | duckdb (CPU s) | go / duckdb | " +
             " | ".join(f"{e} in Spark (task s)" for e in args.engines.split(",")) + " |",
             "|---|---|---|---|" + "---|" * len(args.engines.split(","))]
    rows = []
    for q in QUERIES:
        g, d = go[q]["cpu"], duck[q]["cpu"]
        cells = []
        for e in args.engines.split(","):
            r = spark.get((e, q))
            cells.append(f"{r['task']:.3f}" if r else "error/wrong")
        lines.append(f"| {q} | {g:.3f} | {d:.3f} | {ratio(g, d)} | " + " | ".join(cells) + " |")
        rows.append([q, f"{g:.4f}", f"{d:.4f}"] + [f"{spark[(e, q)]['task']:.4f}" if spark.get((e, q)) else ""
                                                  for e in args.engines.split(",")])
    lines += ["", "Targets (issue 10): go / duckdb <= 1.2 for q1 and q6, <= 1.0 for decode.", "",
              "Wall seconds of the same runs (on a busy machine wall exceeds CPU: compare CPU), the "
              "task-thread CPU inside Spark (Comet's is near zero: its work runs on threads of its own; "
              "Bolide's Go work runs on the task thread: this is the figure to set against go's CPU), and "
              "the whole JVM's CPU during the query (every thread: the driver's planning, the JIT "
              "compilers, the GCs, Comet's own threads):", "",
              "| query | go (wall s) | duckdb (wall s) | " +
              " | ".join(f"{e} in Spark (task CPU s)" for e in args.engines.split(",")) + " | " +
              " | ".join(f"{e} JVM (process CPU s)" for e in args.engines.split(",")) + " |",
              "|---|---|---|" + "---|" * 2 * len(args.engines.split(","))]
    for q in QUERIES:
        cells = []
        for e in args.engines.split(","):
            r = spark.get((e, q))
            cells.append(f"{r['task_cpu']:.3f}" if r else "error/wrong")
        for e in args.engines.split(","):
            r = spark.get((e, q))
            cells.append(f"{r['proc_cpu']:.3f}" if r else "error/wrong")
        lines.append(f"| {q} | {go[q]['wall']:.3f} | {duck[q]['wall']:.3f} | " + " | ".join(cells) + " |")
    lines.append("")
    if "bolide" in args.engines.split(","):
        lines += ["Inside Spark, ratios to Bolide (task time):", ""]
        for q in QUERIES:
            b = spark.get(("bolide", q))
            parts = []
            for e in args.engines.split(","):
                r = spark.get((e, q))
                if e != "bolide" and r and b:
                    parts.append(f"{e}/bolide {r['task'] / b['task']:.2f}")
            # Task time is wall time: against go's CPU it counts every descheduling of the task
            # thread on a busy machine (and the JIT compiling the driver's code beside it) as
            # Bolide's. The task thread's CPU is what compares with go's process CPU.
            lines.append(f"- {q}: " + ", ".join(parts) + f"; bolide in Spark / go alone: task CPU "
                         f"{ratio(b and b['task_cpu'], go[q]['cpu'])}, task time (wall) {ratio(b and b['task'], go[q]['cpu'])}")
    lines += ["", "Profiles of the Go-only runs: go-decode.pprof, go-q1.pprof, go-q6.pprof "
              "(`go tool pprof -top <file>`). bench-tpch.py's own output for the Spark runs: spark/.", ""]
    md = "\n".join(lines)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "scan.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["query", "go_cpu_s", "duckdb_cpu_s"] + [f"{e}_task_s" for e in args.engines.split(",")])
        w.writerows(rows)
    return md


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", default="1")
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--iter", type=int, default=5)
    p.add_argument("--engines", default="spark,bolide,comet", help="engines run inside Spark at local[1]")
    p.add_argument("--classpath", required=True)
    p.add_argument("--bolide-jar", required=True)
    p.add_argument("--comet-jar", default="")
    p.add_argument("--comet-version", default="?")
    p.add_argument("--replay", required=True, help="native/cmd/replay, built")
    args = p.parse_args()
    started = datetime.datetime.now()
    os.makedirs(args.out, exist_ok=True)
    bt = load_bench_tpch()
    print(f"bench-scan: SF={args.sf}, {args.iter} runs after a warm-up, results in {args.out}", flush=True)
    capture_tasks(args, bt)
    go = go_only(args)
    duck = duckdb_runs(args)
    spark = spark_runs(args)
    md = write_summary(args, go, duck, spark, started)
    print(md)


if __name__ == "__main__":
    main()
