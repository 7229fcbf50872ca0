package parquet

import (
	"testing"

	pq "github.com/parquet-go/parquet-go"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// BenchmarkReadDictStrings reads 1M rows of dictionary-encoded strings shaped like TPC-H
// lineitem's (uncompressed, so that the expansion of the codes is what is measured):
// l_shipinstruct (4 values, up to 17 bytes), l_shipmode (7 values, up to 7 bytes), and the
// latter with a null in every 10 rows.
func BenchmarkReadDictStrings(b *testing.B) {
	instr := []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes := []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	pick := func(vals []string, every int) func(int) (pq.Value, any) {
		return func(i int) (pq.Value, any) {
			if isNull(i, every) {
				return pq.NullValue(), nil
			}
			s := vals[int(mix64(uint64(i))%uint64(len(vals)))]
			return pq.ByteArrayValue([]byte(s)), s
		}
	}
	cols := []tcol{
		{"instruct", pq.Optional(enc(pq.String(), &pq.RLEDictionary)), sparktype.StringType, pick(instr, 0)},
		{"mode", pq.Optional(enc(pq.String(), &pq.RLEDictionary)), sparktype.StringType, pick(modes, 0)},
		{"mode_nulls", pq.Optional(enc(pq.String(), &pq.RLEDictionary)), sparktype.StringType, pick(modes, 10)},
	}
	path := writeFile(b, cols, benchRows, pq.MaxRowsPerRowGroup(1<<17))
	for _, c := range cols {
		b.Run(c.name, func(b *testing.B) {
			benchReadWith(b, path, []sparktype.Field{{Name: c.name, Type: c.spark, Nullable: true}}, false)
		})
	}
}
