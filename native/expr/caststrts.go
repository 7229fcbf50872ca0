package expr

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/bolide-dev/bolide/native/sparktype"
)

// Casts from strings to TIMESTAMP and TIMESTAMP_NTZ, after SparkDateTimeUtils.parseTimestampString,
// stringToTimestamp and stringToTimestampWithoutTimeZone:
//   - bytes 0x00-0x20 and 0x7F trimmed; [+-]yyyy (4 to 6 digits)[-[m]m[-[d]d]], then ' ' or 'T'
//     and [h]h:[m]m:[s]s[.fraction] (digits past the sixth dropped), then an optional zone:
//     everything after the seconds, trimmed (Z, +h, +hh:mm, +hhmm, +hh:mm:ss, UTC+.., GMT-..,
//     UT.., the SHORT_IDS and the region IDs java.time knows; Spark first widens "+h:" and
//     ":m"); a string may also be a time alone ("T12:00" or "12:00:01"), on today's date in the
//     zone (LocalDate.now);
//   - the fields must make a valid LocalDate and LocalTime; the local date-time is placed in the
//     string's zone or the cast's (ZonedDateTime.of: a time in a DST gap moves forward by the gap,
//     one in an overlap takes the earlier offset, tz.go); microseconds past the long range fail;
//   - TIMESTAMP_NTZ ignores the zone (it must still be valid) and rejects a time alone;
//   - a string that fails is null, or CAST_INVALID_INPUT in ANSI mode (TRY casts to timestamps
//     are LEGACY casts in Spark).
// Which region IDs exist is the JVM's to say (ZoneId.getAvailableZoneIds, handed over when the
// library loads); their rules come from the system's tzdata as for the session time zone. A
// region java.time knows but the tzdata here lacks fails the query rather than guess.

var javaZoneIDs atomic.Pointer[map[string]bool]

