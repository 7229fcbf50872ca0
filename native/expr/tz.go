package expr

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
	// The IANA database compiled into the library, which time.LoadLocation uses only where the
	// system has none (an executor image without /usr/share/zoneinfo): the driver and the
	// executors then agree on which zones are native.
	_ "time/tzdata"

	"github.com/bolide-dev/bolide/native/plan"
)

// Time zones for the timestamp functions (Hour, TruncTimestamp, MonthsBetween, ...). Spark keeps
// timestamps as microseconds since the epoch, UTC, and reads local fields through java.time:
// Instant.atZone(zone) for UTC -> local (one offset per instant), ZonedDateTime.ofLocal for
// local -> UTC (gaps and overlaps resolved as java.time does). The zone rules come from the
// system tzdata through Go's time package, java.time's from the JDK's own tzdb: both are the
// IANA database, so they agree wherever their versions do (the JVM tests compare them on DST
// edges of several zones).
//
// Zone IDs are read as Spark's DateTimeUtils.getZoneId reads them (ZoneId.of with SHORT_IDS):
// "UTC", "Z", "GMT", "UT", fixed offsets ("+08:00", "GMT-5", "UTC+01:30"), the SHORT_IDS
// aliases (PST, CST, ...) and region IDs (America/Los_Angeles). Anything else is refused at
// translation, so Spark runs the expression.

// tzZone converts between UTC seconds and local seconds for one zone.
type tzZone struct {
	name string
	// trans[i] is the UTC second at which offs[i+1] (seconds east of UTC) starts; offs[0] applies
	// before trans[0]. The table covers instants before tableEnd (2400, or where Go's periods
	// stop being listed); later ones ask loc (Go then applies the zone's TZ rule, as java.time
	// applies its last rules).
	trans    []int64
	offs     []int64
	tableEnd int64
	loc      *time.Location
}

// tzTableEnd: transitions are tabulated up to 2400-01-01 UTC.
const tzTableEnd = 13569465600

// javaShortIDs is java.time.ZoneId.SHORT_IDS, which Spark passes to ZoneId.of.
var javaShortIDs = map[string]string{
	"ACT": "Australia/Darwin", "AET": "Australia/Sydney", "AGT": "America/Argentina/Buenos_Aires",
	"ART": "Africa/Cairo", "AST": "America/Anchorage", "BET": "America/Sao_Paulo", "BST": "Asia/Dhaka",
	"CAT": "Africa/Harare", "CNT": "America/St_Johns", "CST": "America/Chicago", "CTT": "Asia/Shanghai",
	"EAT": "Africa/Addis_Ababa", "ECT": "Europe/Paris", "IET": "America/Indiana/Indianapolis",
	"IST": "Asia/Kolkata", "JST": "Asia/Tokyo", "MIT": "Pacific/Apia", "NET": "Asia/Yerevan",
	"NST": "Pacific/Auckland", "PLT": "Asia/Karachi", "PNT": "America/Phoenix", "PRT": "America/Puerto_Rico",
	"PST": "America/Los_Angeles", "SST": "Pacific/Guadalcanal", "VST": "Asia/Ho_Chi_Minh",
	"EST": "-05:00", "MST": "-07:00", "HST": "-10:00",
}

var zoneCache sync.Map // zone ID -> *tzZone

// zoneOf returns the zone of an expression's timeZoneId (the session time zone when absent).
func zoneOf(pe *plan.Expr, conf *plan.Conf) (*tzZone, error) {
	id := ""
	if pe.Has("timeZoneId") {
		raw, err := pe.Raw("timeZoneId")
		if err != nil {
			return nil, err
		}
		if !isJSONNull(raw) {
			if id, err = pe.String("timeZoneId"); err != nil {
				return nil, err
			}
		}
	}
	if id == "" && conf != nil {
		id = conf.SessionTimeZone
	}
	z, err := loadZone(id)
	if err != nil {
		return nil, unsupported("%s in time zone %q is not supported natively: %v", plan.ShortClass(pe.Class), id, err)
	}
	return z, nil
}

func loadZone(id string) (*tzZone, error) {
	if z, ok := zoneCache.Load(id); ok {
		return z.(*tzZone), nil
	}
	z, err := buildZone(id)
	if err != nil {
		return nil, err
	}
	zoneCache.Store(id, z)
	return z, nil
}

