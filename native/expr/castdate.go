package expr

import (
	"fmt"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/plan"
)

// Casts between strings and dates.
//
// String to date is SparkDateTimeUtils.stringToDate: bytes 0x00-0x20 and 0x7F trimmed, an
// optional sign, then yyyy (4 to 7 digits), yyyy-[m]m or yyyy-[m]m-[d]d; after a complete day a
// ' ' or 'T' ends the date and anything may follow; the fields must make a valid
// LocalDate whose epoch day fits an int. Anything else is null, or CAST_INVALID_INPUT in ANSI
// mode (TRY casts to dates are LEGACY casts in Spark).
//
// Date to string is the default DateFormatter (Iso8601DateFormatter, "yyyy-MM-dd" with 'u'
// years): at least 4 digits, a '-' before years < 0 and a '+' before years > 9999. With
// spark.sql.legacy.timeParserPolicy=LEGACY Spark formats with SimpleDateFormat on the hybrid
// Julian calendar: refused.

// parseSparkDate is stringToDate: the epoch day, or ok false.
func parseSparkDate(s []byte) (int32, bool) {
	s = trimSpark(s)
	if len(s) == 0 {
		return 0, false
	}
	sign := int64(1)
	j := 0
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = -1
		}
		j++
	}
	seg := [3]int64{1, 1, 1}
	i := 0
	var cur int64
	digits := 0
	valid := func(seg, digits int) bool {
		if seg == 0 {
			return digits >= 4 && digits <= 7
		}
		return digits > 0 && digits <= 2
	}
	for j < len(s) && s[j] != ' ' && s[j] != 'T' {
		b := s[j]
		if i < 2 && b == '-' {
			if !valid(i, digits) {
				return 0, false
			}
			seg[i] = cur
			cur, digits = 0, 0
			i++
		} else {
			if b < '0' || b > '9' {
				return 0, false
			}
			cur = cur*10 + int64(b-'0') // at most 7 digits are kept: no overflow
			digits++
			if digits > 7 {
				return 0, false // no segment takes more; Java's int would not overflow either
			}
		}
		j++
	}
	if !valid(i, digits) {
		return 0, false
	}
	if i < 2 && j < len(s) {
		return 0, false // yyyy and yyyy-[m]m must take the whole string
	}
	seg[i] = cur
	y, m, d := sign*seg[0], seg[1], seg[2]
	if m < 1 || m > 12 || d < 1 || d > int64(lengthOfMonth64(y, int32(m))) {
		return 0, false // LocalDate.of throws
	}
	days := daysFromCivil(y, int32(m), int32(d))
	if days != int64(int32(days)) {
		return 0, false // localDateToDays: Math.toIntExact throws
	}
	return int32(days), true
}

func castStringToDate(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	offs, data := binaryParts(in)
	obuf, out := newFixed[int32](k.alloc, k.n)
	for i := range out {
		out[i] = 0
		if !k.rowValid(i) {
			continue
		}
		s := data[offs[i]:offs[i+1]]
		if v, ok := parseSparkDate(s); ok {
			out[i] = v
			continue
		}
		if err := c.rejectString(k, i, s); err != nil {
			obuf.Release()
			return nil, err
		}
	}
	return finish(arrow.FixedWidthTypes.Date32, k.n, k.vbuf, obuf, k.nulls), nil
}

// legacyTimeParser says why date and timestamp formatting cannot be native under conf.
func legacyTimeParser(conf *plan.Conf) string {
	if conf != nil && strings.EqualFold(conf.Settings["spark.sql.legacy.timeParserPolicy"], "LEGACY") {
		return "spark.sql.legacy.timeParserPolicy=LEGACY formats dates with SimpleDateFormat on the hybrid calendar"
	}
	return ""
}

// appendDate appends the default DateFormatter's text of an epoch day.
func appendDate(dst []byte, days int32) []byte {
	y, m, d := civilFromDays(days)
	switch {
	case y > 9999:
		dst = append(dst, '+')
	case y < 0:
		dst = append(dst, '-')
	}
	ay := int64(y)
	if ay < 0 {
		ay = -ay
	}
	if ay < 1000 {
		dst = append(dst, byte('0'+ay/1000), byte('0'+ay/100%10), byte('0'+ay/10%10), byte('0'+ay%10))
	} else {
		dst = appendUint(dst, uint64(ay))
	}
	return append(dst, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
}

func appendUint(dst []byte, v uint64) []byte {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}

func castDateToString(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
	days := values[int32](in)
	return buildStrings(k, func(dst []byte, i int) []byte { return appendDate(dst, days[i]) }, 10)
}

// buildStrings builds a string column of k.n rows: row i is the bytes appendRow appends to a
// scratch slice (null rows are empty). perRow is a guess of the bytes per row.
func buildStrings(k *kernelArgs, appendRow func(dst []byte, i int) []byte, perRow int) (arrow.Array, error) {
	offBuf, offs := newFixed[int32](k.alloc, k.n+1)
	dataBuf := memory.NewResizableBuffer(k.alloc)
	dataBuf.Reserve(max(k.n*perRow, 64))
	// The buffer owns len(Buf()) bytes; the slice's capacity may be larger (pooled memory), and
	// bytes past len(Buf()) are cleared when the buffer grows: never write there.
	data := dataBuf.Buf()[:0:len(dataBuf.Buf())]
	var scratch [64]byte
	offs[0] = 0
	for i := 0; i < k.n; i++ {
		if k.rowValid(i) {
			row := appendRow(scratch[:0], i)
			if len(data)+len(row) > cap(data) {
				if len(data)+len(row) > math.MaxInt32 {
					offBuf.Release()
					dataBuf.Release()
					return nil, fmt.Errorf("cast to string: result exceeds %d bytes in one batch", math.MaxInt32)
				}
				dataBuf.Reserve(max(2*cap(data), len(data)+len(row))) // keeps the bytes written
				data = dataBuf.Buf()[:len(data):len(dataBuf.Buf())]
			}
			data = append(data, row...)
		}
		offs[i+1] = int32(len(data))
	}
	dataBuf.ResizeNoShrink(len(data))
	return finishBytes(arrow.BinaryTypes.String, k.n, k.vbuf, k.nulls, offBuf, dataBuf), nil
}
