package parquet

// The corpus tests write the awkward column shapes that real writers produce (all-null and
// mostly-null columns, null-only pages between data pages, all-null row groups, empty strings,
// one-value dictionaries, dictionary fallback) with several writers and layouts, read them back
// with batch sizes that do and do not line up with pages, and compare every cell with the data the
// test generated. Three writers: arrow-go's pqarrow and parquet-go in process, and pyarrow (the C++
// writer) through scripts/parquet-corpus.py when BOLIDE_PARQUET_CORPUS names its output.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	aparquet "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// corpusBatchSizes: 1 and 7 cut pages everywhere, 1000 crosses pages and ends inside row groups,
// 8192 reads whole row groups.
var corpusBatchSizes = []int{1, 7, 1000, 8192}

// ---- expected data ---------------------------------------------------------------------------

// corpusCol is one column of a corpus file and the values expected back from it, in the form the
// reader returns them (timestamps in microseconds, float widened exactly to float64).
type corpusCol struct {
	name     string
	spark    sparktype.Type
	kind     ckind // how the in-process writers store it (unused for pyarrow files)
	required bool

	valid []bool
	ints  []int64   // byte, short, int, long, date, timestamp
	flts  []float64 // float, double
	bins  [][]byte  // string, binary
	bools []bool
	decs  []decimal128.Num
}

func newCorpusCol(name string, t sparktype.Type, n int) *corpusCol {
	c := &corpusCol{name: name, spark: t, valid: make([]bool, n)}
	switch t.Kind {
	case sparktype.String, sparktype.Binary:
		c.bins = make([][]byte, n)
	case sparktype.Float, sparktype.Double:
		c.flts = make([]float64, n)
	case sparktype.Boolean:
		c.bools = make([]bool, n)
	case sparktype.Decimal:
		c.decs = make([]decimal128.Num, n)
	default:
		c.ints = make([]int64, n)
	}
	return c
}

func (c *corpusCol) want(r int) string {
	if !c.valid[r] {
		return "null"
	}
	switch {
	case c.bins != nil:
		return fmt.Sprintf("%q", c.bins[r])
	case c.flts != nil:
		return fmt.Sprint(c.flts[r])
	case c.bools != nil:
		return fmt.Sprint(c.bools[r])
	case c.decs != nil:
		return c.decs[r].BigInt().String()
	}
	return fmt.Sprint(c.ints[r])
}

func sameFloat(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Float64bits(a) == math.Float64bits(b) // tells -0 from 0
}

// check compares the array with rows [row0, row0+a.Len()) and returns the first difference.
func (c *corpusCol) check(a arrow.Array, row0 int) string {
	if row0+a.Len() > len(c.valid) {
		return fmt.Sprintf("%d rows from row %d: past the %d rows written", a.Len(), row0, len(c.valid))
	}
	return c.checkAt(a, func(i int) int { return row0 + i })
}

// checkAt compares element i of the array with row at(i) and returns the first difference.
func (c *corpusCol) checkAt(a arrow.Array, at func(i int) int) string {
	if !arrow.TypeEqual(a.DataType(), c.spark.Arrow()) {
		return fmt.Sprintf("type %s, want %s", a.DataType(), c.spark.Arrow())
	}
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil {
			return fmt.Sprintf("ValidateFull: %v", err)
		}
	}
	nulls := 0
	if bm := a.NullBitmapBytes(); bm != nil {
		nulls = a.Len() - bitutil.CountSetBits(bm, a.Data().Offset(), a.Len())
	}
	if a.NullN() != nulls {
		return fmt.Sprintf("NullN %d, the bitmap has %d nulls", a.NullN(), nulls)
	}
	for i := 0; i < a.Len(); i++ {
		if r := at(i); a.IsValid(i) != c.valid[r] {
			return fmt.Sprintf("row %d: valid=%v, want %s", r, a.IsValid(i), c.want(r))
		}
	}
	bad := -1
	var got any
	switch a := a.(type) {
	case *array.String:
		for i := 0; i < a.Len() && bad < 0; i++ {
			if r := at(i); c.valid[r] && a.Value(i) != string(c.bins[r]) {
				bad, got = i, fmt.Sprintf("%q", a.Value(i))
			}
		}
	case *array.Binary:
		for i := 0; i < a.Len() && bad < 0; i++ {
			if r := at(i); c.valid[r] && !bytes.Equal(a.Value(i), c.bins[r]) {
				bad, got = i, fmt.Sprintf("%q", a.Value(i))
			}
		}
	case *array.Int8:
		bad, got = firstIntDiff(c, at, a.Len(), func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int16:
		bad, got = firstIntDiff(c, at, a.Len(), func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int32:
		bad, got = firstIntDiff(c, at, a.Len(), func(i int) int64 { return int64(a.Value(i)) })
	case *array.Int64:
		bad, got = firstIntDiff(c, at, a.Len(), func(i int) int64 { return a.Value(i) })
	case *array.Date32:
		bad, got = firstIntDiff(c, at, a.Len(), func(i int) int64 { return int64(a.Value(i)) })
	case *array.Timestamp:
		bad, got = firstIntDiff(c, at, a.Len(), func(i int) int64 { return int64(a.Value(i)) })
	case *array.Float32:
		for i := 0; i < a.Len() && bad < 0; i++ {
			if r := at(i); c.valid[r] && !sameFloat(float64(a.Value(i)), c.flts[r]) {
				bad, got = i, a.Value(i)
			}
		}
	case *array.Float64:
		for i := 0; i < a.Len() && bad < 0; i++ {
			if r := at(i); c.valid[r] && !sameFloat(a.Value(i), c.flts[r]) {
				bad, got = i, a.Value(i)
			}
		}
	case *array.Boolean:
		for i := 0; i < a.Len() && bad < 0; i++ {
			if r := at(i); c.valid[r] && a.Value(i) != c.bools[r] {
				bad, got = i, a.Value(i)
			}
		}
	case *array.Decimal128:
		for i := 0; i < a.Len() && bad < 0; i++ {
			if r := at(i); c.valid[r] && a.Value(i) != c.decs[r] {
				bad, got = i, a.Value(i).BigInt().String()
			}
		}
	default:
		return fmt.Sprintf("unexpected array %T", a)
	}
	if bad >= 0 {
		return fmt.Sprintf("row %d: got %v, want %s", at(bad), got, c.want(at(bad)))
	}
	return ""
}

func firstIntDiff(c *corpusCol, rowAt func(int) int, n int, at func(int) int64) (int, any) {
	for i := 0; i < n; i++ {
		if r := rowAt(i); c.valid[r] && at(i) != c.ints[r] {
			return i, at(i)
		}
	}
	return -1, nil
}

// readCorpus reads the whole file with one batch size and compares every batch with cols. Batches
// must be full unless they end a row group (groups are the row group sizes).
func readCorpus(t *testing.T, path string, cols []*corpusCol, groups []int, batch int) {
	t.Helper()
	n := 0
	ends := map[int]bool{} // rows that end a row group
	for _, g := range groups {
		n += g
		ends[n] = true
	}
	mem := &countingAlloc{}
	fs := make([]sparktype.Field, len(cols))
	for i, c := range cols {
		fs[i] = sparktype.Field{Name: c.name, Type: c.spark, Nullable: true}
	}
	r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs, BatchSize: batch}, mem)
	if err != nil {
		t.Fatal(err)
	}
	// Windows smaller than the chunks (pages running past a window's end, pages larger than it)
	// for some batch sizes; the others read chunks whole.
	r.window = map[int]int64{7: 61, 1000: 3000}[batch]
	row, errs := 0, 0
	for {
		b, err := r.Next()
		if err != nil {
			r.Close()
			t.Fatalf("batch size %d, after row %d: %v", batch, row, err)
		}
		if b == nil {
			break
		}
		if b.NumRows <= 0 || b.NumRows > batch || b.NumRows < batch && !ends[row+b.NumRows] || len(b.Cols) != len(cols) {
			b.Release()
			r.Close()
			t.Fatalf("batch size %d, row %d: a batch of %d rows and %d columns (%d columns, row groups %v)",
				batch, row, b.NumRows, len(b.Cols), len(cols), groups)
		}
		for j, a := range b.Cols {
			if a.Len() != b.NumRows {
				t.Errorf("batch size %d, column %s: %d rows in a batch of %d", batch, cols[j].name, a.Len(), b.NumRows)
				errs++
			} else if msg := cols[j].check(a, row); msg != "" {
				t.Errorf("batch size %d, column %s: %s", batch, cols[j].name, msg)
				errs++
			}
		}
		row += b.NumRows
		b.Release()
		if errs > 20 {
			r.Close()
			t.Fatalf("batch size %d: too many differences", batch)
		}
	}
	st := r.Stats()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if row != n || st.RowsRead != int64(n) || st.RowGroupsRead != len(groups) {
		t.Errorf("batch size %d: read %d rows in %d row groups, want %d rows in %d", batch, row, st.RowGroupsRead, n, len(groups))
	}
	if live, bufs := mem.bytes.Load(), mem.count.Load(); live != 0 || bufs != 0 {
		t.Errorf("batch size %d: %d buffers of %d bytes still allocated after every batch was released", batch, bufs, live)
	}
}

