#!/usr/bin/env python3
"""`make bench-memory`: an executor's peak RSS against its memory budget, Bolide on and off.

For every off-heap pool size (--pools) and engine (--engines: spark = vanilla Spark, bolide), one JVM
runs bench/'s TpchBenchDriver in local mode (driver and executor in one process, as the other
benchmarks) with a fixed, pre-touched heap (-Xms = -Xmx, -XX:+AlwaysPreTouch: the heap counts at its
full size, as on a long-running executor whose heap has filled once) and Spark's off-heap pool
(spark.memory.offHeap.size), and runs the queries once each, in order. Sampled from /proc/<pid>/status
every 100 ms: VmRSS (the peak while each query ran) and VmHWM (the process's peak, the number that
counts). The driver reports the pool's peak use per query (offHeapPeak: Spark's off-heap execution
plus storage memory, sampled every 5 ms); the JVM's Native Memory Tracking summary is taken after the
last query; Bolide's JVM runs with GODEBUG=gctrace=1, whose lines give the Go heap's peak.

    overhead          = peak RSS - (heap + pool)       what the budget must add beyond heap + pool
    overhead, pool used = peak RSS - (heap + pool's peak use)   the fixed part (the pool was not full)
    Bolide on - off   = the same difference between the two engines' processes

Writes --out/summary.md, --out/memory.csv (one row per engine, pool and query) and logs/.
"""
import argparse
import csv
import datetime
import importlib.util
import os
import platform
import re
import shlex
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("bench_tpch", os.path.join(ROOT, "scripts", "bench-tpch.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

MIB = 1 << 20


def size_bytes(s):
    m = re.fullmatch(r"(\d+)([kmgt]?)b?", s.strip().lower())
    if not m:
        raise ValueError(f"size: {s}")
    return int(m.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2)]


def proc_status(pid):
    out = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM", "RssAnon", "RssFile", "Threads"):
                    out[k] = int(v.split()[0])  # kB, or a count
    except OSError:
        pass
    return out


class Run:
    """One JVM: an engine with one pool size."""

    def __init__(self, args, engine, pool, outdir):
        self.args, self.engine, self.pool = args, engine, pool
        self.log_path = os.path.join(outdir, "logs", f"{engine}-{pool}.log")
        self.answers = os.path.join(outdir, "answers", f"{engine}-{pool}")
        os.makedirs(self.answers, exist_ok=True)
        self.rss_max_kib = 0
        self.samples = 0
        self.stop_sampling = False

    def command(self):
        a = self.args
        ns = argparse.Namespace(format="parquet", cores=a.cores, heap=a.heap, offheap=self.pool,
                                shuffle_partitions=a.shuffle_partitions)
        cp = ([a.bolide_jar] if self.engine == "bolide" else []) + [a.bench_classes, open(a.classpath).read().strip()]
        cmd = ["java", f"-Xms{a.heap}", f"-Xmx{a.heap}", "-XX:+AlwaysPreTouch", "-XX:NativeMemoryTracking=summary",
               *bench.OPENS, "-cp", ":".join(cp), "dev.bolide.bench.TpchBenchDriver", "--engine", self.engine,
               "--data", a.data, "--queries", a.queries, "--answers", self.answers]
        if bench.NATIVE_PREFIX[self.engine]:
            cmd += ["--native-prefix", bench.NATIVE_PREFIX[self.engine]]
        for k, v in bench.common_confs(ns) + bench.engine_confs(self.engine):
            cmd += ["--conf", f"{k}={v}"]
        return cmd

    def _sample(self):
        while not self.stop_sampling and self.proc.poll() is None:
            st = proc_status(self.proc.pid)
            if "VmRSS" in st:
                self.rss_max_kib = max(self.rss_max_kib, st["VmRSS"])
                self.samples += 1
            time.sleep(0.1)

    def _line(self, timeout):
        """The next protocol line (starting with @@), or None when the JVM ended or timed out."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                return None
            if line.startswith("@@"):
                return line.strip()
            self.log.write(line)
        return None

    def execute(self):
        # production mode (no checking allocator); the driver samples the pool's use for the report
        env = dict(os.environ, BOLIDE_MEMCHECK="0", BENCH_OFFHEAP_SAMPLER="1")
        if self.engine == "bolide":
            env["GODEBUG"] = "gctrace=1"
        self.log = open(self.log_path, "w", buffering=1)
        self.log.write(f"=== {' '.join(shlex.quote(c) for c in self.command())}\n")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1, cwd=ROOT, env=env)
        sampler = threading.Thread(target=self._sample, daemon=True)
        sampler.start()
        rows = []
        ready = self._line(self.args.start_timeout)
        if not ready or not ready.startswith("@@READY"):
            self.proc.kill()
            raise RuntimeError(f"{self.engine} did not start, see {self.log_path}: {ready}")
        st = proc_status(self.proc.pid)
        rows.append({"query": "(started)", "seconds": "", "rss_peak_mib": self.rss_max_kib // 1024,
                     "hwm_mib": st.get("VmHWM", 0) // 1024, "pool_peak_mib": 0, "error": ""})
        for q in self.args.queries_list:
            self.rss_max_kib = proc_status(self.proc.pid).get("VmRSS", 0)
            self.proc.stdin.write(f"run {q} 1\n")
            self.proc.stdin.flush()
            line = self._line(self.args.timeout)
            st = proc_status(self.proc.pid)
            self.rss_max_kib = max(self.rss_max_kib, st.get("VmRSS", 0))
            kv = bench.parse_kv(line) if line else {}
            err = "" if line and line.startswith("@@RESULT") else (kv.get("message") or line or "JVM ended or timed out")
            rows.append({"query": q, "seconds": kv.get("seconds", ""), "rss_peak_mib": self.rss_max_kib // 1024,
                         "hwm_mib": st.get("VmHWM", 0) // 1024,
                         "pool_peak_mib": int(kv.get("offHeapPeak", "0") or 0) // MIB, "error": err[:300]})
            print(f"  {self.engine} pool={self.pool} {q}: {kv.get('seconds', '?')} s, RSS peak "
                  f"{self.rss_max_kib // 1024} MiB, pool peak {rows[-1]['pool_peak_mib']} MiB {err[:120]}", flush=True)
            if self.proc.poll() is not None:
                break
        final = proc_status(self.proc.pid)
        self.hwm_mib = final.get("VmHWM", 0) // 1024
        self.nmt = self.native_memory()
        self.stop_sampling = True
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        self.go_heap_peak_mib = self.go_heap_peak()
        self.rows = rows
        return rows

    def native_memory(self):
        """The JVM's own memory by NMT category (committed MiB), plus its total."""
        try:
            out = subprocess.run(["jcmd", str(self.proc.pid), "VM.native_memory", "summary", "scale=MB"],
                                 capture_output=True, text=True, timeout=60).stdout
        except (OSError, subprocess.TimeoutExpired):
            return {}
        with open(self.log_path + ".nmt", "w") as f:
            f.write(out)
        res = {}
        m = re.search(r"Total: reserved=(\d+)MB, committed=(\d+)MB", out)
        if m:
            res["Total"] = int(m.group(2))
        for m in re.finditer(r"-\s+([A-Za-z ]+?) \(reserved=(\d+)MB, committed=(\d+)MB\)", out):
            res[m.group(1).strip()] = int(m.group(3))
        return res

    def go_heap_peak(self):
        """The Go heap's peak (MiB, at a GC's start) from gctrace lines, or None without them."""
        peak = None
        pat = re.compile(r"^gc \d+ @.*?: .*? (\d+)->(\d+)->(\d+) MB, (\d+) MB goal")
        with open(self.log_path) as f:
            for line in f:
                m = pat.match(line)
                if m:
                    peak = max(peak or 0, int(m.group(1)), int(m.group(2)))
        return peak


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", default="1")
    p.add_argument("--data", required=True)
    p.add_argument("--queries", default=os.path.join(ROOT, "tpch", "queries"), help="TPC-H query directory")
    p.add_argument("--queries-list", default="q1,q9,q18,q21,groupby-highcard",
                   help="TPC-H queries (tpch/queries) or bench/memory-queries, run in this order")
    p.add_argument("--engines", default="spark,bolide")
    p.add_argument("--pools", default="512m,2g", help="off-heap pool sizes (spark.memory.offHeap.size)")
    p.add_argument("--heap", default="2g")
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--shuffle-partitions", type=int, default=8)
    p.add_argument("--classpath", required=True)
    p.add_argument("--bench-classes", default=os.path.join(ROOT, "bench", "target", "classes"))
    p.add_argument("--bolide-jar", required=True)
    p.add_argument("--timeout", type=float, default=1800)
    p.add_argument("--start-timeout", type=float, default=300)
    p.add_argument("--out", required=True)
    p.add_argument("--command", default="", help="the command line to record in summary.md")
    args = p.parse_args()
    args.queries_list = [q for q in args.queries_list.split(",") if q]
    # One query directory for the driver: the TPC-H queries plus bench/memory-queries.
    qdir = os.path.join(args.out, "queries")
    os.makedirs(qdir, exist_ok=True)
    for d in (args.queries, os.path.join(ROOT, "bench", "memory-queries")):
        for name in os.listdir(d):
            if name.endswith(".sql") and not os.path.exists(os.path.join(qdir, name)):
                os.symlink(os.path.abspath(os.path.join(d, name)), os.path.join(qdir, name))
    args.queries = qdir
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    heap_mib = size_bytes(args.heap) // MIB

    runs = []
    for pool in args.pools.split(","):
        for engine in args.engines.split(","):
            print(f"--- {engine}, heap {args.heap}, off-heap pool {pool}", flush=True)
            r = Run(args, engine, pool, args.out)
            r.execute()
            runs.append(r)

    with open(os.path.join(args.out, "memory.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["engine", "heap_mib", "pool_mib", "query", "seconds", "rss_peak_mib", "hwm_mib", "pool_peak_mib", "error"])
        for r in runs:
            for row in r.rows:
                w.writerow([r.engine, heap_mib, size_bytes(r.pool) // MIB, row["query"], row["seconds"],
                            row["rss_peak_mib"], row["hwm_mib"], row["pool_peak_mib"], row["error"]])

    L = []
    L.append(f"# Executor memory: peak RSS against heap + off-heap pool ({datetime.date.today()})\n")
    L.append(f"- Command: `{args.command or ' '.join(shlex.quote(a) for a in sys.argv)}`")
    L.append(f"- TPC-H SF {args.sf} Parquet, queries {', '.join(args.queries_list)} (tpch/queries, bench/memory-queries) once each in one JVM per row, "
             f"in that order; local[{args.cores}], {args.shuffle_partitions} shuffle partitions")
    L.append(f"- Heap -Xms{args.heap} -Xmx{args.heap} -XX:+AlwaysPreTouch (resident at its full size); "
             f"spark.memory.offHeap.enabled=true; Bolide with its shuffle manager (README)")
    try:
        java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()[0]
    except (OSError, IndexError):
        java = "?"
    L.append(f"- {java}; {platform.system()} {platform.release()}; {os.cpu_count()} CPUs "
             f"(shared with other work: times are not benchmarks)")
    L.append("")
    L.append("| engine | pool | peak RSS (VmHWM) | heap + pool | overhead = RSS - (heap + pool) | pool's peak use | "
             "RSS - (heap + pool used) | JVM NMT committed | Go heap peak (gctrace) |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for r in runs:
        pool_mib = size_bytes(r.pool) // MIB
        used = max((row["pool_peak_mib"] for row in r.rows), default=0)
        L.append(f"| {r.engine} | {r.pool} | {r.hwm_mib} MiB | {heap_mib + pool_mib} MiB | "
                 f"{r.hwm_mib - heap_mib - pool_mib} MiB | {used} MiB | {r.hwm_mib - heap_mib - used} MiB | "
                 f"{r.nmt.get('Total', '?')} MiB | {'-' if r.go_heap_peak_mib is None else str(r.go_heap_peak_mib) + ' MiB'} |")
    L.append("")
    by = {(r.engine, r.pool): r for r in runs}
    if any(e == "bolide" for e, _ in by) and any(e == "spark" for e, _ in by):
        L.append("Bolide on minus Bolide off (same heap and pool):\n")
        L.append("| pool | peak RSS, Bolide on - off | RSS - (heap + pool used), on - off |")
        L.append("|---|---:|---:|")
        for pool in args.pools.split(","):
            on, off = by.get(("bolide", pool)), by.get(("spark", pool))
            if on and off:
                u_on = max(row["pool_peak_mib"] for row in on.rows)
                u_off = max(row["pool_peak_mib"] for row in off.rows)
                L.append(f"| {pool} | {on.hwm_mib - off.hwm_mib} MiB | {(on.hwm_mib - u_on) - (off.hwm_mib - u_off)} MiB |")
        L.append("")
    L.append("Per query (RSS peak: sampled VmRSS while the query ran; VmHWM after it; pool: Spark's off-heap "
             "execution + storage memory in use, peak):\n")
    L.append("| engine | pool | query | seconds | RSS peak | VmHWM after | pool peak | error |")
    L.append("|---|---|---|---:|---:|---:|---:|---|")
    for r in runs:
        for row in r.rows:
            sec = f"{float(row['seconds']):.1f}" if row["seconds"] else ""
            L.append(f"| {r.engine} | {r.pool} | {row['query']} | {sec} | {row['rss_peak_mib']} MiB | "
                     f"{row['hwm_mib']} MiB | {row['pool_peak_mib']} MiB | {row['error'][:120]} |")
    L.append("")
    L.append("JVM Native Memory Tracking after the last query (committed MiB; the heap is in Java Heap):\n")
    cats = ["Java Heap", "Class", "Thread", "Code", "GC", "Compiler", "Internal", "Other", "Symbol",
            "Native Memory Tracking", "Arena Chunk", "Metaspace", "Total"]
    L.append("| engine | pool | " + " | ".join(cats) + " |")
    L.append("|---|---|" + "---:|" * len(cats))
    for r in runs:
        L.append(f"| {r.engine} | {r.pool} | " + " | ".join(str(r.nmt.get(c, "")) for c in cats) + " |")
    L.append("")
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write("\n".join(L))
    print("\n".join(L))


if __name__ == "__main__":
    main()
