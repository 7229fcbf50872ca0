package shuffle

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/memory"
)

// Spilling. The writer keeps every partition's encoded blocks until the end of its input, so
// that the data file is written in partition order in one pass. When Spark refuses the task a
// reservation, the task context's RelieveMemory (at the writer's own batch boundary, or at a
// native child's) calls SpillNow: the blocks held are appended to the task's one shuffle spill
// file as a run (partition 0's frames, then partition 1's, ...), recording where each
// partition's segment of the run begins, and freed. The frames go to disk as they are (already
// compressed and checksummed: nothing is decoded or encoded again), so the data file is, per
// partition in order, that partition's segment of every run in spill order, then its blocks
// still in memory: the frames the writer produced, in the order it produced them, whether or
// not it spilled. A partition's bytes are the same frames either way, so readers (Go and the
// JVM's stream cutting, which read frames by their length prefix alone) see no difference.
//
// When the encoded blocks are the smaller part of what the writer holds, the pending rows are
// encoded first (into blocks of fewer than BlockRows rows) and spilled with them: otherwise a
// spill under a tiny grant would free too little to matter. A spill Spark requests for another
// consumer of the task, with no refusal of the writer's own, writes the blocks only, and only
// when they take a reservation chunk or more.

// spillBufSize is the write buffer of the spill file and the copy buffer of the final pass.
const spillBufSize = 256 << 10

// spillRuns is the writer's spill file and the runs written to it.
type spillRuns struct {
	files *memory.SpillFiles

	f    *os.File
	bw   *bufio.Writer
	np   int
	size int64 // bytes written to f
	// starts holds np+1 offsets per run: run r's segment of partition p is
	// [starts[r*(np+1)+p], starts[r*(np+1)+p+1]).
	starts []int64
	runs   int
	// memBytes are the bytes of memory the spills freed (encoded blocks and pending rows),
	// Spark's "memory bytes spilled"; diskBytes what they wrote, its "disk bytes spilled".
	memBytes, diskBytes int64
}

var _ exec.SpillOnRequest = (*writer)(nil)

// SpillNow implements exec.SpillOnRequest. It is called at a safe point: between two batches of
// the writer's input (never while add, finish or writeFile run, see writing).
func (w *writer) SpillNow() (bool, error) {
	if w.writing || (w.encoded == 0 && w.pending == 0) {
		return false, nil
	}
	t0 := time.Now()
	before := w.pending + w.encoded
	if !w.ctx.Alloc.OutOfMemory() {
		// Spark asked for memory on behalf of another consumer (exec.TaskContext.RequestSpill):
		// advice, which may come at every batch. A run is worth it only if it frees a
		// reservation chunk; pending rows stay (encoding them early would make small blocks).
		if w.encoded < w.ctx.Alloc.Chunk() {
			return false, nil
		}
		return true, w.spillBlocks(t0, before)
	}
	if w.encoded < w.pending {
		for pi := range w.parts {
			if err := w.encode(pi, true); err != nil {
				return false, fmt.Errorf("shuffle spill: %w", err)
			}
			w.reset(pi, true) // an empty partition's capacity too
		}
	}
	if w.encoded == 0 {
		w.accountOnly()
		return before > w.pending, nil
	}
	return true, w.spillBlocks(t0, before)
}

// spillBlocks writes every encoded block held to a new run and frees them; before is what the
// writer held when the spill began (for the memory bytes spilled).
func (w *writer) spillBlocks(t0 time.Time, before int64) error {
	s, err := w.spillFile()
	if err != nil {
		return err
	}
	start := s.size
	for pi := range w.parts {
		part := &w.parts[pi]
		s.starts = append(s.starts, s.size)
		for _, blk := range part.blocks {
			n, err := s.bw.Write(blk)
			s.size += int64(n)
			if err != nil {
				return fmt.Errorf("write shuffle spill file %s: %w", s.f.Name(), err)
			}
			w.encoded -= int64(len(blk))
		}
		part.blocks = nil
	}
	s.starts = append(s.starts, s.size)
	if err := s.bw.Flush(); err != nil {
		return fmt.Errorf("write shuffle spill file %s: %w", s.f.Name(), err)
	}
	s.runs++
	s.memBytes += before - (w.pending + w.encoded)
	s.diskBytes += s.size - start
	w.nanos += time.Since(t0).Nanoseconds()
	w.accountOnly()
	return nil
}

// spillFile returns the writer's spill file, creating it at the first spill.
func (w *writer) spillFile() (*spillRuns, error) {
	if w.spill != nil {
		return w.spill, nil
	}
	s := &spillRuns{files: w.ctx.Spill, np: len(w.parts)}
	if s.files == nil {
		s.files = memory.NewSpillFiles(nil)
	}
	f, err := s.files.CreateRaw("shuffle")
	if err != nil {
		return nil, fmt.Errorf("shuffle spill: %w", err)
	}
	s.f = f
	s.bw = bufio.NewWriterSize(f, spillBufSize)
	w.spill = s
	return s, nil
}

// copyPartition copies partition pi's segment of every run, in spill order, to out; it returns
// the bytes copied. buf is the copy buffer.
func (s *spillRuns) copyPartition(pi int, out io.Writer, buf []byte) (int64, error) {
	var copied int64
	for r := 0; r < s.runs; r++ {
		lo, hi := s.starts[r*(s.np+1)+pi], s.starts[r*(s.np+1)+pi+1]
		for lo < hi {
			n, err := s.f.ReadAt(buf[:min(int64(len(buf)), hi-lo)], lo)
			if n > 0 {
				if _, werr := out.Write(buf[:n]); werr != nil {
					return copied, werr
				}
				lo += int64(n)
				copied += int64(n)
			}
			if err != nil && lo < hi {
				return copied, fmt.Errorf("read shuffle spill file %s at %d: %w", s.f.Name(), lo, err)
			}
		}
	}
	return copied, nil
}

// memSize is the Go heap the spill bookkeeping holds.
func (s *spillRuns) memSize() int64 {
	if s == nil {
		return 0
	}
	return int64(cap(s.starts))*8 + spillBufSize
}

// remove closes and deletes the spill file (the task's registry would delete it at task close
// anyway; the writer does not keep it that long).
func (s *spillRuns) remove() {
	if s == nil || s.f == nil {
		return
	}
	_ = s.f.Close()
	if err := s.files.Remove(s.f.Name()); err != nil {
		// The task's registry no longer knows the file: say so rather than fail a complete write.
		fmt.Fprintf(os.Stderr, "WARN Bolide: shuffle write: %v\n", err)
	}
	s.f, s.bw = nil, nil
}