// countingAlloc counts live bytes and buffers like memory.CheckedAllocator, without its cost
// (a stack trace per allocation), which would dominate a read one row at a time.
type countingAlloc struct {
	mem          memory.GoAllocator
	bytes, count atomic.Int64
}

func (a *countingAlloc) Allocate(size int) []byte {
	a.bytes.Add(int64(size))
	a.count.Add(1)
	return a.mem.Allocate(size)
}

func (a *countingAlloc) Reallocate(size int, b []byte) []byte {
	a.bytes.Add(int64(size - len(b)))
	return a.mem.Reallocate(size, b)
}

func (a *countingAlloc) Free(b []byte) {
	if b == nil { // a buffer resized to nothing never allocated
		return
	}
	a.bytes.Add(-int64(len(b)))
	a.count.Add(-1)
	a.mem.Free(b)
}

// ---- file facts ------------------------------------------------------------------------------

// fileFacts is what a corpus file really holds, to check that a layout is what its name says
// (a writer that ignored an option would make the test pass for the wrong reason).
type fileFacts struct {
	groups      []int
	codecs      map[format.CompressionCodec]int
	pageTypes   map[format.PageType]int
	maxPages    map[string]int                     // most data pages in one chunk, per column
	dictPages   map[string]int                     // data pages encoded against a dictionary, per column
	plainPages  map[string]int                     // other data pages, per column
	encodings   map[string]map[format.Encoding]int // data pages per value encoding, per column
	phys        map[string]format.Type             // physical type, per column
	nullOnly    int                                // data pages without a value
	nullOnlyMid int                                // of those, pages with non-null pages before and after in their chunk
	nullGroups  int                                // column chunks without a value in a chunk of a column that has values elsewhere
}

// inspect reads the page headers of every column chunk; whether a page holds a value comes from
// its row range and the expected data of its column.
func inspect(t *testing.T, path string, cols []*corpusCol) fileFacts {
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
	byName := map[string]*corpusCol{}
	for _, c := range cols {
		byName[c.name] = c
	}
	ff := fileFacts{codecs: map[format.CompressionCodec]int{}, pageTypes: map[format.PageType]int{},
		maxPages: map[string]int{}, dictPages: map[string]int{}, plainPages: map[string]int{},
		encodings: map[string]map[format.Encoding]int{}, phys: map[string]format.Type{}}
	meta := pf.Metadata()
	leaves := pf.Schema().Columns()
	hasValues := map[string][]bool{} // per column: per row group, whether its chunk has a value
	var pageHas []bool               // per data page of a chunk: whether it has a value
	row0 := 0
	for g := range meta.RowGroups {
		mrg := &meta.RowGroups[g]
		ff.groups = append(ff.groups, int(mrg.NumRows))
		for j := range mrg.Columns {
			name := strings.Join(leaves[j], ".")
			c := byName[name]
			if c == nil {
				t.Fatalf("%s: column %s is not in the expected data", path, name)
			}
			md := &mrg.Columns[j].MetaData
			ff.codecs[md.Codec]++
			ff.phys[name] = md.Type
			pageHas = pageHas[:0]
			r := row0
			for _, h := range pageHeaders(t, f, md) {
				ff.pageTypes[h.Type]++
				var n int
				var enc format.Encoding
				switch h.Type {
				case format.DataPage:
					n, enc = int(h.DataPageHeader.V.NumValues), h.DataPageHeader.V.Encoding
				case format.DataPageV2:
					n, enc = int(h.DataPageHeaderV2.V.NumRows), h.DataPageHeaderV2.V.Encoding
				default:
					continue
				}
				if ff.encodings[name] == nil {
					ff.encodings[name] = map[format.Encoding]int{}
				}
				ff.encodings[name][enc]++
				if enc == format.RLEDictionary || enc == format.PlainDictionary {
					ff.dictPages[name]++
				} else {
					ff.plainPages[name]++
				}
				if r+n > len(c.valid) {
					t.Fatalf("%s row group %d column %s: pages past row %d", path, g, name, len(c.valid))
				}
				pageHas = append(pageHas, slices.Contains(c.valid[r:r+n], true))
				r += n
			}
			if r != row0+int(mrg.NumRows) {
				t.Fatalf("%s row group %d column %s: pages hold %d rows, the row group %d", path, g, name, r-row0, mrg.NumRows)
			}
			ff.maxPages[name] = max(ff.maxPages[name], len(pageHas))
			first, last := -1, -1
			for k, v := range pageHas {
				if v {
					if first < 0 {
						first = k
					}
					last = k
				} else {
					ff.nullOnly++
				}
			}
			for k := first + 1; first >= 0 && k < last; k++ {
				if !pageHas[k] {
					ff.nullOnlyMid++
				}
			}
			hasValues[name] = append(hasValues[name], first >= 0)
		}
		row0 += int(mrg.NumRows)
	}
	for _, hs := range hasValues {
		if slices.Contains(hs, true) {
			for _, h := range hs {
				if !h {
					ff.nullGroups++
				}
			}
		}
	}
	return ff
}

