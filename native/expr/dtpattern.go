package expr

import (
	"fmt"
	"strconv"
)

// Spark's datetime patterns (DateTimeFormatterHelper with the CORRECTED or EXCEPTION policy):
// the pattern goes through convertIncompatiblePattern (y becomes u, the proleptic year, unless
// the pattern has an era G) and then java.time's DateTimeFormatterBuilder.appendPattern, in
// Locale.US with the ISO chronology. compileDatetimePattern accepts the subset whose output it
// can prove identical, and names the first letter or width it cannot do: the caller refuses the
// expression then, so Spark runs it, with its own errors for the patterns it rejects (week-based
// letters, 'MMMMM', 'yyyyyyy', unknown letters, ...).
//
// Accepted (formatting):
//   - y, 1 to 6 letters: u's printer. y: the year, '-' before negative ones; yy: the last two
//     digits of |year| (ReducedPrinterParser with base 2000); yyy: zero-padded to 3; 4 or more:
//     zero-padded to the width, '+' before years wider than it (SignStyle.EXCEEDS_PAD).
//   - M, L 1-2 (numbers); M 3-4 (English short and full names).
//   - d 1-2, D 1-3, H h k K m s 1-2 (1: no padding; 2 or 3: zero-padded).
//   - S 1-9: the fraction of the second, truncated to that many digits.
//   - a (AM/PM), E 1-3 (Mon), E 4 (Monday), Q 1-2 (quarter number).
//   - quoted text ('' is a quote), and every character that is not an ASCII letter nor one of
//     [ ] { } # (reserved or optional sections: refused).
//   - offsets, as java.time's OffsetIdPrinterParser prints them (seconds of local-mean-time
//     offsets are dropped, hours and minutes truncated): Z ZZ ZZZ (+HHMM, +0000 for zero),
//     X (+HHmm: minutes only when not zero, Z for zero), XX (+HHMM, Z), XXX (+HH:MM, Z), and x xx
//     xxx as X XX XXX with +00, +0000, +00:00 for zero.
// Refused: G (the era switches y back to year-of-era), zone names and localized offsets (V z O,
// ZZZZ: locale data), offsets with seconds (ZZZZZ, XXXX, xxxx, ...), L 3-4 and Q 3-4
// (stand-alone and quarter texts), week-based letters and everything java.time rejects.

type dtItem struct {
	letter byte // 0: literal
	count  int
	lit    string
}

type dtPattern struct {
	items []dtItem
	text  string
}

func compileDatetimePattern(p string) (*dtPattern, error) {
	out := &dtPattern{text: p}
	addLit := func(s string) {
		if n := len(out.items); n > 0 && out.items[n-1].letter == 0 {
			out.items[n-1].lit += s
			return
		}
		out.items = append(out.items, dtItem{lit: s})
	}
	for i := 0; i < len(p); {
		c := p[i]
		switch {
		case c == '\'':
			j := i + 1
			if j < len(p) && p[j] == '\'' {
				addLit("'")
				i += 2
				continue
			}
			var lit []byte
			for {
				if j >= len(p) {
					return nil, fmt.Errorf("pattern %s: unterminated quote", strconv.Quote(p))
				}
				if p[j] == '\'' {
					if j+1 < len(p) && p[j+1] == '\'' {
						lit = append(lit, '\'')
						j += 2
						continue
					}
					break
				}
				lit = append(lit, p[j])
				j++
			}
			addLit(string(lit))
			i = j + 1
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(p) && p[j] == c {
				j++
			}
			n := j - i
			if err := checkLetter(c, n); err != nil {
				return nil, fmt.Errorf("pattern %s: %v", strconv.Quote(p), err)
			}
			out.items = append(out.items, dtItem{letter: c, count: n})
			i = j
		case c == '[' || c == ']' || c == '{' || c == '}' || c == '#':
			return nil, fmt.Errorf("pattern %s: %q (optional sections and reserved characters) is not supported natively", strconv.Quote(p), c)
		default:
			j := i + 1
			for j < len(p) && !(p[j] >= 'a' && p[j] <= 'z' || p[j] >= 'A' && p[j] <= 'Z') &&
				p[j] != '\'' && p[j] != '[' && p[j] != ']' && p[j] != '{' && p[j] != '}' && p[j] != '#' {
				j++
			}
			addLit(p[i:j])
			i = j
		}
	}
	return out, nil
}

func checkLetter(c byte, n int) error {
	max := 0
	switch c {
	case 'y':
		max = 6
	case 'M':
		max = 4
	case 'L', 'd', 'H', 'h', 'k', 'K', 'm', 's', 'Q':
		max = 2
	case 'D':
		max = 3
	case 'S':
		max = 9
	case 'a':
		max = 1
	case 'E':
		max = 4
	case 'Z', 'X', 'x':
		max = 3
	default:
		return fmt.Errorf("letter %q is not supported natively", c)
	}
	if n > max {
		return fmt.Errorf("%d letters %q are not supported natively (at most %d)", n, c, max)
	}
	return nil
}

