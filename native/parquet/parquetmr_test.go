package parquet

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/rle"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// mrFile is what a parquet-mr fixture holds, read from its footer (not through the reader under
// test).
type mrFile struct {
	fields    []sparktype.Field // Spark's schema, from the footer's row metadata
	meta      *format.FileMetaData
	chunks    int // column chunks
	ownChunks int // of those, the ones whose encodings and type the own page reader takes
	bitPacked int // column chunks listing BIT_PACKED among their encodings
	mixed     int // column chunks with dictionary-encoded and PLAIN data pages (dictionary fallback)
	v2Pages   int // data pages v2
}

// notOwnEncodings are the value encodings the own page reader leaves to parquet-go. The test
// says which chunks it expects read natively from this list, not from ownPages, so that a change
// to ownPages that drops a chunk parquet-mr writes fails here.
var notOwnEncodings = []format.Encoding{format.DeltaBinaryPacked, format.DeltaLengthByteArray,
	format.DeltaByteArray, format.ByteStreamSplit}

func loadMRFile(t *testing.T, path string) mrFile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := pq.OpenFile(f, fi.Size(), pq.SkipPageIndex(true), pq.SkipBloomFilters(true))
	if err != nil {
		t.Fatal(err)
	}
	mf := mrFile{meta: pf.Metadata()}
	if !strings.HasPrefix(mf.meta.CreatedBy, "parquet-mr") {
		t.Fatalf("written by %q, not parquet-mr", mf.meta.CreatedBy)
	}
	for _, kv := range mf.meta.KeyValueMetadata {
		if kv.Key == "org.apache.spark.sql.parquet.row.metadata" {
			st, err := sparktype.Parse(json.RawMessage(kv.Value))
			if err != nil {
				t.Fatalf("Spark schema %s: %v", kv.Value, err)
			}
			mf.fields = st.Fields()
		}
	}
	if len(mf.fields) == 0 {
		t.Fatal("no Spark schema in the footer")
	}
	for g := range mf.meta.RowGroups {
		for j := range mf.meta.RowGroups[g].Columns {
			md := &mf.meta.RowGroups[g].Columns[j].MetaData
			mf.chunks++
			if slices.Contains(md.Encoding, format.BitPacked) {
				mf.bitPacked++
			}
			own := md.Type != format.Boolean
			for _, e := range notOwnEncodings {
				own = own && !slices.Contains(md.Encoding, e)
			}
			if own {
				mf.ownChunks++
			}
			dict, plain := 0, 0
			for _, h := range pageHeaders(t, f, md) {
				var enc format.Encoding
				switch h.Type {
				case format.DataPage:
					enc = h.DataPageHeader.V.Encoding
				case format.DataPageV2:
					enc = h.DataPageHeaderV2.V.Encoding
					mf.v2Pages++
				default:
					continue
				}
				if enc == format.PlainDictionary || enc == format.RLEDictionary {
					dict++
				} else if enc == format.Plain {
					plain++
				}
			}
			if dict > 0 && plain > 0 {
				mf.mixed++
			}
		}
	}
	return mf
}

// readMR reads the file, with the own page reader where it applies or with parquet-go only.
func readMR(t *testing.T, path string, spec *ScanSpec, own bool) ([][]any, Stats) {
	t.Helper()
	r, err := Open(path, 0, math.MaxInt64, spec, checkedAlloc(t))
	if err != nil {
		t.Fatal(err)
	}
	r.noOwnPages = !own
	return readRest(t, r, spec)
}