// pageHeaders decodes the page headers of a column chunk (parquet-go's page API hides the page
// type and encoding, which say whether a layout really has v2 pages, dictionary pages and so on).
func pageHeaders(t *testing.T, f *os.File, md *format.ColumnMetaData) []format.PageHeader {
	t.Helper()
	off := md.DataPageOffset
	if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
		off = md.DictionaryPageOffset
	}
	chunk := make([]byte, md.TotalCompressedSize)
	if _, err := f.ReadAt(chunk, off); err != nil {
		t.Fatal(err)
	}
	rd := (&thrift.CompactProtocol{}).NewReaderFromBytes(nil)
	dec := thrift.NewDecoder(rd)
	var out []format.PageHeader
	for pos := 0; pos < len(chunk); {
		var h format.PageHeader
		rd.ResetBytes(chunk[pos:])
		if err := dec.Decode(&h); err != nil {
			t.Fatalf("page header at %d: %v", off+int64(pos), err)
		}
		pos += rd.(interface{ BytesRead() int }).BytesRead() + int(h.CompressedPageSize)
		out = append(out, h)
	}
	return out
}

// ---- in-process corpus -----------------------------------------------------------------------

// ckind is a column type of the in-process corpus.
type ckind uint8

const (
	kString ckind = iota
	kBinary
	kByte
	kShort
	kInt
	kLong
	kFloat
	kDouble
	kBool
	kDec32   // decimal(9,2) as INT32
	kDec64   // decimal(18,3) as INT64
	kDecFLBA // decimal(30,4) as FIXED_LEN_BYTE_ARRAY(13)
	kDecBA   // decimal(25,2) as BYTE_ARRAY (parquet-go only: arrow writers never use it)
	kDate
	kTsMicros
	kTsMillis // stored in milliseconds, read as microseconds
	numKinds
)

// kinds: the full set of shapes goes to one kind per physical type and decoder, the core shapes
// to the kinds that only add a conversion of the same physical values.
var kinds = [numKinds]struct {
	name  string
	spark sparktype.Type
	phys  format.Type
	full  bool
}{
	kString:   {"string", sparktype.StringType, format.ByteArray, true},
	kBinary:   {"binary", sparktype.BinaryType, format.ByteArray, false},
	kByte:     {"byte", sparktype.ByteType, format.Int32, false},
	kShort:    {"short", sparktype.ShortType, format.Int32, false},
	kInt:      {"int", sparktype.IntType, format.Int32, true},
	kLong:     {"long", sparktype.LongType, format.Int64, true},
	kFloat:    {"float", sparktype.FloatType, format.Float, false},
	kDouble:   {"double", sparktype.DoubleType, format.Double, true},
	kBool:     {"bool", sparktype.BooleanType, format.Boolean, true},
	kDec32:    {"dec32", sparktype.DecimalOf(9, 2), format.Int32, false},
	kDec64:    {"dec64", sparktype.DecimalOf(18, 3), format.Int64, false},
	kDecFLBA:  {"decflba", sparktype.DecimalOf(30, 4), format.FixedLenByteArray, true},
	kDecBA:    {"decba", sparktype.DecimalOf(25, 2), format.ByteArray, true},
	kDate:     {"date", sparktype.DateType, format.Int32, false},
	kTsMicros: {"tsmicros", sparktype.TimestampType, format.Int64, false},
	kTsMillis: {"tsmillis", sparktype.TimestampType, format.Int64, false},
}

// corpusRows: more than 1000, so that batches of 1000 end inside a row group too.
const corpusRows = 1300

// corpusGroups is the "several row groups" plan, with 1-row groups first and in the middle
// (rows [0,1) [1,701) [701,702) [702,1102) [1102,1300)). The head/run/tail null shapes make whole
// row groups of it null.
var corpusGroups = []int{1, 700, 1, 400, 198}

// cshape says which rows are null and which value seed each other row gets.
type cshape struct {
	name     string
	opt, req bool // written as an optional column, as a required one (only shapes without nulls)
	core     bool // also for the kinds that are not full
	strs     bool // string and binary only
	null     func(i int, h uint64) bool
	seed     func(i int) uint64 // nil: the empty value
}

func pct(p uint64) func(int, uint64) bool { return func(_ int, h uint64) bool { return h%100 < p } }
func never(int, uint64) bool              { return false }
func mixSeed(i int) uint64                { return uint64(i%29 + (i/250)*5) } // ~29 values, drifting
func wideSeed(i int) uint64               { return mix64(uint64(i) + 0xabcdef) }
func constSeed(int) uint64                { return 4242 }

var cshapes = []cshape{
	{name: "allnull", opt: true, core: true, null: func(int, uint64) bool { return true }, seed: mixSeed},
	{name: "null95", opt: true, core: true, null: pct(95), seed: mixSeed},
	{name: "null58", opt: true, null: pct(58), seed: mixSeed},
	{name: "single", opt: true, req: true, core: true, null: never, seed: constSeed},
	{name: "singlenull", opt: true, null: pct(50), seed: constSeed},
	// the first two row groups of corpusGroups
	{name: "headnull", opt: true, null: func(i int, _ uint64) bool { return i < 701 }, seed: mixSeed},
	// the middle row groups, and parts of their neighbours
	{name: "nullrun", opt: true, core: true, null: func(i int, _ uint64) bool { return i >= 690 && i < 1150 }, seed: mixSeed},
	// the last row group
	{name: "tailnull", opt: true, null: func(i int, _ uint64) bool { return i >= 1102 }, seed: mixSeed},
	{name: "mix", opt: true, core: true, null: pct(15), seed: mixSeed},
	{name: "wide", opt: true, null: pct(10), seed: wideSeed},
	{name: "dense", opt: true, req: true, null: never, seed: mixSeed},
	{name: "widedense", req: true, core: true, null: never, seed: wideSeed},
	{name: "empty", opt: true, req: true, core: true, strs: true, null: never},
	{name: "emptynull", opt: true, core: true, strs: true, null: pct(40)},
}

