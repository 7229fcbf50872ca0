package memory

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time: on a shared machine it is steadier than the
// wall-clock ns/op, which counts the time the benchmark waits for a core.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAllocateFree measures the allocator's hot paths. Run it with BOLIDE_MEMCHECK=0 for
// production numbers (checking is on by default in tests); it uses only the exported API so that it
// also runs against older versions of the allocator for comparison.
func BenchmarkAllocateFree(b *testing.B) {
	for _, bc := range []struct {
		name string
		size int
	}{
		{"pooled/4KiB", 4 << 10},
		{"pooled/128KiB", 100 << 10}, // a batch-sized buffer, as in scans
		{"unpooled/64B", 64},
		{"unpooled/16MiB", 16 << 20},
	} {
		b.Run(bc.name, func(b *testing.B) {
			a := NewTaskAllocator(nil)
			defer a.ReleaseAll()
			start := cpuTime()
			for b.Loop() {
				a.Free(a.Allocate(bc.size))
			}
			reportCPU(b, start)
		})
	}
	// mix: the buffers of 8192-row batches (validity bitmaps, fixed-width values, string offsets and
	// bytes grown by a builder), four batches alive at once as in a pipeline of operators.
	b.Run("mix", func(b *testing.B) {
		a := NewTaskAllocator(nil)
		defer a.ReleaseAll()
		const rows, window = 8192, 4
		var batches [window][][]byte
		i := 0
		start := cpuTime()
		for b.Loop() {
			k := i % window
			for _, buf := range batches[k] {
				a.Free(buf)
			}
			bs := batches[k][:0]
			bs = append(bs, a.Allocate(rows/8), a.Allocate(rows*8), a.Allocate(rows/8), a.Allocate(rows*4+4))
			data := a.Allocate(4 << 10)
			for n := 8 << 10; n <= 64<<10+i%3*(32<<10); n *= 2 {
				data = a.Reallocate(n, data)
			}
			bs = append(bs, data, a.Allocate(10+i%50), a.Allocate(rows*16))
			batches[k] = bs
			i++
		}
		reportCPU(b, start)
		for _, bs := range batches {
			for _, buf := range bs {
				a.Free(buf)
			}
		}
	})
}