// TestParquetMRFiles reads the files Spark 4.1 (parquet-mr) wrote into testdata/parquetmr
// (write-fixtures.scala) with the own page reader and with parquet-go's, which must agree. Every
// chunk of v1 pages lists BIT_PACKED (parquet-mr's repetition levels): the own page reader must
// take them all, but BOOLEAN ones.
func TestParquetMRFiles(t *testing.T) {
	paths, err := filepath.Glob("testdata/parquetmr/*.parquet")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 10 {
		t.Fatalf("%d fixtures in testdata/parquetmr", len(paths))
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".parquet")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			mf := loadMRFile(t, path)
			v1 := strings.HasPrefix(name, "v1_")
			switch {
			case v1 && mf.bitPacked != mf.chunks:
				t.Fatalf("%d of %d column chunks list BIT_PACKED: the fixture does not test what it should", mf.bitPacked, mf.chunks)
			case v1 && mf.v2Pages > 0, !v1 && mf.v2Pages == 0:
				t.Fatalf("%d data pages v2", mf.v2Pages)
			case strings.Contains(name, "fallback") && mf.mixed == 0:
				t.Fatal("no column chunk falls back from its dictionary to PLAIN")
			case mf.ownChunks == 0:
				t.Fatal("no column chunk for the own page reader")
			}
			hasBool := slices.ContainsFunc(mf.fields, func(f sparktype.Field) bool { return f.Type.Kind == sparktype.Boolean })
			if v1 && !hasBool && mf.ownChunks != mf.chunks {
				t.Fatalf("%d of %d column chunks for the own page reader", mf.ownChunks, mf.chunks)
			}
			spec := &ScanSpec{Columns: mf.fields}
			want, st := readMR(t, path, spec, false)
			if st.ChunksOwnPages != 0 || st.ChunksParquetGo != mf.chunks {
				t.Fatalf("parquet-go only: stats %+v, %d column chunks", st, mf.chunks)
			}
			if n := mf.meta.NumRows; int64(len(want)) != n {
				t.Fatalf("parquet-go read %d rows, the file has %d", len(want), n)
			}
			nulls := 0
			for _, row := range want {
				for _, v := range row {
					if v == nil {
						nulls++
					}
				}
			}
			if strings.Contains(name, "nulls") && nulls == 0 || strings.Contains(name, "required") && nulls > 0 {
				t.Fatalf("%d nulls", nulls)
			}
			for _, bs := range []int{1, 7, 1000, 8192} {
				spec := &ScanSpec{Columns: mf.fields, BatchSize: bs}
				got, st := readMR(t, path, spec, true)
				if st.ChunksOwnPages != mf.ownChunks || st.ChunksOwnPages+st.ChunksParquetGo != mf.chunks {
					t.Fatalf("batch size %d: %d column chunks read by the own page reader, %d by parquet-go; want %d of %d by the own",
						bs, st.ChunksOwnPages, st.ChunksParquetGo, mf.ownChunks, mf.chunks)
				}
				sameRows(t, fmt.Sprintf("batch size %d", bs), mf.fields, got, want)
			}
			// With a pushed-down predicate, the page index (parquet-mr writes one) skips pages:
			// the own page reader moves past them by their headers.
			for j, f := range mf.fields {
				if f.Name != "l" {
					continue
				}
				// The rows from two thirds of the file on: the column's values grow with the row.
				at := want[len(want)*2/3][j]
				if at == nil {
					at = want[len(want)*2/3+1][j]
				}
				spec := &ScanSpec{Columns: mf.fields, BatchSize: 100,
					Filters: []Predicate{{Column: "l", Op: ">=", Values: []Value{at}}}}
				want, wst := readMR(t, path, spec, false)
				got, st := readMR(t, path, spec, true)
				t.Logf("l >= %v: %d rows, %d skipped by the page index, %d row groups skipped", at, len(got),
					st.RowsSkippedByPageIndex, st.RowGroupsSkippedByStats)
				if st.ChunksOwnPages != mf.ownChunks*st.RowGroupsRead/len(mf.meta.RowGroups) || len(got) == 0 ||
					st.RowsSkippedByPageIndex != wst.RowsSkippedByPageIndex ||
					strings.Contains(name, "fallback") && st.RowsSkippedByPageIndex == 0 {
					t.Fatalf("filtered: stats %+v, parquet-go only %+v", st, wst)
				}
				sameRows(t, "filtered", mf.fields, got, want)
			}
		})
	}
}