func mix64(x uint64) uint64 { // splitmix64's finalizer
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// corpusColumns generates the in-process corpus: every kind in the shapes that apply to it.
func corpusColumns(n int, withDecBA bool) []*corpusCol {
	var cols []*corpusCol
	for k := ckind(0); k < numKinds; k++ {
		if k == kDecBA && !withDecBA {
			continue
		}
		for si, s := range cshapes {
			if s.strs && k != kString && k != kBinary || !s.core && !kinds[k].full {
				continue
			}
			for _, req := range []bool{false, true} {
				if req && !s.req || !req && !s.opt {
					continue
				}
				name := kinds[k].name + "_" + s.name
				if req {
					name += "_req"
				}
				c := newCorpusCol(name, kinds[k].spark, n)
				c.kind, c.required = k, req
				salt := mix64(uint64(k)<<8 | uint64(si))
				for i := 0; i < n; i++ {
					if s.null(i, mix64(uint64(i)^salt)) {
						continue
					}
					c.valid[i] = true
					if s.seed == nil {
						c.bins[i] = []byte{}
						continue
					}
					c.setValue(i, s.seed(i))
				}
				cols = append(cols, c)
			}
		}
	}
	return cols
}

var (
	max30 = decimal128.FromI64(1e15).Mul(decimal128.FromI64(1e15)).Sub(decimal128.FromI64(1)) // 10^30-1
	max25 = decimal128.FromI64(1e13).Mul(decimal128.FromI64(1e12)).Sub(decimal128.FromI64(1)) // 10^25-1
)

// setValue stores the value of seed u in row i: edge values for some seeds, others spread out.
func (c *corpusCol) setValue(i int, u uint64) {
	h := mix64(u)
	switch c.kind {
	case kString:
		var s string
		switch u % 8 {
		case 0:
			s = ""
		case 1:
			s = strings.Repeat("long-", int(3+u%10)) + strconv.FormatUint(u, 10)
		case 2:
			s = "é€😀" + strconv.FormatUint(u%97, 10)
		default:
			s = "v" + strconv.FormatUint(u, 36)
		}
		c.bins[i] = []byte(s)
	case kBinary:
		b := make([]byte, u%11)
		for j := range b {
			b[j] = byte(mix64(u + uint64(j)))
		}
		c.bins[i] = b
	case kByte:
		c.ints[i] = intValue(u, 8)
	case kShort:
		c.ints[i] = intValue(u, 16)
	case kInt:
		c.ints[i] = intValue(u, 32)
	case kLong:
		c.ints[i] = intValue(u, 64)
	case kFloat:
		var f float32
		switch u % 23 {
		case 0:
			f = float32(math.NaN())
		case 1:
			f = float32(math.Inf(1))
		case 2:
			f = float32(math.Inf(-1))
		case 3:
			f = float32(math.Copysign(0, -1))
		case 4:
			f = math.MaxFloat32
		case 5:
			f = math.SmallestNonzeroFloat32
		default:
			f = float32(int64(h%4001)-2000) / 8
		}
		c.flts[i] = float64(f)
	case kDouble:
		var f float64
		switch u % 23 {
		case 0:
			f = math.NaN()
		case 1:
			f = math.Inf(1)
		case 2:
			f = math.Inf(-1)
		case 3:
			f = math.Copysign(0, -1)
		case 4:
			f = -math.MaxFloat64
		case 5:
			f = math.SmallestNonzeroFloat64
		default:
			f = float64(int64(h%100001)-50000) / 64
		}
		c.flts[i] = f
	case kBool:
		c.bools[i] = h&1 == 1
	case kDec32:
		c.decs[i] = decimal128.FromI64(edgeOr(u%19, []int64{999999999, -999999999, 0}, int64(h%1999999999)-999999999))
	case kDec64:
		const m = 999999999999999999
		c.decs[i] = decimal128.FromI64(edgeOr(u%19, []int64{m, -m, 0}, int64(h%(2*m+1))-m))
	case kDecFLBA:
		switch u % 19 {
		case 0:
			c.decs[i] = max30
		case 1:
			c.decs[i] = max30.Negate()
		case 2:
			c.decs[i] = decimal128.FromI64(-1)
		default:
			a := int64(h%2000000000000001) - 1e15
			c.decs[i] = decimal128.FromI64(a).Mul(decimal128.FromI64(1e14)).Add(decimal128.FromI64(int64(u % 99991)))
		}
	case kDecBA:
		switch u % 19 {
		case 0:
			c.decs[i] = max25
		case 1:
			c.decs[i] = max25.Negate()
		case 2:
			c.decs[i] = decimal128.FromI64(-1)
		case 3:
			c.decs[i] = decimal128.Num{}
		default:
			a := int64(h%2000000000001) - 1e12
			c.decs[i] = decimal128.FromI64(a).Mul(decimal128.FromI64(1e12)).Add(decimal128.FromI64(int64(u % 1000)))
		}
	case kDate:
		c.ints[i] = edgeOr(u%13, []int64{-719162, 2932896, 0}, int64(h%60001)-30000) // 0001-01-01, 9999-12-31
	case kTsMicros:
		c.ints[i] = edgeOr(u%13, []int64{-62135596800000000, 253402300799999999, 0, -1}, int64(h%4e15)-2e15)
	case kTsMillis:
		c.ints[i] = 1000 * edgeOr(u%13, []int64{-62135596800000, 253402300799999, 0, -1}, int64(h%4e12)-2e12)
	}
}

func edgeOr(k uint64, edges []int64, v int64) int64 {
	if k < uint64(len(edges)) {
		return edges[k]
	}
	return v
}

// intValue is a signed integer of the given width: the extremes and zero for some seeds.
func intValue(u uint64, bits int) int64 {
	lo := int64(-1) << (bits - 1)
	switch u % 17 {
	case 3:
		return lo
	case 4:
		return -lo - 1 // wraps to MaxInt64 for 64 bits
	case 5:
		return 0
	}
	x := int64(mix64(u))
	if u%2 == 0 {
		x = int64(u%1000) - 500
	}
	return x << (64 - bits) >> (64 - bits)
}

// corpusLayout is how a file is written.
type corpusLayout struct {
	name     string
	dict     bool
	fallback bool // dictionary with a tiny size limit: plain pages follow dictionary pages
	v2       bool
	tiny     bool // pages of a few dozen values or fewer
	groups   []int
	snappy   bool
}

// corpusLayouts cover every pair of values of the five options (dictionary, page version, page
// size, row groups, compression), plus a dictionary fallback layout per writer.
func corpusLayouts(fallback corpusLayout) []corpusLayout {
	one := []int{corpusRows}
	sev := corpusGroups
	return []corpusLayout{
		{name: "dict_v1_tiny_groups_snappy", dict: true, tiny: true, groups: sev, snappy: true},
		{name: "dict_v2_tiny_onegroup_none", dict: true, v2: true, tiny: true, groups: one},
		{name: "plain_v1_onepage_onegroup_snappy", groups: one, snappy: true},
		{name: "plain_v2_tiny_groups_none", v2: true, tiny: true, groups: sev},
		{name: "dict_v2_onepage_groups_snappy", dict: true, v2: true, groups: sev, snappy: true},
		{name: "plain_v1_tiny_groups_none", tiny: true, groups: sev},
		{name: "dict_v1_onepage_onegroup_none", dict: true, groups: one},
		fallback,
	}
}

var (
	fallbackV1 = corpusLayout{name: "fallback_v1_tiny_groups_snappy", dict: true, fallback: true, tiny: true,
		groups: corpusGroups, snappy: true}
	fallbackV2 = corpusLayout{name: "fallback_v2_tiny_onegroup_none", dict: true, fallback: true, v2: true,
		tiny: true, groups: []int{corpusRows}}
)

// checkLayout checks that the writer did what the layout asks for.
func checkLayout(t *testing.T, ff fileFacts, l corpusLayout, cols []*corpusCol, boolRLE bool) {
	t.Helper()
	if fmt.Sprint(ff.groups) != fmt.Sprint(l.groups) {
		t.Fatalf("row groups %v, want %v", ff.groups, l.groups)
	}
	codec := format.Uncompressed
	if l.snappy {
		codec = format.Snappy
	}
	if len(ff.codecs) != 1 || ff.codecs[codec] == 0 {
		t.Fatalf("codecs %v, want only %v", ff.codecs, codec)
	}
	want := format.DataPage
	if l.v2 {
		want = format.DataPageV2
	}
	if ff.pageTypes[want] == 0 || ff.pageTypes[format.DataPage]+ff.pageTypes[format.DataPageV2] != ff.pageTypes[want] {
		t.Fatalf("page types %v, want data pages of type %v", ff.pageTypes, want)
	}
	dictPages := 0
	for _, c := range cols {
		dictPages += ff.dictPages[c.name]
		if ff.phys[c.name] != kinds[c.kind].phys {
			t.Fatalf("column %s: physical type %v, want %v", c.name, ff.phys[c.name], kinds[c.kind].phys)
		}
	}
	const wide = "string_widedense_req"
	switch {
	case !l.dict && dictPages > 0:
		t.Fatalf("%d dictionary-encoded pages in a plain layout", dictPages)
	case l.dict && (ff.dictPages["long_mix"] == 0 || ff.dictPages["string_mix"] == 0):
		t.Fatalf("long_mix and string_mix are not dictionary-encoded in a dictionary layout")
	case l.fallback && (ff.dictPages[wide] == 0 || ff.plainPages[wide] == 0):
		t.Fatalf("%s: %d dictionary pages, %d plain pages: no fallback", wide, ff.dictPages[wide], ff.plainPages[wide])
	}
	if boolRLE && ff.encodings["bool_mix"][format.RLE] == 0 {
		t.Fatalf("bool_mix: encodings %v, want RLE pages", ff.encodings["bool_mix"])
	}
	if l.tiny {
		if ff.maxPages["long_dense_req"] < 6 || ff.maxPages["string_wide"] < 6 {
			t.Fatalf("tiny pages: only %d and %d pages in a chunk", ff.maxPages["long_dense_req"], ff.maxPages["string_wide"])
		}
		if ff.nullOnlyMid == 0 {
			t.Fatalf("no null-only page between pages with values")
		}
	} else {
		for name, n := range ff.maxPages {
			if n != 1 {
				t.Fatalf("column %s: %d pages in a chunk, want one", name, n)
			}
		}
	}
	if len(l.groups) > 1 && ff.nullGroups == 0 {
		t.Fatalf("no all-null column chunk in a column with values")
	}
}

// runCorpus writes the columns in every layout and reads each file back with every batch size.
// Small batches cost a whole batch per row and column, so the pass with batches of 7 reads every
// other column, and the pass of single rows every eighth, different ones in each layout: over the
// layouts every column is read with every batch size, and in each layout with batches of 1000 and
// 8192.
func runCorpus(t *testing.T, cols []*corpusCol, fallback corpusLayout, boolRLE func(corpusLayout) bool,
	write func(t *testing.T, path string, l corpusLayout)) {
	for li, l := range corpusLayouts(fallback) {
		t.Run(l.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), l.name+".parquet")
			write(t, path, l)
			ff := inspect(t, path, cols)
			checkLayout(t, ff, l, cols, boolRLE(l))
			t.Logf("%d data pages (%d without values, %d of them between pages with values), %d all-null column chunks",
				ff.pageTypes[format.DataPage]+ff.pageTypes[format.DataPageV2], ff.nullOnly, ff.nullOnlyMid, ff.nullGroups)
			for _, bs := range corpusBatchSizes {
				some := cols
				if every := map[int]int{1: 8, 7: 2}[bs]; every > 0 {
					some = nil
					for j, c := range cols {
						if j%every == li%every {
							some = append(some, c)
						}
					}
				}
				readCorpus(t, path, some, l.groups, bs)
			}
			for _, bs := range []int{7, 1000, 8192} {
				readCorpusLazy(t, path, cols, bs, uint64(li*10+bs))
			}
		})
	}
}

