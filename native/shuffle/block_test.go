package shuffle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/big"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/columnar/coltest"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// writeSingle writes rows into one partition and returns its bytes.
func writeSingle(t testing.TB, types []sparktype.Type, rows [][]any, opts WriterOptions) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	src := coltest.NewSource(t, rng, types, rows, 200)
	defer src.Release()
	ctx := coltest.NewCtx(4096)
	defer ctx.Alloc.ReleaseAll()
	path := tempPath(t)
	if _, err := Write(ctx, src, NewSinglePartitioner(), opts, path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// firstFrame returns a copy of the first frame of data.
func firstFrame(data []byte) []byte {
	n := FrameLengthSize + int(binary.LittleEndian.Uint32(data))
	return bytes.Clone(data[:n])
}

func resum(frame []byte) []byte {
	binary.LittleEndian.PutUint32(frame[offCRC:], frameCRC(frame))
	return frame
}

func TestCorruptFramesAreErrors(t *testing.T) {
	types := coltest.Types(t, "long", "string", "decimal(38,6)")
	rng := rand.New(rand.NewPCG(31, 31))
	rows := coltest.GenRows(rng, types, 500, 0.1, genValue)
	fields := coltest.Fields(types)
	good := map[Codec][]byte{}
	for _, c := range allCodecs {
		good[c] = writeSingle(t, types, rows, WriterOptions{Codec: c, BlockRows: 100})
	}
	lz4 := firstFrame(good[CodecLZ4])
	mod := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(lz4)) }
	for _, tc := range []struct {
		name   string
		data   []byte
		fields []sparktype.Field
		want   string
	}{
		{"bad magic", mod(func(b []byte) []byte { b[4] = 'X'; return b }), fields, "bad magic"},
		{"garbage", append([]byte{8, 0, 0, 0}, "abcdefgh"...), fields, "shorter than the 26-byte block header"},
		{"truncated", lz4[:len(lz4)-10], fields, "length prefix says"},
		{"short prefix", lz4[:3], fields, "stream ends inside a length prefix"},
		{"flipped payload byte", mod(func(b []byte) []byte { b[len(b)/2] ^= 1; return b }), fields, "checksum mismatch"},
		{"flipped header byte", mod(func(b []byte) []byte { b[offRows] ^= 1; return b }), fields, "checksum mismatch"},
		{"version", mod(func(b []byte) []byte { b[offVersion] = 9; return resum(b) }), fields, "format version 9"},
		{"codec", mod(func(b []byte) []byte { b[offCodec] = 9; return resum(b) }), fields, "unknown codec 9"},
		{"raw length", mod(func(b []byte) []byte { b[offRawLen]++; return resum(b) }), fields, "lz4"},
		{"row count", mod(func(b []byte) []byte { b[offRows]++; return resum(b) }), fields, "for 101 rows"},
		{"fewer columns", lz4, fields[:2], "block has 3 columns, the reader's schema (long, string) has 2"},
		{"other types", lz4, coltest.Fields(coltest.Types(t, "long", "binary", "decimal(38,6)")), "fingerprint"},
		{"other decimal", lz4, coltest.Fields(coltest.Types(t, "long", "string", "decimal(38,5)")), "fingerprint"},
		{"second frame truncated", append(bytes.Clone(lz4), lz4[:40]...), fields, "frame 1 (40 bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readAll(t, tc.fields, tc.data, 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "shuffle read: frame ") {
				t.Errorf("error does not name the frame: %v", err)
			}
		})
	}
	// Garbage in place of each codec's payload, with a valid checksum: the codec must fail.
	for _, c := range []Codec{CodecLZ4, CodecZstd, CodecSnappy} {
		f := firstFrame(good[c])
		for i := headerSize; i < len(f); i++ {
			f[i] = byte(i*7 + 3)
		}
		if _, _, err := readAll(t, fields, resum(f), 0); err == nil {
			t.Errorf("%s: garbage payload decoded", c)
		} else if !strings.Contains(err.Error(), "decompress") && !strings.Contains(err.Error(), c.String()) {
			t.Errorf("%s: %v", c, err)
		}
	}
	// A stored payload that is not a block's.
	f := firstFrame(good[CodecNone])
	for i := headerSize; i < len(f); i++ {
		f[i] = 0x5a
	}
	if _, _, err := readAll(t, fields, resum(f), 0); err == nil || !strings.Contains(err.Error(), "column 0 (c0 long): metadata at byte 0: encoding 90") {
		t.Errorf("garbage payload: %v", err)
	}
	// The source's own error.
	boom := errors.New("fetch failed")
	ctx := coltest.NewCtx(64)
	defer ctx.Alloc.ReleaseAll()
	r := NewReader(fields, &frames{data: good[CodecLZ4], err: boom}, 0)
	if err := r.Open(ctx); err != nil {
		t.Fatal(err)
	}
	var err error
	for err == nil {
		var b *columnar.Batch
		if b, err = r.Next(); b != nil {
			b.Release()
		} else if err == nil {
			t.Fatal("end of stream instead of the source's error")
		}
	}
	if !errors.Is(err, boom) {
		t.Errorf("source error: %v", err)
	}
	r.Close()
	if ctx.Alloc.Used() != 0 {
		t.Errorf("%d bytes held", ctx.Alloc.Used())
	}
}

// TestMutatedBlocksNeverPanic flips bytes of stored (uncompressed) blocks, metadata and streams,
// with a valid checksum: decoding must return an error or a batch, never panic or leak (memtest).
// Random values (plain and wide integer streams, strings) and shaped ones (delta and narrow
// streams, a dictionary, an all-null column).
func TestMutatedBlocksNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 32))
	random := coltest.Types(t, "integer", "string", "boolean", "decimal(10,2)")
	shaped := coltest.Types(t, "long", "string", "date", "decimal(15,2)", "string")
	shapedRows := make([][]any, 60)
	for i := range shapedRows {
		var null any
		if i%9 == 4 {
			null = "x"
		}
		shapedRows[i] = []any{int64(1000 + 7*i + rng.IntN(3)), []string{"MAIL", "SHIP", "AIR"}[rng.IntN(3)],
			int64(9000 + rng.IntN(300)), big.NewInt(int64(rng.IntN(100000))), null}
	}
	for _, tc := range []struct {
		types []sparktype.Type
		rows  [][]any
	}{
		{random, coltest.GenRows(rng, random, 60, 0.3, genValue)},
		{shaped, shapedRows},
	} {
		data := writeSingle(t, tc.types, tc.rows, WriterOptions{Codec: CodecNone, BlockRows: 60})
		frame := firstFrame(data)
		fields := coltest.Fields(tc.types)
		errs := 0
		for range 3000 {
			f := bytes.Clone(frame)
			for range 1 + rng.IntN(3) {
				i := headerSize + rng.IntN(len(f)-headerSize)
				switch rng.IntN(3) {
				case 0:
					f[i] ^= 1 << rng.IntN(8)
				case 1:
					f[i] = 0xff
				default:
					f[i] = byte(rng.IntN(256))
				}
			}
			if _, _, err := readAll(t, fields, resum(f), 0); err != nil {
				errs++
			}
		}
		if errs == 0 {
			t.Error("no mutation was detected")
		}
		t.Logf("%d columns: %d of 3000 mutations detected", len(tc.types), errs)
	}
}