func fixedZone(name string, off int64) *tzZone {
	return &tzZone{name: name, offs: []int64{off}, tableEnd: 1<<63 - 1}
}

func buildZone(id string) (*tzZone, error) {
	if id == "" {
		return nil, fmt.Errorf("no time zone")
	}
	if s, ok := javaShortIDs[id]; ok {
		id = s
	}
	switch id {
	case "Z", "UTC", "GMT", "UT":
		return fixedZone(id, 0), nil
	}
	if id[0] == '+' || id[0] == '-' {
		off, err := parseOffset(id)
		if err != nil {
			return nil, err
		}
		return fixedZone(id, off), nil
	}
	for _, p := range []string{"UTC", "GMT", "UT"} {
		if rest, ok := strings.CutPrefix(id, p); ok && rest != "" && (rest[0] == '+' || rest[0] == '-') {
			off, err := parseOffset(rest)
			if err != nil {
				return nil, err
			}
			return fixedZone(id, off), nil
		}
	}
	// A region ID: letters, digits and / _ - + as tzdb names go ("Local", a Go alias, is no ID).
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && i > 0 ||
			(c == '/' || c == '_' || c == '-' || c == '+') && i > 0) {
			return nil, fmt.Errorf("not a region ID")
		}
	}
	if id == "Local" {
		return nil, fmt.Errorf("not a region ID")
	}
	loc, err := time.LoadLocation(id)
	if err != nil {
		return nil, fmt.Errorf("no tzdata: %v", err)
	}
	return tabulate(id, loc), nil
}

// parseOffset reads ZoneOffset.of's forms +h, +hh, +hh:mm, +hhmm, +hh:mm:ss, +hhmmss (at most
// 18 hours).
func parseOffset(s string) (int64, error) {
	bad := fmt.Errorf("invalid offset %q", s)
	sign := int64(1)
	if s[0] == '-' {
		sign = -1
	}
	body := s[1:]
	var h, m, sec string
	switch len(body) {
	case 1, 2:
		h = body
	case 4:
		h, m = body[:2], body[2:]
	case 5:
		if body[2] != ':' {
			return 0, bad
		}
		h, m = body[:2], body[3:]
	case 6:
		h, m, sec = body[:2], body[2:4], body[4:]
	case 8:
		if body[2] != ':' || body[5] != ':' {
			return 0, bad
		}
		h, m, sec = body[:2], body[3:5], body[6:]
	default:
		return 0, bad
	}
	num := func(p string, max int64) (int64, bool) {
		if p == "" {
			return 0, true
		}
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return 0, false
			}
		}
		v, err := strconv.ParseInt(p, 10, 64)
		return v, err == nil && v <= max
	}
	hv, ok1 := num(h, 18)
	mv, ok2 := num(m, 59)
	sv, ok3 := num(sec, 59)
	total := hv*3600 + mv*60 + sv
	if !ok1 || !ok2 || !ok3 || total > 18*3600 {
		return 0, bad
	}
	return sign * total, nil
}

// tabulate walks a location's zone periods (Time.ZoneBounds) from the beginning of time to
// tzTableEnd, keeping the instants where the UTC offset changes.
func tabulate(id string, loc *time.Location) *tzZone {
	z := &tzZone{name: id, loc: loc, tableEnd: tzTableEnd}
	t := time.Unix(-1<<40, 0).In(loc)
	_, off := t.Zone()
	z.offs = append(z.offs, int64(off))
	for {
		_, end := t.ZoneBounds()
		if end.IsZero() || end.Unix() >= tzTableEnd {
			break
		}
		if !end.After(t) {
			// Past the last listed transition Go derives periods from the TZ rule year by year
			// and reports the period of a year's last instant as ending there: from here on,
			// ask loc (offsetCache keeps the periods it reports).
			z.tableEnd = t.Unix()
			break
		}
		t = end.In(loc)
		_, off := t.Zone()
		if int64(off) != z.offs[len(z.offs)-1] {
			z.trans = append(z.trans, t.Unix())
			z.offs = append(z.offs, int64(off))
		}
	}
	if len(z.trans) == 0 {
		z.tableEnd = 1<<63 - 1 // a fixed zone (Etc/GMT+5): the table is the whole rule
	}
	return z
}