// refusesLZ4 reports whether the reader refuses the file for its LZ4_RAW compression (which it must
// refuse or read right: parquet-go v0.32.0 decompresses some LZ4_RAW pages wrong, silently). The
// refusal is an *UnsupportedError at Open, before any row: the scan then hands the file to Spark.
func refusesLZ4(t *testing.T, path string, cols []*corpusCol) bool {
	t.Helper()
	fs := make([]sparktype.Field, len(cols))
	for i, c := range cols {
		fs[i] = sparktype.Field{Name: c.name, Type: c.spark, Nullable: true}
	}
	mem := &countingAlloc{}
	r, err := Open(path, 0, math.MaxInt64, &ScanSpec{Columns: fs}, mem)
	if err == nil {
		var b *columnar.Batch
		for b, err = r.Next(); err == nil && b != nil; b, err = r.Next() {
			b.Release()
		}
		r.Close()
	}
	var unsupported *UnsupportedError
	if err != nil && !(errors.As(err, &unsupported) && strings.Contains(err.Error(), "LZ4_RAW")) {
		t.Fatal(err)
	}
	if live := mem.bytes.Load(); live != 0 {
		t.Errorf("%d bytes still allocated after the reader was closed", live)
	}
	if err != nil {
		t.Logf("refused: %v", err)
	}
	return err != nil
}

func TestCorpusLZ4Raw(t *testing.T) {
	var cols []*corpusCol
	for _, c := range corpusColumns(corpusRows, false) {
		if strings.Contains(c.name, "wide") { // poorly compressible: what parquet-go gets wrong
			cols = append(cols, c)
		}
	}
	l := corpusLayout{name: "lz4", v2: true, groups: corpusGroups}
	path := filepath.Join(t.TempDir(), "lz4.parquet")
	writeArrowCorpus(t, path, cols, l, compress.Codecs.Lz4Raw)
	if !refusesLZ4(t, path, cols) {
		readCorpus(t, path, cols, l.groups, 1000)
	}
}