func sameRows(t *testing.T, what string, fs []sparktype.Field, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	errs := 0
	for i := range want {
		for j := range want[i] {
			if !equalCell(got[i][j], want[i][j]) {
				t.Errorf("%s: row %d column %s: %v, want %v", what, i, fs[j].Name, got[i][j], want[i][j])
				if errs++; errs > 10 {
					t.FailNow()
				}
			}
		}
	}
}

// packLevelsMSB packs levels the way the Parquet spec's BIT_PACKED example does, a bit at a time
// (an implementation independent of unpackLevelsMSB's).
func packLevelsMSB(lv []byte, w int) []byte {
	out := make([]byte, (len(lv)*w+7)/8)
	bit := 0
	for _, v := range lv {
		for k := w - 1; k >= 0; k-- {
			if v>>k&1 == 1 {
				out[bit/8] |= 0x80 >> (bit % 8)
			}
			bit++
		}
	}
	return out
}

func TestUnpackLevelsMSB(t *testing.T) {
	// The spec's example (Encodings.md, BIT_PACKED): 0 to 7 in 3 bits.
	got := unpackLevelsMSB(nil, []byte{0b00000101, 0b00111001, 0b01110111}, 8, 3)
	if !bytes.Equal(got, []byte{0, 1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("spec example: %v", got)
	}
	// Width 1, 11 levels: the last byte's low 5 bits are padding.
	got = unpackLevelsMSB(got, []byte{0b10110001, 0b11011111}, 11, 1)
	if !bytes.Equal(got, []byte{1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0}) {
		t.Fatalf("width 1: %v", got)
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	var buf []byte
	for w := 1; w <= 8; w++ {
		for _, n := range []int{1, 3, 7, 8, 9, 15, 17, 64, 1001} {
			lv := make([]byte, n)
			for i := range lv {
				lv[i] = byte(rnd.IntN(1 << w))
			}
			packed := packLevelsMSB(lv, w)
			buf = unpackLevelsMSB(buf, packed, n, w)
			if !bytes.Equal(buf, lv) {
				t.Fatalf("width %d, %d levels: %v, want %v", w, n, buf, lv)
			}
		}
	}
}

// TestBitPackedDefinitionLevels reads a file whose v1 pages carry BIT_PACKED definition levels (as
// old parquet-mr writers wrote them): parquet-go writes it with RLE levels, and the test rewrites
// every page's levels as BIT_PACKED, in pages of row counts that are not multiples of 8.
func TestBitPackedDefinitionLevels(t *testing.T) {
	// parquet-go cuts pages at multiples of 64 rows: row groups of 293 rows end on a page of 37.
	const n, perGroup = 3001, 293
	cols := []tcol{
		{"i", pq.Optional(pq.Encoded(pq.Int(32), &pq.Plain)), sparktype.IntType, gInt32(3, func(i int) int32 { return int32(i*7 - 5000) })},
		{"l", pq.Optional(pq.Encoded(pq.Int(64), &pq.RLEDictionary)), sparktype.LongType, gInt64(5, func(i int) int64 { return int64(i % 13) })},
		{"s", pq.Optional(pq.Encoded(pq.String(), &pq.Plain)), sparktype.StringType, func(i int) (pq.Value, any) {
			if i%4 == 1 {
				return pq.NullValue(), nil
			}
			s := fmt.Sprintf("v%d", i)
			return pq.ByteArrayValue([]byte(s)), s
		}},
		{"r", pq.Required(pq.Encoded(pq.Int(64), &pq.Plain)), sparktype.LongType, gInt64(0, func(i int) int64 { return int64(i) * 3 })},
	}
	src := writeFile(t, cols, n, pq.DataPageVersion(1), pq.PageBufferSize(300), pq.MaxRowsPerRowGroup(perGroup))
	path := filepath.Join(t.TempDir(), "bitpacked.parquet")
	pages := rewriteLevelsBitPacked(t, src, path)
	if pages < 10 {
		t.Fatalf("%d pages of a row count not a multiple of 8 rewritten", pages)
	}
	spec := &ScanSpec{Columns: fields(cols)}
	for _, bs := range []int{1, 7, 1000, 8192} {
		spec.BatchSize = bs
		got, st := readMR(t, path, spec, true)
		if st.ChunksOwnPages != (n+perGroup-1)/perGroup*len(cols) || st.ChunksParquetGo != 0 {
			t.Fatalf("batch size %d: stats %+v", bs, st)
		}
		if len(got) != n {
			t.Fatalf("batch size %d: %d rows", bs, len(got))
		}
		for i, row := range got {
			for j, c := range cols {
				if _, want := c.gen(i); !equalCell(row[j], want) {
					t.Fatalf("batch size %d, row %d column %s: %v, want %v", bs, i, c.name, row[j], want)
				}
			}
		}
	}
}

// rewriteLevelsBitPacked copies the Parquet file src (uncompressed v1 pages, flat columns) to dst
// with the RLE definition levels of every data page rewritten as BIT_PACKED ones, and returns how
// many of the pages it rewrote have a row count not a multiple of 8. The page index is dropped
// (its offsets would be stale).
func rewriteLevelsBitPacked(t *testing.T, src, dst string) int {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	flen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	var meta format.FileMetaData
	if err := thrift.Unmarshal(new(thrift.CompactProtocol), data[len(data)-8-flen:len(data)-8], &meta); err != nil {
		t.Fatal(err)
	}
	out := []byte("PAR1")
	rewritten := 0
	for g := range meta.RowGroups {
		rg := &meta.RowGroups[g]
		rg.FileOffset, rg.TotalCompressedSize = int64(len(out)), 0
		for j := range rg.Columns {
			cc := &rg.Columns[j]
			md := &cc.MetaData
			if md.Codec != format.Uncompressed {
				t.Fatalf("column chunk compressed with %s", md.Codec)
			}
			maxDef := 0
			if meta.Schema[1+j].RepetitionType.V == format.Optional {
				maxDef = 1
			}
			off := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
				off = md.DictionaryPageOffset
			}
			chunk := data[off : off+md.TotalCompressedSize]
			start := int64(len(out))
			md.DictionaryPageOffset, md.DataPageOffset = 0, 0
			for len(chunk) > 0 {
				var h format.PageHeader
				r := (&thrift.CompactProtocol{}).NewReaderFromBytes(chunk)
				if err := thrift.NewDecoder(r).Decode(&h); err != nil {
					t.Fatal(err)
				}
				hl := r.(interface{ BytesRead() int }).BytesRead()
				body := chunk[hl : hl+int(h.CompressedPageSize)]
				chunk = chunk[hl+int(h.CompressedPageSize):]
				switch h.Type {
				case format.DictionaryPage:
					md.DictionaryPageOffset = int64(len(out))
				case format.DataPage:
					if md.DataPageOffset == 0 {
						md.DataPageOffset = int64(len(out))
					}
					dh := &h.DataPageHeader.V
					if maxDef > 0 {
						if dh.DefinitionLevelEncoding != format.RLE {
							t.Fatalf("definition levels in %s", dh.DefinitionLevelEncoding)
						}
						ln := binary.LittleEndian.Uint32(body)
						lv, err := (&rle.Encoding{BitWidth: 1}).DecodeLevels(nil, body[4:4+ln])
						if err != nil || len(lv) < int(dh.NumValues) {
							t.Fatalf("%d levels: %v", len(lv), err)
						}
						body = append(packLevelsMSB(lv[:dh.NumValues], 1), body[4+ln:]...)
						dh.DefinitionLevelEncoding = format.BitPacked
						if dh.NumValues%8 != 0 {
							rewritten++
						}
					}
					dh.RepetitionLevelEncoding = format.BitPacked
				default:
					t.Fatalf("page type %s", h.Type)
				}
				h.CompressedPageSize, h.UncompressedPageSize = int32(len(body)), int32(len(body))
				h.CRC = 0
				hb, err := thrift.Marshal(new(thrift.CompactProtocol), &h)
				if err != nil {
					t.Fatal(err)
				}
				out = append(append(out, hb...), body...)
			}
			md.TotalCompressedSize = int64(len(out)) - start
			md.TotalUncompressedSize = md.TotalCompressedSize
			md.Encoding = []format.Encoding{format.Plain, format.RLEDictionary, format.BitPacked}
			md.EncodingStats = nil
			cc.FileOffset = start
			cc.OffsetIndexOffset, cc.OffsetIndexLength, cc.ColumnIndexOffset, cc.ColumnIndexLength = 0, 0, 0, 0
			rg.TotalCompressedSize += md.TotalCompressedSize
		}
	}
	fb, err := thrift.Marshal(new(thrift.CompactProtocol), &meta)
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, fb...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(fb)))
	out = append(out, "PAR1"...)
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return rewritten
}

