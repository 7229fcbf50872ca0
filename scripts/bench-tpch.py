#!/usr/bin/env python3
"""`make bench-tpch`: TPC-H on vanilla Spark, Spark + Bolide and Spark + Comet, side by side.

One long-lived JVM per engine runs bench/'s TpchBenchDriver (a Spark session in local mode that reads
`run <query> <tag>` commands on stdin and answers with one `@@RESULT`/`@@ERROR` line). This script
starts them, then, query by query, sends the same query to each engine in turn: one warm-up run each,
then ITER timed rounds (engine after engine within a round). Each answer is checked against vanilla
Spark's warm-up answer (same canonical rendering: rows sorted unless the query orders, decimals exact,
doubles to ~1e-9 relative); a wrong answer is reported as correct=false and gets no time.

Writes into --out: results.csv, summary.md, chart.png, shuffle-bytes.csv (the exact bytes behind
summary.md's shuffle MB columns), task-times.csv (each run's summed task run time and task-thread
CPU: summary.md's task table; and the engine JVM's whole CPU during the run), logs/<engine>.log (the JVM's log and the executed plans),
answers/<engine>/ (canonical answers).
"""
import argparse
import csv
import datetime
import math
import os
import platform
import queue
import hashlib
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Spark on JDK 17 needs these opens (spark-submit adds them itself); same list as scripts/run-demo.sh.
OPENS = """--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED
--add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
--add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED
--add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED
--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
--add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED
--add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false
-Dio.netty.tryReflectionSetAccessible=true""".split()

ENGINE_ORDER = ["spark", "bolide", "comet"]
NATIVE_PREFIX = {"spark": "", "bolide": "Bolide", "comet": "Comet"}


def common_confs(args):
    """The same Spark settings and memory budget for every engine (vanilla Spark too)."""
    iceberg = []
    if args.format == "iceberg":
        # Every engine scans: none answers max/count from Iceberg's metadata instead.
        iceberg = [("spark.sql.iceberg.aggregate-push-down.enabled", "false")]
    return iceberg + [
        ("spark.master", f"local[{args.cores}]"),
        ("spark.driver.memory", args.heap),  # informational: the heap is the JVM's -Xmx below
        ("spark.memory.offHeap.enabled", "true"),
        ("spark.memory.offHeap.size", args.offheap),
        ("spark.sql.shuffle.partitions", str(args.shuffle_partitions)),
        ("spark.ui.enabled", "false"),
        ("spark.driver.host", "127.0.0.1"),
        ("spark.driver.bindAddress", "127.0.0.1"),
    ]


def engine_confs(engine):
    if engine == "bolide":  # as README.md says
        return [("spark.plugins", "org.apache.spark.sql.bolide.BolidePlugin"),
                ("spark.shuffle.manager", "org.apache.spark.sql.bolide.shuffle.BolideShuffleManager")]
    if engine == "comet":  # as Comet's installation guide says (the JAR is on the JVM's classpath)
        return [
            ("spark.plugins", "org.apache.spark.CometPlugin"),
            ("spark.shuffle.manager", "org.apache.spark.sql.comet.execution.shuffle.CometShuffleManager"),
            ("spark.comet.enabled", "true"),
            ("spark.comet.exec.enabled", "true"),
            ("spark.comet.shuffle.enabled", "true"),  # 1.2 name of spark.comet.exec.shuffle.enabled (deprecated)
        ]
    return []