// ---- arrow-go writer ---------------------------------------------------------------------------

func arrowTypeOf(k ckind) arrow.DataType {
	switch k {
	case kString:
		return arrow.BinaryTypes.String
	case kBinary:
		return arrow.BinaryTypes.Binary
	case kByte:
		return arrow.PrimitiveTypes.Int8
	case kShort:
		return arrow.PrimitiveTypes.Int16
	case kInt:
		return arrow.PrimitiveTypes.Int32
	case kLong:
		return arrow.PrimitiveTypes.Int64
	case kFloat:
		return arrow.PrimitiveTypes.Float32
	case kDouble:
		return arrow.PrimitiveTypes.Float64
	case kBool:
		return arrow.FixedWidthTypes.Boolean
	case kDec32, kDec64, kDecFLBA:
		t := kinds[k].spark
		return &arrow.Decimal128Type{Precision: t.Precision, Scale: t.Scale}
	case kDate:
		return arrow.FixedWidthTypes.Date32
	case kTsMicros:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case kTsMillis:
		return &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}
	}
	panic(k)
}

func appendArrow(b array.Builder, c *corpusCol, i int) {
	if !c.valid[i] {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(string(c.bins[i]))
	case *array.BinaryBuilder:
		b.Append(c.bins[i])
	case *array.Int8Builder:
		b.Append(int8(c.ints[i]))
	case *array.Int16Builder:
		b.Append(int16(c.ints[i]))
	case *array.Int32Builder:
		b.Append(int32(c.ints[i]))
	case *array.Int64Builder:
		b.Append(c.ints[i])
	case *array.Float32Builder:
		b.Append(float32(c.flts[i]))
	case *array.Float64Builder:
		b.Append(c.flts[i])
	case *array.BooleanBuilder:
		b.Append(c.bools[i])
	case *array.Decimal128Builder:
		b.Append(c.decs[i])
	case *array.Date32Builder:
		b.Append(arrow.Date32(c.ints[i]))
	case *array.TimestampBuilder:
		v := c.ints[i]
		if c.kind == kTsMillis {
			v /= 1000
		}
		b.Append(arrow.Timestamp(v))
	default:
		panic(fmt.Sprintf("%T", b))
	}
}

// arrowPageRows are the page lengths in rows of the tiny-page arrow-go layouts, in turn. arrow-go
// cuts pages by the size of the values only, so that a run of nulls never fills a page; these
// files cut them by rows (as parquet-mr's and arrow-rs's row count limits do), which gives
// null-only pages.
var arrowPageRows = []int{61, 1, 97, 13, 29}

// arrowBoolRLE: RLE booleans, as Arrow C++ and parquet-mr write them in v2 pages; not in files of
// many pages, as arrow-go v18.8.0 writes every RLE boolean page after a chunk's first one wrong
// (pyarrow reads them back wrong too).
func arrowBoolRLE(l corpusLayout) bool { return l.v2 && !l.tiny }