var (
	fullMonthNames = [13]string{1: "January", 2: "February", 3: "March", 4: "April", 5: "May", 6: "June", 7: "July",
		8: "August", 9: "September", 10: "October", 11: "November", 12: "December"}
	fullDayNames = [8]string{1: "Monday", 2: "Tuesday", 3: "Wednesday", 4: "Thursday", 5: "Friday", 6: "Saturday", 7: "Sunday"}
)

// appendPadded appends v (>= 0) zero-padded to width digits.
func appendPadded(dst []byte, v int64, width int) []byte {
	var buf [20]byte
	s := strconv.AppendInt(buf[:0], v, 10)
	for k := len(s); k < width; k++ {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

// appendLocal appends the pattern's text of local second l (seconds since 1970-01-01T00:00
// local) and microsecond micro.
// off is the UTC offset in seconds at that instant (for the offset letters).
func (p *dtPattern) appendLocal(dst []byte, l, micro, off int64) []byte {
	days := floorDiv(l, 86400)
	sod := l - days*86400
	y, m, d := civilFromDays64(days)
	for _, it := range p.items {
		switch it.letter {
		case 0:
			dst = append(dst, it.lit...)
		case 'y':
			dst = appendYear(dst, y, it.count)
		case 'M', 'L':
			if it.count >= 3 {
				if it.count == 3 {
					dst = append(dst, shortMonthNames[m]...)
				} else {
					dst = append(dst, fullMonthNames[m]...)
				}
			} else {
				dst = appendPadded(dst, int64(m), it.count)
			}
		case 'd':
			dst = appendPadded(dst, int64(d), it.count)
		case 'D':
			dst = appendPadded(dst, days-daysFromCivil(y, 1, 1)+1, it.count)
		case 'H':
			dst = appendPadded(dst, sod/3600, it.count)
		case 'k':
			h := sod / 3600
			if h == 0 {
				h = 24
			}
			dst = appendPadded(dst, h, it.count)
		case 'K':
			dst = appendPadded(dst, sod/3600%12, it.count)
		case 'h':
			h := sod / 3600 % 12
			if h == 0 {
				h = 12
			}
			dst = appendPadded(dst, h, it.count)
		case 'm':
			dst = appendPadded(dst, sod/60%60, it.count)
		case 's':
			dst = appendPadded(dst, sod%60, it.count)
		case 'S':
			var buf [9]byte
			nano := micro * 1000
			for k := 8; k >= 0; k-- {
				buf[k] = byte('0' + nano%10)
				nano /= 10
			}
			dst = append(dst, buf[:it.count]...)
		case 'a':
			if sod < 12*3600 {
				dst = append(dst, "AM"...)
			} else {
				dst = append(dst, "PM"...)
			}
		case 'E':
			wd := isoWeekday(days)
			if it.count == 4 {
				dst = append(dst, fullDayNames[wd]...)
			} else {
				dst = append(dst, shortDayNames[wd]...)
			}
		case 'Q':
			dst = appendPadded(dst, int64((m-1)/3+1), it.count)
		case 'Z':
			dst = appendOffset(dst, off, true, false, "+0000")
		case 'X', 'x':
			zero := "Z"
			if it.letter == 'x' {
				zero = [4]string{1: "+00", 2: "+0000", 3: "+00:00"}[it.count]
			}
			dst = appendOffset(dst, off, it.count >= 2, it.count == 3, zero)
		}
	}
	return dst
}

// appendYear is java.time's printer of u (YEAR) for count letters.
func appendYear(dst []byte, y int64, count int) []byte {
	switch {
	case count == 2:
		a := y
		if a < 0 {
			a = -a
		}
		return appendPadded(dst, a%100, 2)
	case y < 0:
		return appendPadded(append(dst, '-'), -y, count)
	case count >= 4 && y >= pow10i64(count):
		return appendPadded(append(dst, '+'), y, count)
	}
	return appendPadded(dst, y, count)
}

func pow10i64(n int) int64 { return int64(pow10u64[n]) }

// appendOffset is OffsetIdPrinterParser.format for +HHmm (minutes false: minutes only when not
// zero), +HHMM and +HH:MM (colon): Java's int division truncates, seconds are not printed, and
// an offset whose printed hours and minutes are all zero prints zero.
func appendOffset(dst []byte, total int64, minutes, colon bool, zero string) []byte {
	if total == 0 {
		return append(dst, zero...)
	}
	h := total / 3600 % 100
	mi := total / 60 % 60
	if h < 0 {
		h = -h
	}
	if mi < 0 {
		mi = -mi
	}
	printMin := minutes || mi > 0
	if h == 0 && (!printMin || mi == 0) {
		return append(dst, zero...)
	}
	if total < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	dst = appendPadded(dst, h, 2)
	if printMin {
		if colon {
			dst = append(dst, ':')
		}
		dst = appendPadded(dst, mi, 2)
	}
	return dst
}