// fixedOffset returns the zone's offset when it is the same at every instant (UTC, an offset
// such as +05:30, Etc/GMT+5): then local time is UTC time plus it, with no lookup, gap or
// overlap, and kernels can skip the offset cache.
func (z *tzZone) fixedOffset() (int64, bool) {
	if len(z.trans) == 0 && z.tableEnd == 1<<63-1 {
		return z.offs[0], true
	}
	return 0, false
}

// offsetAt is the UTC offset in seconds at UTC second sec.
func (z *tzZone) offsetAt(sec int64) int64 {
	if sec >= z.tableEnd {
		_, off := time.Unix(sec, 0).In(z.loc).Zone()
		return int64(off)
	}
	tr := z.trans
	lo, hi := 0, len(tr) // first transition > sec
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tr[m] <= sec {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return z.offs[lo]
}

// offsetCache remembers the period of the last lookup: batches of nearby timestamps then cost
// two compares a row.
type offsetCache struct {
	z        *tzZone
	from, to int64 // [from, to): UTC seconds with offset off
	off      int64
}

func newOffsetCache(z *tzZone) offsetCache { return offsetCache{z: z, from: 1, to: 0} }

func (c *offsetCache) offset(sec int64) int64 {
	if sec >= c.from && sec < c.to {
		return c.off
	}
	z := c.z
	if sec >= z.tableEnd {
		tm := time.Unix(sec, 0).In(z.loc)
		_, off := tm.Zone()
		if start, end := tm.ZoneBounds(); end.After(tm) && !start.After(tm) {
			c.from, c.to, c.off = start.Unix(), end.Unix(), int64(off)
		}
		return int64(off)
	}
	tr := z.trans
	lo, hi := 0, len(tr)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if tr[m] <= sec {
			lo = m + 1
		} else {
			hi = m
		}
	}
	c.from, c.to = -1<<63, z.tableEnd
	if lo > 0 {
		c.from = tr[lo-1]
	}
	if lo < len(tr) {
		c.to = tr[lo]
	}
	c.off = z.offs[lo]
	return c.off
}

// floorDiv and floorMod are Math.floorDiv / Math.floorMod on longs.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// localSeconds is the local date-time of UTC microsecond us, as seconds since 1970-01-01T00:00
// local, with the microsecond of the second (Instant.atZone(zone).toLocalDateTime()).
func (c *offsetCache) localSeconds(us int64) (sec, micro int64) {
	s := floorDiv(us, 1_000_000)
	return s + c.offset(s), us - s*1_000_000
}

// resolveLocal is the UTC second of local second l as ZonedDateTime.ofLocal(l, zone, preferred)
// resolves it: the one valid offset; in an overlap the preferred offset if valid, else the
// earlier (pre-transition) offset; in a gap l moved forward by the gap's length
// (atStartOfDay instead takes the transition itself: startOfDay). hasPref false: no preferred
// offset.
func (c *offsetCache) resolveLocal(l, pref int64, hasPref bool, startOfDay bool) int64 {
	// Offsets are within +-18h and transitions of real zones more than 36h apart: the offsets
	// valid for l are among those at l-18h and l+18h.
	const span = 18 * 3600
	early := c.offset(l - span)
	late := c.offset(l + span)
	vEarly := c.offset(l-early) == early
	if early == late {
		if vEarly {
			return l - early
		}
		return l - c.offset(l-early)
	}
	vLate := c.offset(l-late) == late
	switch {
	case vEarly && vLate: // overlap
		if hasPref && pref == late {
			return l - late
		}
		return l - early
	case vEarly:
		return l - early
	case vLate:
		return l - late
	}
	// A gap: the transition instant lies in (l-late, l-early].
	if startOfDay {
		lo, hi := l-late, l-early // offset(lo) == early, offset(hi) == late
		for hi-lo > 1 {
			m := lo + (hi-lo)/2
			if c.offset(m) == early {
				lo = m
			} else {
				hi = m
			}
		}
		return hi
	}
	return l - early
}

// startOfDayMicros is DateTimeUtils.daysToMicros: LocalDate.atStartOfDay(zone) in microseconds.
func (c *offsetCache) startOfDayMicros(days int64) int64 {
	return c.resolveLocal(days*86400, 0, false, true) * 1_000_000
}

// microsToDays is DateTimeUtils.microsToDays: the local date of UTC microsecond us.
func (c *offsetCache) microsToDays(us int64) int64 {
	l, _ := c.localSeconds(us)
	return floorDiv(l, 86400)
}