func writeArrowCorpus(t *testing.T, path string, cols []*corpusCol, l corpusLayout, codecs ...compress.Compression) {
	mem := memory.NewGoAllocator()
	afs := make([]arrow.Field, len(cols))
	for i, c := range cols {
		afs[i] = arrow.Field{Name: c.name, Type: arrowTypeOf(c.kind), Nullable: !c.required}
	}
	schema := arrow.NewSchema(afs, nil)
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for j, c := range cols {
		fb := b.Field(j)
		for i := range c.valid {
			appendArrow(fb, c, i)
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()

	version := aparquet.DataPageV1
	if l.v2 {
		version = aparquet.DataPageV2
	}
	codec := compress.Codecs.Uncompressed
	if l.snappy {
		codec = compress.Codecs.Snappy
	}
	if len(codecs) > 0 {
		codec = codecs[0]
	}
	opts := []aparquet.WriterProperty{
		aparquet.WithDictionaryDefault(l.dict), aparquet.WithDataPageVersion(version),
		aparquet.WithCompression(codec), aparquet.WithStoreDecimalAsInteger(true),
		aparquet.WithMaxRowGroupLength(corpusRows),
	}
	for _, c := range cols {
		if c.kind == kBool && arrowBoolRLE(l) {
			opts = append(opts, aparquet.WithEncodingFor(c.name, aparquet.Encodings.RLE))
		}
	}
	if l.fallback {
		opts = append(opts, aparquet.WithDictionaryPageSizeLimit(1024))
	} else if l.dict {
		// keep the dictionary that was asked for, even where plain would be smaller
		for _, c := range cols {
			opts = append(opts, aparquet.WithDictionaryCostFallbackFor(c.name, false))
		}
	}
	props := aparquet.NewWriterProperties(opts...)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !l.tiny {
		// pqarrow's own path: one row group per Write call
		w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			t.Fatal(err)
		}
		at := int64(0)
		for _, g := range l.groups {
			s := rec.NewSlice(at, at+int64(g))
			err := w.Write(s)
			s.Release()
			if err != nil {
				t.Fatal(err)
			}
			at += int64(g)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return
	}
	// the column writers underneath, with a page cut after each slice
	sc, err := pqarrow.ToParquet(schema, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	fw := file.NewParquetWriter(f, sc.Root(), file.WithWriterProps(props))
	ctx := pqarrow.NewArrowWriteContext(context.Background(), nil)
	def := make([]int16, corpusRows)
	at := 0
	for _, g := range l.groups {
		rgw := fw.AppendRowGroup()
		for j, c := range cols {
			cw, err := rgw.NextColumn()
			if err != nil {
				t.Fatal(err)
			}
			for p, lo := 0, at; lo < at+g; p++ {
				hi := min(lo+arrowPageRows[p%len(arrowPageRows)], at+g)
				var lv []int16
				if !c.required {
					lv = def[:hi-lo]
					for i := range lv {
						lv[i] = 0
						if c.valid[lo+i] {
							lv[i] = 1
						}
					}
				}
				s := array.NewSlice(rec.Column(j), int64(lo), int64(hi))
				err := pqarrow.WriteArrowToColumn(ctx, cw, s, lv, nil, !c.required)
				s.Release()
				if err != nil {
					t.Fatal(err)
				}
				if err := cw.(interface{ FlushCurrentPage() error }).FlushCurrentPage(); err != nil {
					t.Fatal(err)
				}
				lo = hi
			}
		}
		if err := rgw.Close(); err != nil {
			t.Fatal(err)
		}
		at += g
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCorpusArrowGo(t *testing.T) {
	cols := corpusColumns(corpusRows, false)
	runCorpus(t, cols, fallbackV1, arrowBoolRLE, func(t *testing.T, path string, l corpusLayout) { writeArrowCorpus(t, path, cols, l) })
}

// ---- parquet-go writer -----------------------------------------------------------------------

func pqNode(k ckind) pq.Node {
	switch k {
	case kString:
		return pq.String()
	case kBinary:
		return pq.Leaf(pq.ByteArrayType)
	case kByte:
		return pq.Int(8)
	case kShort:
		return pq.Int(16)
	case kInt:
		return pq.Int(32)
	case kLong:
		return pq.Int(64)
	case kFloat:
		return pq.Leaf(pq.FloatType)
	case kDouble:
		return pq.Leaf(pq.DoubleType)
	case kBool:
		return pq.Leaf(pq.BooleanType)
	case kDec32:
		return pq.Decimal(2, 9, pq.Int32Type)
	case kDec64:
		return pq.Decimal(3, 18, pq.Int64Type)
	case kDecFLBA:
		return pq.Decimal(4, 30, pq.FixedLenByteArrayType(13))
	case kDecBA:
		return pq.Decimal(2, 25, pq.ByteArrayType)
	case kDate:
		return pq.Date()
	case kTsMicros:
		return pq.Timestamp(pq.Microsecond)
	case kTsMillis:
		return pq.Timestamp(pq.Millisecond)
	}
	panic(k)
}

func pqValue(c *corpusCol, i int) pq.Value {
	if !c.valid[i] {
		return pq.NullValue()
	}
	switch c.kind {
	case kString, kBinary:
		return pq.ByteArrayValue(c.bins[i])
	case kByte, kShort, kInt, kDate:
		return pq.Int32Value(int32(c.ints[i]))
	case kLong, kTsMicros:
		return pq.Int64Value(c.ints[i])
	case kTsMillis:
		return pq.Int64Value(c.ints[i] / 1000)
	case kFloat:
		return pq.FloatValue(float32(c.flts[i]))
	case kDouble:
		return pq.DoubleValue(c.flts[i])
	case kBool:
		return pq.BooleanValue(c.bools[i])
	case kDec32:
		return pq.Int32Value(int32(c.decs[i].LowBits()))
	case kDec64:
		return pq.Int64Value(int64(c.decs[i].LowBits()))
	case kDecFLBA:
		return pq.FixedLenByteArrayValue(beBytes(c.decs[i], 13))
	case kDecBA:
		return pq.ByteArrayValue(minimalBE(c.decs[i]))
	}
	panic(c.kind)
}

// pqgoBoolRLE: RLE booleans in the v2 layouts without dictionary. parquet-go writes RLE runs of
// whole bytes of 0x00 or 0xff (the spec has one byte of 0 or 1), which the reader must take too.
func pqgoBoolRLE(l corpusLayout) bool { return l.v2 && !l.dict }

func writeParquetGoCorpus(t *testing.T, path string, cols []*corpusCol, l corpusLayout) {
	g := pq.Group{}
	for _, c := range cols {
		var n pq.Node = pqNode(c.kind)
		switch {
		case l.dict:
			n = pq.Encoded(n, &pq.RLEDictionary)
		case c.kind == kBool && pqgoBoolRLE(l):
			n = pq.Encoded(n, &pq.RLE)
		default:
			n = pq.Encoded(n, &pq.Plain)
		}
		if c.required {
			n = pq.Required(n)
		} else {
			n = pq.Optional(n)
		}
		g[c.name] = n
	}
	schema := pq.NewSchema("spark_schema", g)
	idx := make([]int, len(cols))
	for i, c := range cols {
		lc, ok := schema.Lookup(c.name)
		if !ok {
			t.Fatalf("no column %s", c.name)
		}
		idx[i] = lc.ColumnIndex
	}
	version := 1
	if l.v2 {
		version = 2
	}
	codec := pq.Compression(&pq.Uncompressed)
	if l.snappy {
		codec = pq.Compression(&pq.Snappy)
	}
	opts := []pq.WriterOption{schema, pq.DataPageVersion(version), codec,
		pq.MaxRowsPerRowGroup(corpusRows + 1)}
	if l.tiny {
		opts = append(opts, pq.PageBufferSize(256))
	} else {
		opts = append(opts, pq.PageBufferSize(256<<10))
	}
	if l.fallback {
		opts = append(opts, pq.DictionaryMaxBytes(1024))
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := pq.NewWriter(f, opts...)
	at := 0
	for _, n := range l.groups {
		rows := make([]pq.Row, 0, n)
		for r := at; r < at+n; r++ {
			row := make(pq.Row, len(cols))
			for i, c := range cols {
				def := 0
				if !c.required && c.valid[r] {
					def = 1
				}
				row[idx[i]] = pqValue(c, r).Level(0, def, idx[i])
			}
			rows = append(rows, row)
		}
		// parquet-go checks the page size between writes: small writes make small pages
		for len(rows) > 0 {
			k := min(len(rows), 16)
			if _, err := w.WriteRows(rows[:k]); err != nil {
				t.Fatal(err)
			}
			rows = rows[k:]
		}
		if err := w.Flush(); err != nil { // ends the row group
			t.Fatal(err)
		}
		at += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestCorpusParquetGo(t *testing.T) {
	cols := corpusColumns(corpusRows, true)
	runCorpus(t, cols, fallbackV2, pqgoBoolRLE, func(t *testing.T, path string, l corpusLayout) { writeParquetGoCorpus(t, path, cols, l) })
}

// ---- pyarrow corpus --------------------------------------------------------------------------

// pyFile is the expected-values JSON that scripts/parquet-corpus.py writes beside each file,
// built from the Python data (not read back from the file).
type pyFile struct {
	Parquet   string     `json:"parquet"`
	Rows      int        `json:"rows"`
	RowGroups []int      `json:"row_groups"`
	Layout    pyLayout   `json:"layout"`
	Columns   []pyColumn `json:"columns"`
}

// pyLayout is how the file was written (the JSON has more, such as pyarrow's own options).
type pyLayout struct {
	Name        string `json:"name"`
	Dict        bool   `json:"dict"`
	V2          bool   `json:"v2"`
	Tiny        bool   `json:"tiny"`
	Compression string `json:"compression"`
	Delta       bool   `json:"delta"`
	Pyarrow     string `json:"pyarrow"`
}

// check checks that pyarrow did what the layout asks for.
func (l pyLayout) check(t *testing.T, ff fileFacts) {
	t.Helper()
	codec, ok := map[string]format.CompressionCodec{"none": format.Uncompressed, "snappy": format.Snappy,
		"gzip": format.Gzip, "brotli": format.Brotli, "zstd": format.Zstd, "lz4": format.Lz4Raw}[l.Compression]
	if !ok || len(ff.codecs) != 1 || ff.codecs[codec] == 0 {
		t.Fatalf("codecs %v, want only %s", ff.codecs, l.Compression)
	}
	want := format.DataPage
	if l.V2 {
		want = format.DataPageV2
	}
	if ff.pageTypes[want] == 0 || ff.pageTypes[format.DataPage]+ff.pageTypes[format.DataPageV2] != ff.pageTypes[want] {
		t.Fatalf("page types %v, want data pages of type %v", ff.pageTypes, want)
	}
	dict, most, delta := 0, 0, 0
	for _, n := range ff.dictPages {
		dict += n
	}
	for name, n := range ff.maxPages {
		most = max(most, n)
		for _, e := range []format.Encoding{format.DeltaBinaryPacked, format.DeltaByteArray,
			format.DeltaLengthByteArray, format.ByteStreamSplit} {
			delta += ff.encodings[name][e]
		}
	}
	switch {
	case l.Dict != (dict > 0):
		t.Fatalf("%d dictionary-encoded pages, dictionary %v", dict, l.Dict)
	case l.Tiny && most < 6:
		t.Fatalf("tiny pages, but at most %d pages in a chunk", most)
	case l.Delta && delta == 0:
		t.Fatalf("no DELTA or BYTE_STREAM_SPLIT pages")
	}
}

// pyColumn values: null; strings as JSON strings; binary as hex; integers, dates (days) and
// timestamps (microseconds) as numbers; float and double as their IEEE bits (a number); decimals
// as the unscaled integer in a string.
type pyColumn struct {
	Name   string          `json:"name"`
	Type   json.RawMessage `json:"type"` // Spark's type name
	Values []any           `json:"values"`
}

func loadPyFile(t *testing.T, path string) (*pyFile, []*corpusCol) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	dec.UseNumber()
	var pf pyFile
	if err := dec.Decode(&pf); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n := 0
	for _, g := range pf.RowGroups {
		n += g
	}
	if n != pf.Rows {
		t.Fatalf("%s: row groups %v do not add up to %d rows", path, pf.RowGroups, pf.Rows)
	}
	cols := make([]*corpusCol, len(pf.Columns))
	for j, pc := range pf.Columns {
		st, err := sparktype.Parse(pc.Type)
		if err != nil || !st.Supported() {
			t.Fatalf("%s column %s: type %s: %v", path, pc.Name, pc.Type, err)
		}
		if len(pc.Values) != n {
			t.Fatalf("%s column %s: %d values for %d rows", path, pc.Name, len(pc.Values), n)
		}
		c := newCorpusCol(pc.Name, st, n)
		for i, v := range pc.Values {
			if v == nil {
				continue
			}
			c.valid[i] = true
			if err := c.setJSON(i, v); err != nil {
				t.Fatalf("%s column %s row %d: %v", path, pc.Name, i, err)
			}
		}
		cols[j] = c
	}
	return &pf, cols
}

func (c *corpusCol) setJSON(i int, v any) error {
	num := func() (json.Number, error) {
		if n, ok := v.(json.Number); ok {
			return n, nil
		}
		return "", fmt.Errorf("%v (%T) is not a number", v, v)
	}
	switch c.spark.Kind {
	case sparktype.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%v (%T) is not a string", v, v)
		}
		c.bins[i] = []byte(s)
	case sparktype.Binary:
		s, _ := v.(string)
		b, err := hexBytes(s)
		if err != nil {
			return err
		}
		c.bins[i] = b
	case sparktype.Boolean:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("%v (%T) is not a boolean", v, v)
		}
		c.bools[i] = b
	case sparktype.Float, sparktype.Double:
		n, err := num()
		if err != nil {
			return err
		}
		bits, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil {
			return err
		}
		if c.spark.Kind == sparktype.Float {
			c.flts[i] = float64(math.Float32frombits(uint32(bits)))
		} else {
			c.flts[i] = math.Float64frombits(bits)
		}
	case sparktype.Decimal:
		s, _ := v.(string)
		b, ok := new(big.Int).SetString(s, 10)
		if !ok {
			return fmt.Errorf("%q is not an integer", s)
		}
		d := decimal128.FromBigInt(b)
		if d.BigInt().Cmp(b) != 0 {
			return fmt.Errorf("%s does not fit in 128 bits", s)
		}
		c.decs[i] = d
	default:
		n, err := num()
		if err != nil {
			return err
		}
		x, err := n.Int64()
		if err != nil {
			return err
		}
		c.ints[i] = x
	}
	return nil
}

func hexBytes(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, fmt.Errorf("odd hex %q", s)
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		x, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		b[i] = byte(x)
	}
	return b, nil
}

// TestCorpusPyarrow reads the files scripts/parquet-corpus.py wrote into $BOLIDE_PARQUET_CORPUS.
func TestCorpusPyarrow(t *testing.T) {
	dir := os.Getenv("BOLIDE_PARQUET_CORPUS")
	if dir == "" {
		t.Skip("BOLIDE_PARQUET_CORPUS is not set: run scripts/parquet-corpus.sh (it writes the pyarrow corpus " +
			"and runs this test), or `python3 scripts/parquet-corpus.py DIR` then " +
			"`BOLIDE_PARQUET_CORPUS=DIR go test -run Corpus ./parquet`")
	}
	specs, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) == 0 {
		t.Fatalf("no *.json expected-values files in %s", dir)
	}
	for _, spec := range specs {
		t.Run(strings.TrimSuffix(filepath.Base(spec), ".json"), func(t *testing.T) {
			t.Parallel()
			pf, cols := loadPyFile(t, spec)
			path := filepath.Join(dir, pf.Parquet)
			ff := inspect(t, path, cols)
			if fmt.Sprint(ff.groups) != fmt.Sprint(pf.RowGroups) {
				t.Fatalf("row groups %v, the JSON says %v", ff.groups, pf.RowGroups)
			}
			pf.Layout.check(t, ff)
			if pf.Layout.Compression == "lz4" && refusesLZ4(t, path, cols) {
				return
			}
			t.Logf("pyarrow %s, %s: %d data pages (%d without values, %d of them between pages with values), %d null column chunks",
				pf.Layout.Pyarrow, pf.Layout.Name, ff.pageTypes[format.DataPage]+ff.pageTypes[format.DataPageV2], ff.nullOnly, ff.nullOnlyMid, ff.nullGroups)
			for _, bs := range corpusBatchSizes {
				if bs == 1 && pf.Rows > 20000 {
					continue // a big file one row at a time takes too long; 7 cuts its pages anyway
				}
				readCorpus(t, path, cols, pf.RowGroups, bs)
			}
			for _, bs := range []int{7, 1000, 8192} {
				if bs == 7 && pf.Rows > 20000 {
					continue
				}
				readCorpusLazy(t, path, cols, bs, uint64(bs))
			}
		})
	}
}
