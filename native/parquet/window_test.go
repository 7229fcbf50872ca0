package parquet

import (
	"bytes"
	"math"
	"os"
	"sort"
	"sync"
	"testing"

	pq "github.com/parquet-go/parquet-go"
)

// spanReaderAt records the byte ranges read.
type spanReaderAt struct {
	r     *bytes.Reader
	mu    sync.Mutex
	spans [][2]int64
}

func (s *spanReaderAt) ReadAt(p []byte, off int64) (int, error) {
	s.mu.Lock()
	s.spans = append(s.spans, [2]int64{off, off + int64(len(p))})
	s.mu.Unlock()
	return s.r.ReadAt(p, off)
}

// The own page reader reads each byte of a chunk once, whatever its window: a page running past
// a window's end keeps what the window had of it, and with the default window a chunk is one read.
// Every window gives the same rows as parquet-go's own reader.
func TestPageWindows(t *testing.T) {
	cols := allTypes(true, false)
	path := writeFile(t, cols, 5000, pq.MaxRowsPerRowGroup(2000), pq.PageBufferSize(700), pq.Compression(&pq.Snappy))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec := &ScanSpec{Columns: fields(cols), BatchSize: 333}
	r0, err := Open(path, 0, math.MaxInt64, spec, checkedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	r0.noOwnPages = true
	want, _ := readRest(t, r0, spec)
	for _, win := range []int64{0, 1, 100, 1000, 5000} {
		src := &spanReaderAt{r: bytes.NewReader(data)}
		r, err := OpenReaderAt("t.parquet", src, int64(len(data)), 0, int64(len(data)), spec, checkedAlloc(t))
		if err != nil {
			t.Fatal(err)
		}
		r.window = win
		src.mu.Lock()
		src.spans = nil // the footer's reads
		src.mu.Unlock()
		got, st := readRest(t, r, spec)
		if st.ChunksOwnPages == 0 {
			t.Fatalf("window %d: no chunk read by the own page reader", win)
		}
		if len(got) != len(want) {
			t.Fatalf("window %d: %d rows, want %d", win, len(got), len(want))
		}
		for i := range want {
			for j := range want[i] {
				if !equalCell(got[i][j], want[i][j]) {
					t.Fatalf("window %d: row %d column %d: %v, want %v", win, i, j, got[i][j], want[i][j])
				}
			}
		}
		// Own chunks' bytes: no range read twice. (parquet-go reads BOOLEAN chunks, rleBools
		// reads them whole once.)
		spans := src.spans
		sort.Slice(spans, func(a, b int) bool { return spans[a][0] < spans[b][0] })
		for k := 1; k < len(spans); k++ {
			if spans[k][0] < spans[k-1][1] && !(spans[k] == spans[k-1]) {
				t.Errorf("window %d: bytes [%d, %d) and [%d, %d) overlap", win, spans[k-1][0], spans[k-1][1], spans[k][0], spans[k][1])
			}
		}
		if win == 0 && len(spans) > st.ChunksOwnPages+st.ChunksParquetGo*4 {
			t.Errorf("default window: %d reads for %d own chunks", len(spans), st.ChunksOwnPages)
		}
	}
}
