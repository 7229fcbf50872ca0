package sort

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/memory"
)

// Spilling, as an external merge sort. At a safe point while the input is read (after a batch is
// added), when Spark refused a reservation or asked the task for memory (exec.RelieveMemory), the
// sort sorts the rows it holds, writes them in order to a spill file (a run), frees them and reads
// on. At the end of the input the rows left become the last run, and the output is the k-way merge
// of the runs (merge.go); more than mergeFanIn runs are first merged, oldest first, into longer
// runs. Runs are Arrow IPC files of the input's columns: the keys are evaluated again as a run is
// read back.
//
// A sort that holds rows and is asked to spill while it sorts or emits them in memory does not:
// those rows are already leaving.

// requestSpillMin is the least a spill requested by Spark (not forced by a refusal) writes:
// Spark may ask at every batch, and a run per batch would make the merge the sort's cost.
const requestSpillMin = 1 << 20

// spillBatchBytes bounds the batches of a run (by the rows' average size): the merge holds one
// of each run, so with the fan-in's runs it holds half a reservation chunk (a 64th of the pool).
func spillBatchBytes(a *memory.TaskAllocator) int64 {
	if a == nil {
		return 1 << 20
	}
	return min(1<<20, max(16<<10, a.Chunk()/(2*mergeFanIn)))
}

type sortSpill struct {
	files  *memory.SpillFiles
	own    bool // files is the operator's own (no task registry): removed at close
	schema *arrow.Schema
	runs   []string // finished runs, oldest first, not yet opened by a merge
}

// SpillMetrics reports the bytes the operator spilled so far: the Arrow bytes of the rows written
// (Spark's memory bytes spilled, the operator's "spill size") and the bytes on disk.
func (s *Sort) SpillMetrics() (memBytes, diskBytes int64) { return s.spilledMem, s.spilledDisk }

// SpillNow writes the rows held to a run, at a safe point while the input is read.
func (s *Sort) SpillNow() (bool, error) {
	st := s.st
	if st == nil || !st.consuming || st.adding || st.buf.rows == 0 {
		return false, nil
	}
	if a := st.ctx.Alloc; a != nil && !a.OutOfMemory() && st.buf.dataBytes < requestSpillMin {
		return false, nil
	}
	return true, s.spillRun()
}

func (s *Sort) spillSetup() *sortSpill {
	st := s.st
	if st.spill == nil {
		sp := &sortSpill{files: st.ctx.Spill}
		if sp.files == nil {
			sp.files, sp.own = memory.NewSpillFiles(nil), true
		}
		st.spill = sp
	}
	return st.spill
}

// spillRun sorts the rows held, writes them as a run and frees them.
func (s *Sort) spillRun() error {
	st := s.st
	buf := st.buf
	sp := s.spillSetup()
	if sp.schema == nil {
		fields := make([]arrow.Field, buf.ncols)
		for i, c := range buf.batches[0].Cols {
			fields[i] = arrow.Field{Name: "c" + strconv.Itoa(i), Type: c.DataType(), Nullable: true}
		}
		sp.schema = arrow.NewSchema(fields, nil)
	}
	ents := buf.sortRows()
	per := st.ctx.BatchSize()
	if rowBytes := buf.dataBytes / int64(buf.rows); rowBytes > 0 {
		per = int(min(int64(per), max(64, spillBatchBytes(st.ctx.Alloc)/rowBytes)))
	}
	w, err := sp.files.NewSpillWriter("sort", sp.schema, st.ctx.Alloc)
	if err != nil {
		return err
	}
	for lo := 0; lo < len(ents); lo += per {
		b, err := buf.gather(ents[lo:min(len(ents), lo+per)])
		if err == nil {
			rec := b.Record(sp.schema)
			err = w.Write(rec)
			rec.Release()
			b.Release()
		}
		if err != nil {
			w.Abort()
			return err
		}
	}
	path, disk, err := w.Finish()
	s.spilledMem += w.MemBytes
	s.spilledDisk += disk
	if err != nil {
		_ = sp.files.Remove(path)
		return err
	}
	sp.runs = append(sp.runs, path)
	s.runsSpilled++
	buf.releaseRows()
	buf.ents, buf.tmp = nil, nil
	buf.note(0)
	return nil
}

// startMerge ends the input: the rows left become the last run, runs beyond the fan-in are
// merged into longer ones, and the final merge opens.
func (s *Sort) startMerge() error {
	st := s.st
	sp := st.spill
	if st.buf.rows > 0 {
		if err := s.spillRun(); err != nil {
			return err
		}
	}
	st.buf.release()
	for len(sp.runs) > s.fanIn {
		path, err := s.mergeRuns(sp.runs[:s.fanIn])
		if err != nil {
			return err
		}
		sp.runs = append([]string{path}, sp.runs[s.fanIn:]...)
	}
	m, err := newMerger(st.ctx, sp.files, s.orders, st.buf.ncols, sp.runs)
	if err != nil {
		return err // Close removes the runs
	}
	sp.runs = nil // the merge removes each once read, Close what is left
	st.merge = m
	return nil
}

// mergeRuns merges runs (consecutive, oldest first) into one new run, which takes their place.
func (s *Sort) mergeRuns(paths []string) (string, error) {
	st := s.st
	sp := st.spill
	m, err := newMerger(st.ctx, sp.files, s.orders, st.buf.ncols, paths)
	if err != nil {
		return "", err
	}
	defer m.close()
	w, err := sp.files.NewSpillWriter("sort", sp.schema, st.ctx.Alloc)
	if err != nil {
		return "", err
	}
	for {
		b, err := m.next()
		if err == nil && b != nil {
			rec := b.Record(sp.schema)
			err = w.Write(rec)
			rec.Release()
			b.Release()
			if err == nil {
				continue
			}
		}
		if err != nil {
			w.Abort()
			return "", err
		}
		break
	}
	path, disk, err := w.Finish()
	s.spilledDisk += disk
	if err != nil {
		_ = sp.files.Remove(path)
		return "", err
	}
	return path, nil
}

// removeAll removes the runs no merge opened; with the operator's own registry, everything.
func (sp *sortSpill) removeAll() {
	for _, p := range sp.runs {
		_ = sp.files.Remove(p)
	}
	sp.runs = nil
	if sp.own {
		_ = sp.files.RemoveAll()
	}
}
