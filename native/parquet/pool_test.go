package parquet

import (
	"math"
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/columnar"
)

// shifted is cols with every generator moved k rows on, so that a second file holds other values.
func shifted(cols []tcol, k int) []tcol {
	out := make([]tcol, len(cols))
	for i, c := range cols {
		g := c.gen
		c.gen = func(i int) (pq.Value, any) { return g(i + k) }
		out[i] = c
	}
	return out
}

// TestPooledPageReadersKeepBatches: a closed reader's page readers (window, decompressed pages,
// dictionaries) go to the next file's reader, so a batch of the first file must not view any of
// their buffers. The first file's batches are kept while a second file with other values is read
// through the same page readers, then compared with what the first file holds.
func TestPooledPageReadersKeepBatches(t *testing.T) {
	for _, dict := range []bool{true, false} {
		cols := allTypes(dict, false)
		opts := []pq.WriterOption{pq.MaxRowsPerRowGroup(1500), pq.PageBufferSize(900), pq.Compression(&pq.Snappy)}
		a := writeFile(t, cols, 4000, opts...)
		b := writeFile(t, shifted(cols, 777), 4000, opts...)
		spec := &ScanSpec{Columns: fields(cols), BatchSize: 512}
		want, _ := readAll(t, a, 0, math.MaxInt64, spec, checkedAlloc(t))

		r, err := Open(a, 0, math.MaxInt64, spec, checkedAlloc(t))
		if err != nil {
			t.Fatal(err)
		}
		var kept []*columnar.Batch
		for {
			bt, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			if bt == nil {
				break
			}
			kept = append(kept, bt)
		}
		if st := r.Stats(); st.ChunksOwnPages == 0 {
			t.Fatalf("dict=%v: no chunk read by the own page reader", dict)
		}
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
		other, _ := readAll(t, b, 0, math.MaxInt64, spec, checkedAlloc(t))
		if len(other) != len(want) || equalCell(other[0][len(cols)-1], want[0][len(cols)-1]) && equalCell(other[1][5], want[1][5]) {
			t.Fatalf("dict=%v: the second file must hold other values", dict)
		}
		row := 0
		for _, bt := range kept {
			for i := 0; i < bt.NumRows; i++ {
				for j, c := range bt.Cols {
					if got := cell(c, i); !equalCell(got, want[row][j]) {
						t.Fatalf("dict=%v: kept batch row %d column %s: %v, want %v (a view of a recycled buffer)",
							dict, row, cols[j].name, got, want[row][j])
					}
				}
				row++
			}
			bt.Release()
		}
		if row != len(want) {
			t.Fatalf("dict=%v: kept %d rows, want %d", dict, row, len(want))
		}
	}
}
