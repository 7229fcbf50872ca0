// Command replay runs captured native task requests in Go alone, with no JVM: the Go-only column
// of `make bench-scan` (scripts/bench-scan.py). The requests are those a Spark run with
// BOLIDE_DUMP_TASKS=<dir> wrote (native/jni/dump.go): blocks that start at their scans. Each run
// builds every task's operators from its request, drains them (the output batches are released,
// as the shuffle writer or the export to Spark would take them) and closes them; the tasks of one
// run go one after another, on one thread when GOMAXPROCS=1.
//
// It prints one JSON line: the process CPU seconds (user + system, every thread, the GC's too) and
// the wall seconds of each run, and the rows the tasks produced.
//
//	replay [-runs N] [-warmup N] [-cpuprofile file] [-java 17] task.json...
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/expr"
	"github.com/bolide-dev/bolide/native/memory"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/translate"
)

// printRows: -print.
var printRows bool

func main() {
	runs := flag.Int("runs", 5, "timed runs over all the tasks")
	warmup := flag.Int("warmup", 1, "untimed runs first (the page cache, the Go heap)")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	memProfile := flag.String("memprofile", "", "write a profile of the timed runs' Go heap allocations to this file")
	flag.BoolVar(&printRows, "print", false, "print every output batch's columns to stderr (compare two builds' answers)")
	javaVersion := flag.Int("java", 17, "feature version of the JVM the tasks were captured on (casts that print doubles follow its Double.toString)")
	flag.Parse()
	expr.SetJavaVersion(*javaVersion)
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: replay [-runs N] [-warmup N] [-cpuprofile file] task.json...")
		os.Exit(2)
	}
	reqs, err := load(flag.Args())
	if err != nil {
		fail(err)
	}
	spillDir, err := os.MkdirTemp("", "bolide-replay-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(spillDir)
	for i := 0; i < *warmup; i++ {
		if _, err := runAll(reqs, spillDir); err != nil {
			fail(err)
		}
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			fail(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fail(err)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	if *memProfile != "" {
		runtime.MemProfileRate = 4096
	}
	// GCs and Go-heap bytes allocated per run: inside Spark every GC cycle also stops the other
	// task threads of the executor, so allocations cost more there than here.
	out := struct {
		Tasks   int       `json:"tasks"`
		Rows    int64     `json:"rows"`
		CPU     []float64 `json:"cpu_s"`
		Wall    []float64 `json:"wall_s"`
		GCs     []uint32  `json:"gcs"`
		AllocMB []float64 `json:"alloc_mb"`
		Threads string    `json:"gomaxprocs"`
	}{Tasks: len(reqs), Threads: os.Getenv("GOMAXPROCS")}
	var ms runtime.MemStats
	for i := 0; i < *runs; i++ {
		runtime.ReadMemStats(&ms)
		gc0, alloc0 := ms.NumGC, ms.TotalAlloc
		c0, t0 := cpuSeconds(), time.Now()
		rows, err := runAll(reqs, spillDir)
		if err != nil {
			fail(err)
		}
		out.CPU = append(out.CPU, cpuSeconds()-c0)
		out.Wall = append(out.Wall, time.Since(t0).Seconds())
		out.Rows = rows
		runtime.ReadMemStats(&ms)
		out.GCs = append(out.GCs, ms.NumGC-gc0)
		out.AllocMB = append(out.AllocMB, float64(ms.TotalAlloc-alloc0)/(1<<20))
	}
	if *memProfile != "" {
		f, err := os.Create(*memProfile)
		if err != nil {
			fail(err)
		}
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fail(err)
		}
		f.Close()
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

type request struct {
	path string
	req  plan.TaskRequest
}

func load(paths []string) ([]request, error) {
	var out []request
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r plan.TaskRequest
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decode task request %s: %w", p, err)
		}
		out = append(out, request{p, r})
	}
	return out, nil
}

// runAll runs every task once, in order, and returns the rows they produced.
func runAll(reqs []request, spillDir string) (int64, error) {
	var rows int64
	for i := range reqs {
		n, err := runTask(&reqs[i], spillDir)
		if err != nil {
			return 0, fmt.Errorf("task %s: %w", reqs[i].path, err)
		}
		rows += n
	}
	return rows, nil
}

// runTask runs one task as native/jni's task does, minus the JVM: the same context (no memory
// reserver: the pool is unlimited here), the batch-boundary safe point, release at the end.
func runTask(r *request, spillDir string) (rows int64, err error) {
	tr := &r.req
	root, err := translate.Build(tr.Plan, &tr.Conf)
	if err != nil {
		return 0, err
	}
	ctx := &exec.TaskContext{
		Alloc: memory.NewTaskAllocatorFor(nil, tr.Memory.Pool), Conf: &tr.Conf,
		Spill: memory.NewSpillFiles([]string{spillDir}), Files: tr.Files, IcebergTasks: tr.IcebergTasks,
		PartitionIndex: tr.PartitionIndex, Meter: exec.NewMeter(),
	}
	defer func() {
		root.Close()
		if e := ctx.Spill.RemoveAll(); e != nil && err == nil {
			err = e
		}
		ctx.Alloc.ReleaseAll()
	}()
	if err := root.Open(ctx); err != nil {
		return 0, err
	}
	for {
		b, err := root.Next()
		if err == nil {
			err = ctx.RelieveMemory()
		}
		if err == nil {
			err = ctx.Alloc.Err()
		}
		if err != nil {
			if b != nil {
				b.Release()
			}
			return 0, err
		}
		if b == nil {
			return rows, nil
		}
		rows += int64(b.NumRows)
		if printRows {
			for i, c := range b.Cols {
				fmt.Fprintf(os.Stderr, "%s col %d: %v\n", r.path, i, c)
			}
		}
		b.Release()
		ctx.Alloc.Settle()
	}
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "replay:", err)
	os.Exit(1)
}