class Engine:
    def __init__(self, name, args, outdir):
        self.name = name
        self.args = args
        self.outdir = outdir
        self.proc = None
        self.lines = None
        self.version = "?"
        self.spark_version = "?"
        self.peak_rss_kib = 0
        self.starts = 0
        self.start_error = None
        self.start_failures = 0
        self.answers = os.path.join(outdir, "answers", name)
        os.makedirs(self.answers, exist_ok=True)
        self.log = open(os.path.join(outdir, "logs", f"{name}.log"), "a", buffering=1)

    def classpath(self):
        cp = []
        if self.name == "bolide":
            cp.append(self.args.bolide_jar)
        elif self.name == "comet":
            cp.append(self.args.comet_jar)
        cp.append(self.args.bench_classes)
        with open(self.args.classpath) as f:
            cp.append(f.read().strip())
        return ":".join(cp)

    def command(self):
        # BENCH_JAVA_OPTS adds JVM options to every engine's JVM (a profiler, say:
        # -XX:StartFlightRecording=filename=/tmp/{engine}.jfr, with {engine} replaced by the engine's name).
        extra = os.environ.get("BENCH_JAVA_OPTS", "").replace("{engine}", self.name).split()
        cmd = ["java", f"-Xmx{self.args.heap}", *OPENS, *extra, "-cp", self.classpath(),
               "dev.bolide.bench.TpchBenchDriver", "--engine", self.name,
               "--data", self.args.data, "--queries", self.args.queries, "--answers", self.answers]
        if NATIVE_PREFIX[self.name]:
            cmd += ["--native-prefix", NATIVE_PREFIX[self.name]]
        if self.args.format == "iceberg":
            cmd += ["--format", "iceberg", "--warehouse", self.args.warehouse]
        for k, v in common_confs(self.args) + engine_confs(self.name):
            cmd += ["--conf", f"{k}={v}"]
        return cmd

    def start(self):
        self.starts += 1
        self.log.write(f"=== start #{self.starts}: {' '.join(shlex.quote(c) for c in self.command())}\n")
        self.proc = subprocess.Popen(self.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True, bufsize=1, cwd=ROOT)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, args=(self.proc, self.lines), daemon=True).start()
        line = self._next(self.args.start_timeout)
        if line is None or not line.startswith("@@READY"):
            self.stop(kill=True)
            raise RuntimeError(f"{self.name} did not start (see logs/{self.name}.log): {line}")
        kv = parse_kv(line)
        self.version, self.spark_version = kv.get("version", "?"), kv.get("spark", "?")

    def _pump(self, proc, q):
        for line in proc.stdout:
            if line.startswith("@@"):
                q.put(line.strip())
            else:
                self.log.write(line)
        q.put(None)

    def _next(self, timeout):
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return "@@TIMEOUT"

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def read_rss(self):
        if self.alive():
            try:
                with open(f"/proc/{self.proc.pid}/status") as f:
                    for l in f:
                        if l.startswith("VmHWM:"):
                            self.peak_rss_kib = max(self.peak_rss_kib, int(l.split()[1]))
            except OSError:
                pass

    def run(self, query, tag):
        """One run: a dict with seconds/rows/hash/fallbacks, or with error."""
        if not self.alive():
            if self.start_failures >= 2:
                return {"error": f"engine does not start: {self.start_error}"}
            try:
                self.start()
            except RuntimeError as e:
                self.start_failures += 1
                self.start_error = str(e)
                return {"error": str(e)}
        cpu0 = self.process_cpu()
        self.proc.stdin.write(f"run {query} {tag}\n")
        self.proc.stdin.flush()
        line = self._next(self.args.timeout)
        cpu = self.process_cpu() - cpu0
        if line is None or line == "@@TIMEOUT":
            why = "timeout" if line else "engine JVM died"
            self.read_rss()
            self.stop(kill=True)
            return {"error": f"{why} (see logs/{self.name}.log)"}
        kv = parse_kv(line)
        if line.startswith("@@ERROR"):
            return {"error": kv.get("message", line)}
        return {"seconds": float(kv["seconds"]), "rows": int(kv["rows"]), "hash": kv["hash"],
                "ordered": kv.get("ordered") == "true", "fallbacks": kv.get("fallbacks", ""),
                "operators": kv.get("operators", ""), "shuffle_bytes": int(kv.get("shuffleBytes", "0") or 0),
                "task_s": int(kv.get("taskMs", "0") or 0) / 1e3, "task_cpu_s": int(kv.get("taskCpuMs", "0") or 0) / 1e3,
                "mem_spilled": int(kv.get("memSpilled", "0") or 0), "disk_spilled": int(kv.get("diskSpilled", "0") or 0),
                "proc_cpu_s": cpu}

    def process_cpu(self):
        """CPU seconds (user + system, every thread) the engine's JVM has used so far. Around a run it
        is the one CPU figure that is comparable across engines and with a Go-only process: task run
        times are wall times (they grow when a busy machine deschedules the task thread) and
        task-thread CPU misses work on other threads (Comet's, the Go GC's, the JVM's own)."""
        try:
            with open(f"/proc/{self.proc.pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            return 0.0

    def stop(self, kill=False):
        if self.proc is None:
            return
        if not kill and self.alive():
            self.read_rss()
            try:
                self.proc.stdin.write("quit\n")
                self.proc.stdin.flush()
                self.proc.wait(timeout=60)
            except Exception:
                kill = True
        if kill and self.proc.poll() is None:
            self.proc.kill()  # only the JVM this script started
            self.proc.wait()
        self.proc = None


def parse_kv(line):
    """`@@X a=1 b=2 message=rest of line` -> dict (message takes the rest of the line)."""
    out = {}
    body = line.split(" ", 1)[1] if " " in line else ""
    m = re.search(r"\bmessage=(.*)$", body)
    if m:
        out["message"] = m.group(1)
        body = body[:m.start()]
    for tok in body.split():
        if "=" in tok:
            k, v = tok.split("=", 1)
            out[k] = v
    return out


def answer_lines(engine, query, tag):
    path = os.path.join(engine.answers, f"{query}.{tag}.txt")
    if not os.path.exists(path):
        path = os.path.join(engine.answers, f"{query}.warmup.txt")
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def field_equal(a, b, rel):
    if a == b:
        return True
    if a.startswith("~") and b.startswith("~"):
        try:
            x, y = float(a[1:]), float(b[1:])
        except ValueError:
            return False
        return abs(x - y) <= rel * max(abs(x), abs(y)) or abs(x - y) < 1e-300
    return False


def answers_equal(a, b, ordered, rel=1e-8):
    """Tolerant comparison of two canonical answers (used when the hashes differ)."""
    if len(a) != len(b):
        return False
    if not ordered:  # rounding can reorder sorted lines only when a double differs: sort without them
        key = lambda l: [f for f in l.split("|") if not f.startswith("~")]
        a, b = sorted(a, key=key), sorted(b, key=key)
    for la, lb in zip(a, b):
        fa, fb = la.split("|"), lb.split("|")
        if len(fa) != len(fb) or not all(field_equal(x, y, rel) for x, y in zip(fa, fb)):
            return False
    return True


def query_names(qdir, selected):
    if selected:
        return [q.strip() for q in selected.split(",") if q.strip()]
    names = [f[:-4] for f in os.listdir(qdir) if re.fullmatch(r"q\d+\.sql", f)]
    if names:
        return sorted(names, key=lambda n: int(n[1:]))
    return sorted(f[:-4] for f in os.listdir(qdir) if f.endswith(".sql"))  # e.g. bench/iceberg-queries


def machine_info():
    info = {"cores": str(os.cpu_count()), "os": platform.platform()}
    try:
        with open("/etc/os-release") as f:
            for l in f:
                if l.startswith("PRETTY_NAME="):
                    info["os"] = l.split("=", 1)[1].strip().strip('"') + f" (kernel {platform.release()})"
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as f:
            kib = int(next(l for l in f if l.startswith("MemTotal")).split()[1])
            info["memory"] = f"{kib / 1024 / 1024:.1f} GiB"
    except (OSError, StopIteration):
        info["memory"] = "?"
    try:
        with open("/proc/cpuinfo") as f:
            info["cpu"] = next(l for l in f if l.startswith("model name")).split(":", 1)[1].strip()
    except (OSError, StopIteration):
        info["cpu"] = "?"
    try:
        v = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
        info["jdk"] = " / ".join(v[:2])
    except OSError:
        info["jdk"] = "?"
    return info


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def fmt(x, nd=3):
    return "" if x is None else f"{x:.{nd}f}"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sf", default="1")
    p.add_argument("--engines", default="spark,bolide,comet")
    p.add_argument("--iter", type=int, default=3)
    p.add_argument("--queries-list", default="", help="comma-separated subset, e.g. q1,q6 (default: all)")
    p.add_argument("--data", required=True, help="TPC-H Parquet dir with one dir per table")
    p.add_argument("--queries", default=os.path.join(ROOT, "tpch", "queries"))
    p.add_argument("--classpath", required=True, help="file with Spark's classpath (bench/pom.xml)")
    p.add_argument("--bench-classes", default=os.path.join(ROOT, "bench", "target", "classes"))
    p.add_argument("--bolide-jar", default="")
    p.add_argument("--comet-jar", default="")
    p.add_argument("--comet-version", default="?")
    p.add_argument("--out", required=True)
    p.add_argument("--cores", type=int, default=2)
    p.add_argument("--heap", default="4g")
    p.add_argument("--offheap", default="4g")
    p.add_argument("--shuffle-partitions", type=int, default=8)
    p.add_argument("--timeout", type=float, default=1800, help="seconds per query run")
    p.add_argument("--start-timeout", type=float, default=300)
    p.add_argument("--format", default="parquet", choices=["parquet", "iceberg"],
                   help="iceberg: the tables' Iceberg copies (written once into --warehouse)")
    p.add_argument("--warehouse", default="", help="Iceberg warehouse of the copies (default: <data>-iceberg)")
    args = p.parse_args()
    args.data = os.path.abspath(args.data)
    args.queries = os.path.abspath(args.queries)
    args.warehouse = os.path.abspath(args.warehouse or args.data.rstrip("/") + "-iceberg")
    if args.format == "iceberg":
        prepare_iceberg(args)

    names = [e.strip() for e in args.engines.split(",") if e.strip()]
    bad = [e for e in names if e not in ENGINE_ORDER]
    if bad:
        sys.exit(f"unknown engine(s) {bad}; known: {ENGINE_ORDER}")
    if "bolide" in names and not os.path.exists(args.bolide_jar):
        sys.exit(f"Bolide plugin JAR not found: {args.bolide_jar!r}")
    if "comet" in names and not os.path.exists(args.comet_jar):
        sys.exit(f"Comet JAR not found: {args.comet_jar!r}")
    queries = query_names(args.queries, args.queries_list)
    os.makedirs(os.path.join(args.out, "logs"), exist_ok=True)
    # The engines' JVMs read their JAR for the whole run: snapshot it, so that a `make` elsewhere
    # rewriting dist/ meanwhile cannot break the run (ZipException: invalid LOC header).
    snapshot = tempfile.mkdtemp(prefix="bolide-bench-jars-")
    args.jar_sha = {}
    for attr in ("bolide_jar", "comet_jar"):
        src = getattr(args, attr)
        if src and os.path.exists(src):
            dst = os.path.join(snapshot, os.path.basename(src))
            shutil.copyfile(src, dst)
            with open(dst, "rb") as f:
                args.jar_sha[attr] = hashlib.sha256(f.read()).hexdigest()[:12]
            args.jar_name = getattr(args, "jar_name", {})
            args.jar_name[attr] = os.path.basename(src)
            setattr(args, attr, dst)
    started = datetime.datetime.now()
    print(f"bench-tpch: SF={args.sf}, engines={','.join(names)}, {args.iter} timed iterations after a warm-up, "
          f"{len(queries)} queries, data {args.data}, results in {args.out}", flush=True)

    engines = {n: Engine(n, args, args.out) for n in names}
    for e in engines.values():
        t0 = time.time()
        try:
            e.start()
            print(f"  {e.name}: JVM pid {e.proc.pid} ready in {time.time() - t0:.1f}s "
                  f"(Spark {e.spark_version}, {e.name} {e.version})", flush=True)
        except RuntimeError as err:
            e.start_failures += 1
            e.start_error = str(err)
            print(f"  {e.name}: FAILED TO START: {err}", flush=True)

    runs = {}  # (query, engine, tag) -> result dict
    try:
        for q in queries:
            for tag in ["warmup"] + [str(i) for i in range(1, args.iter + 1)]:
                for n in names:
                    runs[(q, n, tag)] = engines[n].run(q, tag)
                    engines[n].read_rss()
            judge(q, names, engines, runs, args.iter)
            line = []
            for n in names:
                med = median_of(q, n, runs, args.iter)
                r = runs[(q, n, "warmup")]
                if any("error" in runs[(q, n, t)] for t in ["warmup"] + [str(i) for i in range(1, args.iter + 1)]):
                    line.append(f"{n} ERROR")
                elif med is None:
                    line.append(f"{n} WRONG")
                else:
                    fb = f" fb={r['fallbacks']}" if r.get("fallbacks") != "" else ""
                    line.append(f"{n} {med:.3f}s{fb}")
            print(f"  {q:>4}: " + ", ".join(line), flush=True)
    finally:
        for e in engines.values():
            e.read_rss()
            e.stop()
        shutil.rmtree(snapshot, ignore_errors=True)

    write_csv(args, queries, names, runs)
    write_shuffle_csv(args, queries, names, runs)
    write_task_csv(args, queries, names, runs)
    md = write_summary(args, queries, names, engines, runs, started)
    write_chart(args, queries, names, runs)
    print(md)
    print(f"results in {args.out}")


def prepare_iceberg(args):
    """Writes the Iceberg copies of the tables once (vanilla Spark), before any engine starts."""
    if os.path.exists(os.path.join(args.warehouse, "_COMPLETE")):
        return
    print(f"bench-tpch: writing the Iceberg copies into {args.warehouse} (once) ...", flush=True)
    with open(args.classpath) as f:
        cp = ":".join([args.bench_classes, f.read().strip()])
    cmd = ["java", f"-Xmx{args.heap}", *OPENS, "-cp", cp, "dev.bolide.bench.TpchBenchDriver",
           "--prepare-iceberg", "--data", args.data, "--warehouse", args.warehouse]
    for k, v in common_confs(args):
        cmd += ["--conf", f"{k}={v}"]
    subprocess.run(cmd, check=True, cwd=ROOT, stdout=sys.stderr)


def judge(q, names, engines, runs, iters):
    """Sets 'correct' on each run of query q: True/False against Spark's warm-up answer, None if unknown."""
    ref = runs.get((q, "spark", "warmup"))
    ref_lines = None
    if ref and "error" not in ref:
        ref_lines = answer_lines(engines["spark"], q, "warmup")
    for n in names:
        for tag in ["warmup"] + [str(i) for i in range(1, iters + 1)]:
            r = runs[(q, n, tag)]
            if "error" in r:
                r["correct"] = False
            elif ref_lines is None:
                r["correct"] = None
            elif r["hash"] == ref["hash"]:
                r["correct"] = True
            else:
                r["correct"] = answers_equal(answer_lines(engines[n], q, tag), ref_lines, ref["ordered"])


def median_of(q, n, runs, iters):
    rs = [runs[(q, n, str(i))] for i in range(1, iters + 1)]
    if any("error" in r or r.get("correct") is False for r in rs):
        return None
    return statistics.median(r["seconds"] for r in rs)


def write_csv(args, queries, names, runs):
    with open(os.path.join(args.out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["query", "engine", "iteration", "seconds", "rows", "fallbacks", "correct"])
        for q in queries:
            for n in names:
                for i in range(1, args.iter + 1):
                    r = runs[(q, n, str(i))]
                    ok = r.get("correct")
                    secs = f"{r['seconds']:.6f}" if "seconds" in r and ok is not False else ""
                    w.writerow([q, n, i, secs, r.get("rows", ""),
                                r.get("fallbacks", "") if n != "spark" else "",
                                "" if ok is None else str(ok).lower()])


def write_task_csv(args, queries, names, runs):
    """Per run: the sum of the query's task run times and task-thread CPU (summary.md's task table)."""
    with open(os.path.join(args.out, "task-times.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["query", "engine", "iteration", "task_seconds", "task_cpu_seconds",
                    "memory_bytes_spilled", "disk_bytes_spilled", "process_cpu_seconds"])
        for q in queries:
            for n in names:
                for i in range(1, args.iter + 1):
                    r = runs[(q, n, str(i))]
                    if "task_s" in r:
                        w.writerow([q, n, i, f"{r['task_s']:.3f}", f"{r['task_cpu_s']:.3f}",
                                    r.get("mem_spilled", 0), r.get("disk_spilled", 0), f"{r.get('proc_cpu_s', 0):.3f}"])


def spill_section(args, queries, names, runs):
    """Bytes spilled per query and engine (Spark's task metrics: diskBytesSpilled is what the spill
    files took, memoryBytesSpilled the same data's size in memory), median over the timed
    iterations: what a small off-heap pool (--offheap, make bench OFFHEAP=) costs each engine."""
    def med(q, n, key):
        rs = [runs[(q, n, str(i))] for i in range(1, args.iter + 1)]
        vals = [r[key] for r in rs if key in r and "error" not in r]
        return statistics.median(vals) if vals else None
    out = ["## Spill", ""]
    spilled = {(q, n): (med(q, n, "disk_spilled"), med(q, n, "mem_spilled")) for q in queries for n in names}
    if not any(d or m for d, m in spilled.values()):
        return out + [f"Nothing spilled (off-heap pool {args.offheap}, heap {args.heap}).", ""]
    out += [f"Bytes spilled by each query's tasks (Spark's diskBytesSpilled / memoryBytesSpilled task metrics, "
            f"MB, median over the timed iterations), off-heap pool {args.offheap}, heap {args.heap}.", "",
            "| query | " + " | ".join(f"{n} disk MB | {n} memory MB" for n in names) + " |",
            "|---" * (1 + 2 * len(names)) + "|"]
    totals = {n: [0, 0] for n in names}
    for q in queries:
        cells = []
        for n in names:
            d, m = spilled[(q, n)]
            totals[n][0] += d or 0
            totals[n][1] += m or 0
            cells += [fmt(d / 1e6) if d is not None else "", fmt(m / 1e6) if m is not None else ""]
        out.append(f"| {q} | " + " | ".join(cells) + " |")
    out.append("| **total** | " + " | ".join(f"{fmt(totals[n][0] / 1e6)} | {fmt(totals[n][1] / 1e6)}" for n in names) + " |")
    return out + [""]


def write_shuffle_csv(args, queries, names, runs):
    """Shuffle bytes written per query and engine in the warm-up run (what summary.md shows in MB),
    exact: on small scale factors the MB round to 0.000 and hide which engine writes more."""
    with open(os.path.join(args.out, "shuffle-bytes.csv"), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["query"] + names)
        for q in queries:
            w.writerow([q] + [runs[(q, n, "warmup")].get("shuffle_bytes", "") for n in names])


def task_time_section(args, queries, names, runs):
    """Executor busy time per query: the sum of the run times of the query's tasks (median over the
    timed iterations), i.e. the wall clock without the driver's fixed cost of planning and
    scheduling, which dominates short queries; and the task threads' CPU (an engine's work on
    threads of its own, such as background readers, is not in it)."""
    def med(q, n, key):
        rs = [runs[(q, n, str(i))] for i in range(1, args.iter + 1)]
        if any("error" in r or r.get("correct") is False or key not in r for r in rs):
            return None
        return statistics.median(r[key] for r in rs)
    cols = [f"{n} task s" for n in names] + [f"{n} task CPU s" for n in names]
    if "bolide" in names and "spark" in names:
        cols.append("spark/bolide (task s)")
    out = ["## Task time (executors' busy time, without planning and scheduling)", "",
           "Sum of the run times (executorRunTime) of each query's tasks, and of their task threads' CPU "
           "(executorCpuTime), median over the timed iterations. Ratios > 1 mean Bolide is faster.", "",
           "| query | " + " | ".join(cols) + " |", "|---" * (1 + len(cols)) + "|"]
    for q in queries:
        row = [fmt(med(q, n, "task_s")) for n in names] + [fmt(med(q, n, "task_cpu_s")) for n in names]
        if "bolide" in names and "spark" in names:
            s, b = med(q, "spark", "task_s"), med(q, "bolide", "task_s")
            row.append(fmt(s / b, 2) if s and b else "")
        out.append(f"| {q} | " + " | ".join(row) + " |")
    return out + [""]


def write_summary(args, queries, names, engines, runs, started):
    mi = machine_info()
    med = {(q, n): median_of(q, n, runs, args.iter) for q in queries for n in names}
    problems = []
    for q in queries:
        for n in names:
            for tag in ["warmup"] + [str(i) for i in range(1, args.iter + 1)]:
                r = runs[(q, n, tag)]
                if "error" in r:
                    problems.append(f"- {q} on {n} ({tag}): ERROR {r['error']}")
                elif r.get("correct") is False:
                    problems.append(f"- {q} on {n} ({tag}): WRONG ANSWER ({r['rows']} rows, hash {r['hash']}; "
                                    f"Spark: {runs[(q, 'spark', 'warmup')].get('rows')} rows, hash "
                                    f"{runs[(q, 'spark', 'warmup')].get('hash')}; see answers/)")

    def cell(q, n):
        m = med[(q, n)]
        if m is not None:
            return fmt(m)
        r = runs[(q, n, "warmup")]
        return "error" if any("error" in runs[(q, n, str(i))] for i in range(1, args.iter + 1)) or "error" in r \
            else "wrong"

    def ratio(q, a, b):
        if a in names and b in names and med[(q, a)] and med[(q, b)]:
            return med[(q, a)] / med[(q, b)]
        return None

    has_b = "bolide" in names
    cols = [f"{n} (s)" for n in names]
    if has_b and "spark" in names:
        cols.append("spark/bolide")
    if has_b and "comet" in names:
        cols.append("comet/bolide")
    fb_cols = [f"{n} fallbacks" for n in names if n != "spark"]
    sb_cols = [f"{n} shuffle MB" for n in names]
    title = f"# TPC-H benchmark: SF {args.sf}"
    if args.format == "iceberg":
        title += f", Iceberg tables ({os.path.basename(args.queries)} queries)"
    lines = [title, "",
             f"Run {started:%Y-%m-%d %H:%M:%S}: {len(queries)} queries, one warm-up run then {args.iter} timed "
             f"iterations per query and engine (median shown, seconds, wall clock of planning + execution + "
             f"collect), engines alternating query by query and iteration by iteration, one long-lived JVM "
             f"per engine. Answers checked against vanilla Spark's; `wrong` = different answer (not timed), "
             f"`error` = failed. Ratios > 1 mean Bolide is faster.", "",
             "| query | " + " | ".join(cols + fb_cols + sb_cols) + " |",
             "|---" * (1 + len(cols) + len(fb_cols) + len(sb_cols)) + "|"]
    for q in queries:
        row = [cell(q, n) for n in names]
        if has_b and "spark" in names:
            row.append(fmt(ratio(q, "spark", "bolide"), 2))
        if has_b and "comet" in names:
            row.append(fmt(ratio(q, "comet", "bolide"), 2))
        for n in names:
            if n != "spark":
                row.append(str(runs[(q, n, "warmup")].get("fallbacks", "")))
        for n in names:
            b = runs[(q, n, "warmup")].get("shuffle_bytes")
            row.append(f"{b / 1e6:.3f}" if b is not None else "")
        lines.append(f"| {q} | " + " | ".join(row) + " |")
    common = [q for q in queries if all(med[(q, n)] is not None for n in names)]
    tot = {n: sum(med[(q, n)] for q in common) for n in names}
    gm = {n: geomean([med[(q, n)] for q in common]) for n in names}
    trow, grow = [fmt(tot[n]) for n in names], [fmt(gm[n]) for n in names]
    if has_b and "spark" in names:
        trow.append(fmt(tot["spark"] / tot["bolide"], 2) if tot["bolide"] else "")
        grow.append(fmt(gm["spark"] / gm["bolide"], 2) if gm["bolide"] and gm["spark"] else "")
    if has_b and "comet" in names:
        trow.append(fmt(tot["comet"] / tot["bolide"], 2) if tot["bolide"] else "")
        grow.append(fmt(gm["comet"] / gm["bolide"], 2) if gm["bolide"] and gm["comet"] else "")
    fbt = [str(sum(int(runs[(q, n, "warmup")].get("fallbacks") or 0) for q in queries)) for n in names if n != "spark"]
    sbt = [f"{sum(runs[(q, n, 'warmup')].get('shuffle_bytes') or 0 for q in queries) / 1e6:.3f}" for n in names]
    lines.append(f"| **total** ({len(common)} queries correct on all) | " + " | ".join(trow + fbt + sbt) + " |")
    lines.append(f"| **geomean** | " + " | ".join(grow + [""] * (len(fbt) + len(sbt))) + " |")
    lines.append("")
    own = []
    for n in names:
        ok = [q for q in queries if med[(q, n)] is not None]
        own.append(f"{n}: {sum(med[(q, n)] for q in ok):.3f} s over {len(ok)} correct queries")
    lines += ["Totals per engine over its own correct queries: " + "; ".join(own) + ".", ""]

    lines += task_time_section(args, queries, names, runs)
    lines += spill_section(args, queries, names, runs)

    lines += ["## Peak RSS (VmHWM of each engine's JVM over the whole run)", "",
              "| engine | peak RSS (MiB) | JVM starts |", "|---|---|---|"]
    for n in names:
        lines.append(f"| {n} | {engines[n].peak_rss_kib / 1024:.0f} | {engines[n].starts} |")
    lines.append("")

    lines += ["## Problems", ""] + (problems or ["None: every engine answered every query like vanilla Spark."]) + [""]

    ver = {n: engines[n].version for n in names}
    spark_v = next((engines[n].spark_version for n in names if engines[n].spark_version != "?"), "?")
    lines += ["## Setup", "",
              f"- Machine: {mi['cores']} cores ({mi['cpu']}), {mi['memory']} memory, {mi['os']}",
              f"- JDK: {mi['jdk']}",
              f"- Spark {spark_v}" + (f"; Bolide {ver['bolide']} ({args.jar_name['bolide_jar']}, sha256 {args.jar_sha['bolide_jar']}…)"
                                  if has_b else "")
              + (f"; Comet {ver['comet']} ({args.jar_name['comet_jar']}, sha256 {args.jar_sha['comet_jar']}…)"
                 if "comet" in names else ""),
              (f"- Data: TPC-H SF {args.sf}, Parquet, {args.data}; queries {args.queries}" if args.format == "parquet"
               else f"- Data: TPC-H SF {args.sf}, Iceberg copies of {args.data} in {args.warehouse} (format v2; "
                    "lineitem_v2del: v2 with 5% of the rows deleted by positional deletes, lineitem_v3dv: v3, the "
                    "same rows deleted by deletion vectors; lineitem_parquet: the Parquet files); queries "
                    f"{args.queries}"),
              f"- Memory budget (same for every engine, vanilla Spark included): JVM heap -Xmx{args.heap}, "
              f"Spark off-heap pool {args.offheap} (spark.memory.offHeap.enabled=true), local[{args.cores}]",
              "- Settings common to all engines: " + ", ".join(f"`{k}={v}`" for k, v in common_confs(args))]
    for n in names:
        c = engine_confs(n)
        lines.append(f"- {n}: " + (", ".join(f"`{k}={v}`" for k, v in c) if c else "no extra settings"))
    lines += ["- Fallbacks: operators of the executed plan (final AQE plan, stages and subqueries) that are not "
              "the engine's own (class name not Bolide*/Comet*), transitions and wrappers left out.", ""]
    md = "\n".join(lines)
    with open(os.path.join(args.out, "summary.md"), "w") as f:
        f.write(md)
    return md


def write_chart(args, queries, names, runs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no chart.png", file=sys.stderr)
        return
    med = {(q, n): median_of(q, n, runs, args.iter) for q in queries for n in names}
    common = [q for q in queries if all(med[(q, n)] is not None for n in names)]
    colors = {"spark": "#e25a1c", "bolide": "#1f6fb2", "comet": "#6a9f3a"}
    fig, ax = plt.subplots(figsize=(max(8, len(queries) * 0.6), 5))
    width = 0.8 / len(names)
    vals = [v for v in med.values() if v]
    for i, n in enumerate(names):
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(queries))]
        ys = [med[(q, n)] or 0 for q in queries]
        ax.bar(xs, ys, width, label=n, color=colors.get(n))
        for x, q in zip(xs, queries):
            if med[(q, n)] is None:  # wrong answer or error: marked, not timed
                ax.text(x, min(vals) if vals else 0.01, "x", ha="center", va="bottom", color=colors.get(n),
                        fontsize=8, fontweight="bold")
    if vals and max(vals) / max(min(vals), 1e-9) > 30:
        ax.set_yscale("log")
    ax.set_xticks(range(len(queries)))
    ax.set_xticklabels(queries)
    ax.set_ylabel(f"median seconds ({args.iter} runs)")
    totals = ", ".join(f"{n} {sum(med[(q, n)] for q in common):.2f}s" for n in names)
    ax.set_title(f"TPC-H SF {args.sf}, local[{args.cores}]: totals over {len(common)} queries: {totals}"
                 + ("  (x = wrong/error)" if len(common) < len(queries) else ""), fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, "chart.png"), dpi=120)


if __name__ == "__main__":
    main()
