package parquet

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go/format"
)

// Iceberg's uuid columns are FIXED_LEN_BYTE_ARRAY(16) with the UUID annotation; Iceberg's Spark
// reader gives them to Spark as strings in the canonical lower-case 8-4-4-4-12 form. Only scans
// by field id (Iceberg's) read them so: Spark's own Parquet reader does not.

var uuidAnnotation = (&format.UUIDType{}).String()

func isUUID(l *leafInfo) bool {
	return l.phys == format.FixedLenByteArray && l.typeLen == 16 && l.logical == lOther && l.annotStr == uuidAnnotation
}

// uuidDecoder reads the 16 bytes of each value with the binary decoder, then formats them.
type uuidDecoder struct{ raw bytesDecoder }

func (d *uuidDecoder) release() { d.raw.release() }

const hexDigits = "0123456789abcdef"

func (d *uuidDecoder) read(c *cursor, n int, mem memory.Allocator) (arrow.Array, error) {
	a, err := d.raw.read(c, n, mem)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	bin := a.(*array.Binary)
	ob := newBuffer(mem, (n+1)*4)
	offs := viewAs[int32](ob.Bytes(), n+1)
	db := newBuffer(mem, 36*(n-bin.NullN()))
	out := db.Bytes()
	pos := 0
	for i := 0; i < n; i++ {
		offs[i] = int32(pos)
		if bin.IsNull(i) {
			continue
		}
		v := bin.Value(i)
		for j, b := range v {
			if j == 4 || j == 6 || j == 8 || j == 10 {
				out[pos] = '-'
				pos++
			}
			out[pos], out[pos+1] = hexDigits[b>>4], hexDigits[b&15]
			pos += 2
		}
	}
	offs[n] = int32(pos)
	var valid *memory.Buffer
	if bin.NullN() > 0 {
		valid = bin.Data().Buffers()[0]
		valid.Retain()
	}
	return makeArray(arrow.BinaryTypes.String, n, bin.NullN(), valid, ob, db), nil
}
