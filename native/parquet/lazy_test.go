package parquet

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// readCorpusLazy reads the file through NextLazy, each column of each batch read one of the ways
// a filter above a scan reads it (whole, as dictionary codes, for a random selection of rows, as
// codes then values, or not at all), and compares what comes back with cols. Batches that are
// empty, sparse, half or fully selected are all drawn.
func readCorpusLazy(t *testing.T, path string, cols []*corpusCol, batch int, seed uint64) (coded int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	mem := &countingAlloc{}
	fs := make([]sparktype.Field, len(cols))
	for i, c := range cols {
		fs[i] = sparktype.Field{Name: c.name, Type: c.spark, Nullable: true}
	}
	r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs, BatchSize: batch}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	row, errs := 0, 0
	var sel []int32
	report := func(op string, j int, msg string) {
		if msg != "" {
			t.Errorf("lazy, batch size %d, seed %d, row %d, column %s, %s: %s", batch, seed, row, cols[j].name, op, msg)
			errs++
		}
	}
	for errs < 20 {
		lb, err := r.NextLazy()
		if err != nil {
			t.Fatalf("lazy, batch size %d, after row %d: %v", batch, row, err)
		}
		if lb == nil {
			break
		}
		n := lb.NumRows()
		density := [...]float64{0, 0.02, 0.5, 0.9, 0.98, 1}[rng.IntN(6)]
		sel = sel[:0]
		for i := 0; i < n; i++ {
			if rng.Float64() < density {
				sel = append(sel, int32(i))
			}
		}
		atSel := func(i int) int { return row + int(sel[i]) }
		for j, c := range cols {
			switch op := rng.IntN(6); op {
			case 0: // not read: skipped
			case 1:
				a, err := lb.Column(j)
				if err != nil {
					t.Fatal(err)
				}
				report("column", j, c.check(a, row))
				a.Release()
			case 2:
				a, err := lb.Take(j, sel)
				if err != nil {
					t.Fatal(err)
				}
				report("take", j, lenOr(a, len(sel), func() string { return c.checkAt(a, atSel) }))
				a.Release()
			case 3, 4, 5:
				codes, dict, ok, err := lb.Codes(j)
				if err != nil {
					t.Fatal(err)
				}
				if ok {
					coded++
					report("codes", j, checkCodes(c, codes, dict, n, row, mem))
				}
				var a arrow.Array
				switch op {
				case 3:
					a, err = lb.Column(j)
				case 4:
					a, err = lb.Take(j, sel)
				default:
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				if op == 3 {
					report("codes, column", j, c.check(a, row))
				} else {
					report("codes, take", j, lenOr(a, len(sel), func() string { return c.checkAt(a, atSel) }))
				}
				a.Release()
			}
		}
		lb.Release()
		row += n
	}
	if errs >= 20 {
		t.Fatalf("lazy, batch size %d: too many differences", batch)
	}
	if got := len(cols[0].valid); row != got {
		t.Errorf("lazy, batch size %d: read %d rows, want %d", batch, row, got)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if live, bufs := mem.bytes.Load(), mem.count.Load(); live != 0 || bufs != 0 {
		t.Errorf("lazy, batch size %d: %d buffers of %d bytes still allocated after every batch was released", batch, bufs, live)
	}
	return coded
}

func lenOr(a arrow.Array, want int, check func() string) string {
	if a.Len() != want {
		return "wrong length"
	}
	return check()
}

// checkCodes checks a batch's dictionary codes: the dictionary's only null is its last entry,
// and the dictionary's values at the codes are the rows.
func checkCodes(c *corpusCol, codes []int32, dict arrow.Array, n, row int, mem memory.Allocator) string {
	if len(codes) != n {
		return "codes of the wrong length"
	}
	if dict.Len() == 0 || dict.NullN() != 1 || !dict.IsNull(dict.Len()-1) {
		return "the dictionary's last entry, and only it, must be null"
	}
	a, err := columnar.Take(mem, dict, codes)
	if err != nil {
		return err.Error()
	}
	defer a.Release()
	return c.check(a, row)
}

// TestLazyReads reads files of every type, encoding and layout through NextLazy.
func TestLazyReads(t *testing.T) {
	const n = 5000
	for _, tc := range []struct {
		name        string
		dict, delta bool
		opts        []pq.WriterOption
	}{
		{"plain_v2", false, false, nil},
		{"dict_v1_snappy", true, false, []pq.WriterOption{pq.DataPageVersion(1), pq.Compression(&pq.Snappy)}},
		{"dict_v2", true, false, nil},
		{"delta_v2", false, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cols := allTypes(tc.dict, tc.delta)
			path := writeFile(t, cols, n, append([]pq.WriterOption{pq.PageBufferSize(2048), pq.MaxRowsPerRowGroup(1700)}, tc.opts...)...)
			coded := 0
			defer func() {
				if tc.dict != (coded > 0) {
					t.Errorf("dictionary-encoded file %v, columns read as codes %d times", tc.dict, coded)
				}
			}()
			for _, bs := range []int{7, 333, 8192} {
				for seed := uint64(0); seed < 3; seed++ {
					if bs == 7 && seed > 0 {
						break // a few rows at a time is slow under the checking allocator
					}
					mem := checkedAlloc(t)
					r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fields(cols), BatchSize: bs}, mem)
					if err != nil {
						t.Fatal(err)
					}
					rng := rand.New(rand.NewPCG(seed, uint64(bs)))
					row := 0
					for {
						lb, err := r.NextLazy()
						if err != nil {
							t.Fatal(err)
						}
						if lb == nil {
							break
						}
						var sel []int32
						for i := 0; i < lb.NumRows(); i++ {
							if rng.IntN(3) == 0 {
								sel = append(sel, int32(i))
							}
						}
						for j, c := range cols {
							var a arrow.Array
							switch rng.IntN(4) {
							case 0:
								continue
							case 1:
								a, err = lb.Take(j, sel)
							case 2:
								var ok bool
								if _, _, ok, err = lb.Codes(j); err == nil {
									coded += b2i(ok)
									a, err = lb.Take(j, sel)
								}
							default:
								if a, err = lb.Column(j); err == nil {
									a.Release()
									a, err = lb.Take(j, sel)
								}
							}
							if err != nil {
								t.Fatal(err)
							}
							if a.Len() != len(sel) {
								t.Fatalf("column %s: %d rows, %d selected", c.name, a.Len(), len(sel))
							}
							for q, s := range sel {
								if _, want := c.gen(row + int(s)); !equalCell(cell(a, q), want) {
									t.Fatalf("batch size %d seed %d row %d column %s: got %v, want %v",
										bs, seed, row+int(s), c.name, cell(a, q), want)
								}
							}
							a.Release()
						}
						row += lb.NumRows()
						lb.Release()
					}
					if row != n {
						t.Fatalf("read %d rows, want %d", row, n)
					}
					r.Close()
				}
			}
		})
	}
}

// TestLazyBatchMisuse: a batch used after the reader moved on fails instead of decoding the wrong
// rows; a column read for some rows twice fails too (and the reader stays failed).
func TestLazyBatchMisuse(t *testing.T) {
	cols := allTypes(true, false)
	path := writeFile(t, cols, 3000)
	open := func() *Reader {
		r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fields(cols), BatchSize: 1000}, checkedAlloc(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	r := open()
	first, err := r.NextLazy()
	if err != nil {
		t.Fatal(err)
	}
	a, err := first.Take(0, []int32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	a.Release()
	if _, err := first.Take(0, []int32{3}); err == nil {
		t.Fatal("a column read twice for some rows gave no error")
	}
	if _, err := r.NextLazy(); err == nil {
		t.Fatal("the reader went on after a failed batch")
	}

	r = open()
	if first, err = r.NextLazy(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.NextLazy(); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Column(1); err == nil {
		t.Fatal("a finished batch decoded a column")
	}
	first.Release()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
