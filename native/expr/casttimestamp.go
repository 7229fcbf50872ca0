package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// Casts of timestamps to strings, after ToStringBase: TimestampFormatter.getFractionFormatter
// of the cast's time zone (TIMESTAMP) or UTC (TIMESTAMP_NTZ), that is java.time's ISO local date
// (a 4-digit year at least, '-' before negative years, '+' after 9999), ' ', HH:mm:ss, and the
// fraction of the second without trailing zeros (none when it is zero). The local time comes
// from the zone's offset at the instant (tz.go). Spark formats these without the legacy parser
// policy, so none is refused.

// timestampToString returns the kernel for a zone; z nil is TIMESTAMP_NTZ (no conversion).
func timestampToString(z *tzZone) castFn {
	return func(_ *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
		v := values[int64](in)
		if z == nil {
			return buildStrings(k, func(dst []byte, i int) []byte {
				s := floorDiv(v[i], 1_000_000)
				return appendLocalDateTime(dst, s, v[i]-s*1_000_000)
			}, 26)
		}
		oc := newOffsetCache(z)
		return buildStrings(k, func(dst []byte, i int) []byte {
			s, us := oc.localSeconds(v[i])
			return appendLocalDateTime(dst, s, us)
		}, 26)
	}
}

// appendLocalDateTime appends local second sec (since 1970-01-01T00:00) and microsecond us.
func appendLocalDateTime(dst []byte, sec, us int64) []byte {
	days := floorDiv(sec, 86400)
	sod := sec - days*86400
	dst = appendDate(dst, int32(days)) // |days| < 2^31 for every int64 of microseconds
	h, m, s := sod/3600, sod/60%60, sod%60
	dst = append(dst, ' ', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10), ':',
		byte('0'+s/10), byte('0'+s%10))
	if us == 0 {
		return dst
	}
	var frac [6]byte
	n := 6
	for i := 5; i >= 0; i-- {
		frac[i] = byte('0' + us%10)
		us /= 10
	}
	for frac[n-1] == '0' {
		n--
	}
	dst = append(dst, '.')
	return append(dst, frac[:n]...)
}