// SetJavaZoneIDs records the region IDs the JVM's java.time knows (ZoneId.getAvailableZoneIds).
func SetJavaZoneIDs(ids []string) {
	m := make(map[string]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	javaZoneIDs.Store(&m)
}

func javaZoneIDsUnknown() string {
	if javaZoneIDs.Load() == nil {
		return "the JVM's time zone IDs, which timestamp strings may name, are unknown"
	}
	return ""
}

// sparkTimestamp is parseTimestampString's result.
type sparkTimestamp struct {
	seg      [9]int64 // year, month, day, hour, minute, second, microsecond, (unused)
	tz       []byte   // the zone text, nil when none
	justTime bool
}

// parseSparkTimestamp mirrors parseTimestampString (ok false: no segments).
func parseSparkTimestamp(s []byte) (p sparkTimestamp, ok bool) {
	j, end := 0, len(s)
	for j < end && isSparkSpace(s[j]) {
		j++
	}
	for end > j && isSparkSpace(s[end-1]) {
		end--
	}
	if j == end {
		return p, false
	}
	p.seg = [9]int64{1, 1, 1, 0, 0, 0, 0, 0, 0}
	valid := func(seg, digits int) bool {
		switch {
		case seg == 6:
			return true
		case seg == 0:
			return digits >= 4 && digits <= 6
		case seg == 7:
			return digits <= 2
		}
		return digits > 0 && digits <= 2
	}
	i := 0
	var cur int64
	digits, digitsMilli := 0, 0
	yearSign := int64(0)
	if s[j] == '-' || s[j] == '+' {
		yearSign = 1
		if s[j] == '-' {
			yearSign = -1
		}
		j++
	}
	next := func() bool { // closes segment i
		if !valid(i, digits) {
			return false
		}
		p.seg[i] = cur
		cur, digits = 0, 0
		i++
		return true
	}
	for ; j < end; j++ {
		b := s[j]
		if b >= '0' && b <= '9' {
			if i == 6 {
				digitsMilli++
			}
			if i != 6 || digits < 6 { // digits past the microsecond are dropped
				if digits < 18 { // longer runs fail their segment anyway
					cur = cur*10 + int64(b-'0')
				}
			}
			digits++
			continue
		}
		switch {
		case j == 0 && b == 'T': // only at the very first byte of the string
			p.justTime = true
			i += 3
		case i < 2:
			switch {
			case b == '-':
				if !next() {
					return p, false
				}
			case i == 0 && b == ':' && yearSign == 0:
				p.justTime = true
				if !valid(3, digits) {
					return p, false
				}
				p.seg[3] = cur
				cur, digits = 0, 0
				i = 4
			default:
				return p, false
			}
		case i == 2:
			if b != ' ' && b != 'T' || !next() {
				return p, false
			}
		case i == 3 || i == 4:
			if b != ':' || !next() {
				return p, false
			}
		case i == 5 || i == 6:
			if b == '.' && i == 5 {
				if !next() {
					return p, false
				}
			} else {
				if !next() {
					return p, false
				}
				p.tz = s[j:end]
				j = end - 1
			}
			if i == 6 && b != '.' {
				i++
			}
		default:
			if i < len(p.seg) && (b == ':' || b == ' ') {
				if !next() {
					return p, false
				}
			} else {
				return p, false
			}
		}
	}
	if i >= len(p.seg) || !valid(i, digits) {
		return p, false
	}
	p.seg[i] = cur
	for ; digitsMilli < 6; digitsMilli++ {
		p.seg[6] *= 10
	}
	if yearSign != 0 {
		p.seg[0] *= yearSign
	}
	return p, true
}

// sparkZoneOf is DateTimeUtils.getZoneId of a zone text from a string: trimmed, "+h:" and
// ":m" widened, then ZoneId.of(id, SHORT_IDS). ok is false where Java throws; err where Java
// knows the region but this engine has no rules for it.
func sparkZoneOf(raw []byte, known map[string]bool) (z *tzZone, ok bool, err error) {
	id := string(trimJava(raw))
	// (\+|\-)(\d): -> $10$2: (first match)
	for k := 0; k+2 < len(id); k++ {
		if (id[k] == '+' || id[k] == '-') && id[k+1] >= '0' && id[k+1] <= '9' && id[k+2] == ':' {
			id = id[:k+1] + "0" + id[k+1:]
			break
		}
	}
	// (\+|\-)(\d\d):(\d)$ -> $1$2:0$3
	if n := len(id); n >= 5 && (id[n-5] == '+' || id[n-5] == '-') && isDigitByte(id[n-4]) && isDigitByte(id[n-3]) &&
		id[n-2] == ':' && isDigitByte(id[n-1]) {
		id = id[:n-1] + "0" + id[n-1:]
	}
	if a, ok := javaShortIDs[id]; ok {
		id = a
	}
	offset := func(off string) (*tzZone, bool, error) {
		if _, err := parseOffset(off); err != nil {
			return nil, false, nil
		}
		z, err := loadZone(id)
		return z, err == nil, nil
	}
	switch {
	case id == "Z":
		z, err := loadZone("Z")
		return z, err == nil, nil
	case len(id) <= 1:
		return nil, false, nil
	case id[0] == '+' || id[0] == '-':
		return offset(id)
	}
	for _, pre := range []string{"UTC", "GMT", "UT"} {
		if !strings.HasPrefix(id, pre) {
			continue
		}
		if len(id) == len(pre) {
			z, err := loadZone(id)
			return z, err == nil, nil
		}
		if c := id[len(pre)]; c == '+' || c == '-' {
			return offset(id[len(pre):])
		}
		break // a region ID that starts like a prefix ("UTCfoo", "GMT0")
	}
	// ZoneRegion.ofId: [A-Za-z][A-Za-z0-9~/._+-]+, then the rules provider must know it.
	if !known[id] || !javaRegionName(id) {
		return nil, false, nil
	}
	z, zerr := loadZone(id)
	if zerr != nil {
		return nil, false, unsupported("time zone %q in a timestamp string is known to java.time but has no tzdata here: %v", id, zerr)
	}
	return z, true, nil
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

func javaRegionName(id string) bool {
	if len(id) < 2 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter || !(letter || isDigitByte(c) || strings.IndexByte("~/._+-", c) >= 0) {
			return false
		}
	}
	return true
}

// maxMicroSecond bounds: epoch seconds whose microseconds (plus a fraction) may fit a long.
const (
	minMicroSec = -9223372036855 // floorDiv(Long.MinValue, 10^6)
	maxMicroSec = 9223372036854  // floorDiv(Long.MaxValue, 10^6)
)

// epochMicros is instantToMicros: sec*10^6 + us if it fits a long.
func epochMicros(sec, us int64) (int64, bool) {
	switch {
	case sec < minMicroSec || sec > maxMicroSec:
		return 0, false
	case sec == maxMicroSec && us > 775807:
		return 0, false
	case sec == minMicroSec && us < 224192:
		return 0, false
	}
	return sec*1_000_000 + us, true
}

// stringToTimestampKernel is the kernel of a cast to TIMESTAMP in zone z, or TIMESTAMP_NTZ
// (ntz). now is the current instant in seconds (LocalDate.now), read once per batch.
func stringToTimestampKernel(z *tzZone, ntz bool) castFn {
	return func(c *cast, k *kernelArgs, in arrow.Array) (arrow.Array, error) {
		offs, data := binaryParts(in)
		obuf, out := newFixed[int64](k.alloc, k.n)
		known := *javaZoneIDs.Load()
		now := time.Now().Unix()
		caches := map[*tzZone]*offsetCache{}
		cacheOf := func(z *tzZone) *offsetCache {
			oc := caches[z]
			if oc == nil {
				v := newOffsetCache(z)
				oc = &v
				caches[z] = oc
			}
			return oc
		}
		for i := range out {
			out[i] = 0
			if !k.rowValid(i) {
				continue
			}
			s := data[offs[i]:offs[i+1]]
			v, ok, err := stringToMicros(s, z, ntz, known, now, cacheOf)
			if err != nil {
				if isActive(k.active, i) {
					obuf.Release()
					return nil, err
				}
				ok = false
			}
			if ok {
				out[i] = v
				continue
			}
			if err := c.rejectString(k, i, s); err != nil {
				obuf.Release()
				return nil, err
			}
		}
		return finish(c.to.Arrow(), k.n, k.vbuf, obuf, k.nulls), nil
	}
}

func stringToMicros(s []byte, z *tzZone, ntz bool, known map[string]bool, now int64,
	cacheOf func(*tzZone) *offsetCache) (int64, bool, error) {
	p, ok := parseSparkTimestamp(s)
	if !ok {
		return 0, false, nil
	}
	if p.tz != nil {
		pz, ok, err := sparkZoneOf(p.tz, known)
		if err != nil || !ok {
			return 0, false, err
		}
		z = pz
	}
	if ntz && p.justTime {
		return 0, false, nil
	}
	h, mi, sec := p.seg[3], p.seg[4], p.seg[5]
	if h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 59 {
		return 0, false, nil // LocalTime.of throws
	}
	var days int64
	if p.justTime {
		oc := cacheOf(z)
		days = floorDiv(now+oc.offset(now), 86400)
	} else {
		y, m, d := p.seg[0], p.seg[1], p.seg[2]
		if m < 1 || m > 12 || d < 1 || d > int64(lengthOfMonth64(y, int32(m))) {
			return 0, false, nil // LocalDate.of throws
		}
		days = daysFromCivil(y, int32(m), int32(d))
	}
	local := days*86400 + h*3600 + mi*60 + sec
	utc := local
	if !ntz {
		utc = cacheOf(z).resolveLocal(local, 0, false, false)
	}
	v, ok := epochMicros(utc, p.seg[6])
	return v, ok, nil
}

// stringToTimestampCast picks the kernel of a string to TIMESTAMP (zone z) or TIMESTAMP_NTZ cast.
func stringToTimestampCast(to sparktype.Type, z *tzZone) (castFn, string) {
	if why := javaZoneIDsUnknown(); why != "" {
		return nil, why
	}
	return stringToTimestampKernel(z, to.Kind == sparktype.TimestampNTZ), ""
}
