package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"slices"
	"testing"

	pq "github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// dataPages returns the file offset of each data page's values (after its header) in the file's
// first column chunk, with the page's row count.
func dataPages(t *testing.T, data []byte) (offs []int, rows []int) {
	t.Helper()
	f, err := pq.OpenFile(bytesReaderAt(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, rg := range f.Metadata().RowGroups {
		md := rg.Columns[0].MetaData
		off := md.DataPageOffset
		if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
			off = md.DictionaryPageOffset
		}
		for end := off + md.TotalCompressedSize; off < end; {
			var h format.PageHeader
			rd := (&thrift.CompactProtocol{}).NewReaderFromBytes(data[off:])
			if err := thrift.NewDecoder(rd).Decode(&h); err != nil {
				t.Fatal(err)
			}
			hl := int64(rd.(interface{ BytesRead() int }).BytesRead())
			switch h.Type {
			case format.DataPage:
				offs = append(offs, int(off+hl))
				rows = append(rows, int(h.DataPageHeader.V.NumValues))
			case format.DataPageV2:
				v2 := &h.DataPageHeaderV2.V
				offs = append(offs, int(off+hl)+int(v2.DefinitionLevelsByteLength+v2.RepetitionLevelsByteLength))
				rows = append(rows, int(v2.NumRows))
			}
			off += hl + int64(h.CompressedPageSize)
		}
	}
	return offs, rows
}

type bytesReaderAt []byte

func (b bytesReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off >= int64(len(b)) {
		return 0, errors.New("EOF")
	}
	n := copy(p, b[off:])
	return n, nil
}

// A dictionary code past its dictionary fails the read as corrupt, whether the batch's codes are
// a view of one page's (the batch within a page) or copied from several (a batch across pages),
// and whether the column is read as codes or as values.
func TestCodesOutOfRange(t *testing.T) {
	const n = 3000
	cols := []tcol{{name: "k", node: pq.Encoded(pq.Required(pq.Leaf(pq.Int64Type)), &pq.RLEDictionary),
		gen: func(i int) (pq.Value, any) { return pq.Int64Value(int64(i % 5)), int64(i % 5) }}}
	for _, version := range []int{1, 2} {
		codesOutOfRange(t, writeFile(t, cols, n, pq.PageBufferSize(512), pq.MaxRowsPerRowGroup(n), pq.DataPageVersion(version)), n)
	}
}

func codesOutOfRange(t *testing.T, path string, n int) {
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	offs, rows := dataPages(t, clean)
	if len(offs) < 3 {
		t.Helper()
		t.Fatalf("%d data pages", len(offs))
	}
	spec := &ScanSpec{Columns: []sparktype.Field{{Name: "k", Type: sparktype.Type{Kind: sparktype.Long}, Nullable: false}}}
	for _, page := range []int{0, 1, len(offs) - 1} {
		// The page's values: the codes' bit width (3 for 5 entries), then runs; the first run
		// bit-packed (the values cycle), whose bytes become all ones: codes of 7.
		data := append([]byte(nil), clean...)
		at := offs[page]
		if data[at] != 3 || data[at+1]&1 != 1 {
			t.Fatalf("page %d: bit width %d, run header %#x", page, data[at], data[at+1])
		}
		groups := int(data[at+1] >> 1) // a one-byte run header: fewer than 64 groups of 8
		for i := 0; i < groups*3; i++ {
			data[at+2+i] = 0xFF
		}
		bad := path + ".bad"
		if err := os.WriteFile(bad, data, 0o644); err != nil {
			t.Fatal(err)
		}
		first := 0
		for _, r := range rows[:page] {
			first += r
		}
		for _, batch := range []int{rows[page], 7, 1000, n} {
			for _, coded := range []bool{true, false} {
				r, err := Open(bad, 0, math.MaxInt64, &ScanSpec{Columns: spec.Columns, BatchSize: batch}, checkedAlloc(t))
				if err != nil {
					t.Fatal(err)
				}
				var rerr error
				for rerr == nil {
					lb, err := r.NextLazy()
					if err != nil {
						rerr = err
						break
					}
					if lb == nil {
						break
					}
					if coded {
						_, _, _, rerr = lb.Codes(0)
					} else {
						var a interface{ Release() }
						a, rerr = lb.Column(0)
						if a != nil {
							a.Release()
						}
					}
					lb.Release()
				}
				r.Close()
				if !errors.Is(rerr, pq.ErrCorrupted) {
					t.Errorf("page %d (rows from %d), batch %d, codes %v: %v, want a corrupt file", page, first, batch, coded, rerr)
				}
			}
		}
	}
}

// A BYTE_ARRAY dictionary decodes to what parquet-go's PLAIN decoder gives (values packed,
// offsets from 0), values of every length around copyShort's 16 and 32 bytes included, reusing
// its buffers from page to page; a length past the page's end fails as corrupt.
func TestByteArrayDictionary(t *testing.T) {
	p := &pageReader{leaf: &leafInfo{phys: format.ByteArray}}
	var val []byte
	var off []uint32
	for seed := range 40 {
		var page []byte
		for i := 0; i < seed*7; i++ {
			n := (i*31 + seed) % 70
			page = binary.LittleEndian.AppendUint32(page, uint32(n))
			for k := 0; k < n; k++ {
				page = append(page, byte(i+k))
			}
		}
		got, err := p.plain(page, &val, &off, false)
		if err != nil {
			t.Fatal(err)
		}
		wv, wo, err := pq.LookupEncoding(format.Plain).DecodeByteArray(nil, page, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.n != len(wo)-1 || !bytes.Equal(got.data, wv) || !slices.Equal(got.offsets, wo) {
			t.Fatalf("seed %d: %d values %q %v, want %q %v", seed, got.n, got.data, got.offsets, wv, wo)
		}
		if len(page) > 8 {
			bad := slices.Clone(page)
			binary.LittleEndian.PutUint32(bad, uint32(len(page)))
			if _, err := p.plain(bad, &val, &off, false); !errors.Is(err, pq.ErrCorrupted) {
				t.Fatalf("seed %d: a length past the page: %v", seed, err)
			}
		}
	}
}