// TestLevelCounts checks the word-at-a-time counts of countDefined and checkLevels against a
// level-at-a-time count, on levels of every byte value (parquet-go's are unchecked) and every
// length around a word.
func TestLevelCounts(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for n := range 40 {
		for _, spread := range []int{2, 3, 256} {
			lv := make([]byte, n)
			for i := range lv {
				lv[i] = byte(rnd.IntN(spread))
			}
			for _, maxDef := range []byte{1, 2} {
				want, over := 0, false
				for _, d := range lv {
					if d == maxDef {
						want++
					}
					over = over || d > maxDef
				}
				if got := countDefined(lv, maxDef); got != want {
					t.Fatalf("countDefined(%v, %d) = %d, want %d", lv, maxDef, got, want)
				}
				p := &pageReader{maxDef: maxDef}
				got, err := p.checkLevels(lv)
				if over != (err != nil) || err == nil && got != want {
					t.Fatalf("checkLevels(%v), max %d: %d, %v; want %d (a level above: %v)", lv, maxDef, got, err, want, over)
				}
			}
		}
	}
}

// TestOwnPagesEncodings: BIT_PACKED among a chunk's encodings is parquet-mr's levels, read by the
// own page reader, unless the page encoding statistics say values were encoded with it.
func TestOwnPagesEncodings(t *testing.T) {
	long := &leafInfo{name: "l", phys: format.Int64, maxDef: 1}
	mr := []format.Encoding{format.BitPacked, format.RLE, format.PlainDictionary, format.Plain}
	for _, c := range []struct {
		name  string
		leaf  *leafInfo
		encs  []format.Encoding
		stats []format.PageEncodingStats
		own   bool
	}{
		{"parquet-mr v1", long, mr, []format.PageEncodingStats{{PageType: format.DictionaryPage, Encoding: format.PlainDictionary, Count: 1},
			{PageType: format.DataPage, Encoding: format.PlainDictionary, Count: 3}, {PageType: format.DataPage, Encoding: format.Plain, Count: 2}}, true},
		{"no statistics", long, mr, nil, true},
		{"values in BIT_PACKED", long, mr, []format.PageEncodingStats{{PageType: format.DataPage, Encoding: format.BitPacked, Count: 1}}, false},
		{"DELTA", long, []format.Encoding{format.BitPacked, format.RLE, format.DeltaBinaryPacked}, nil, false},
		{"BOOLEAN", &leafInfo{name: "b", phys: format.Boolean, maxDef: 1}, mr, nil, false},
	} {
		md := &format.ColumnMetaData{Type: c.leaf.phys, Encoding: c.encs, EncodingStats: c.stats, Codec: format.Snappy}
		if got := ownPages(c.leaf, md); got != c.own {
			t.Errorf("%s: ownPages %v, want %v", c.name, got, c.own)
		}
	}
}
