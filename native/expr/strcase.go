package expr

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Upper (upper, ucase), Lower (lower, lcase) and InitCap (initcap) of UTF8_BINARY strings, as
// Spark 4.1 computes them with spark.sql.icu.caseMappings.enabled (the default), in both its
// interpreted and generated code (CollationSupport.Upper/Lower/InitCap.execBinaryICU):
//   - a string of ASCII bytes only is mapped byte by byte (A-Z <-> a-z; initcap uppercases the
//     first byte and each byte after a space and lowercases the others);
//   - any other string is first made valid as UTF8String.makeValid does (each maximal invalid
//     subpart, Unicode Table 3-7, becomes one U+FFFD: validRune), then mapped by ICU4J:
//   - upper and lower: ICU's full case mapping in the root locale (ß -> SS, İ -> i̇, ŉ -> ʼN, ...);
//     lower maps Σ to ς by Unicode's Final_Sigma context (preceded by a cased code point and not
//     followed by one, case-ignorable ones skipped), the root locale's only context rule;
//   - initcap (CollationAwareUTF8String.toTitleCaseICU): the first code point and each one after
//     a space (U+0020) take their title case (full: ß -> Ss, ﬃ -> Ffi), the others their simple
//     lowercase, except Σ (ς when preceded by a cased code point, case-ignorable ones skipped,
//     and not followed by one) and İ (i̇); cased and case-ignorable being the Unicode properties
//     here, ICU's case type for lower.
//
// The mappings are tables generated from Spark's own classes (strcase_tables.go, by
// scripts/spark-case-tables.sh): ICU4J's root mappings are what a JVM whose default locale is
// not Turkish, Azeri, Lithuanian, Greek or Dutch applies (UCharacter.toUpperCase(String) takes
// the default locale's case rules); Bolide assumes such a default locale, as Spark's own tests do.

func init() {
	Register("Upper", "upper(str) of a UTF8_BINARY string: Spark's ICU case mapping (root locale, full mappings such as ß -> SS, invalid UTF-8 as U+FFFD), an ASCII string bytewise", translateCase(caseUpper))
	Register("Lower", "lower(str) of a UTF8_BINARY string: Spark's ICU case mapping (root locale, full mappings such as İ -> i̇, Final_Sigma, invalid UTF-8 as U+FFFD), an ASCII string bytewise", translateCase(caseLower))
	Register("InitCap", "initcap(str) of a UTF8_BINARY string: Spark's ICU lower case, then the first character and each one after a space title-cased (UTF-16 chars, as UTF8String.toTitleCaseICU)", translateCase(caseInitCap))
}

type caseKind uint8

const (
	caseUpper caseKind = iota
	caseLower
	caseInitCap
)

var caseNames = [...]string{"upper", "lower", "initcap"}

// icuCaseMappingsKey chooses Spark's case mappings for UTF8_BINARY strings: ICU's (true, the
// default, which Bolide implements) or the JVM's (String.toUpperCase and friends).
const icuCaseMappingsKey = "spark.sql.icu.caseMappings.enabled"

func translateCase(kind caseKind) Translator {
	return func(pe *plan.Expr, conf *plan.Conf) (Expr, error) {
		if conf != nil && strings.EqualFold(strings.TrimSpace(conf.Settings[icuCaseMappingsKey]), "false") {
			return nil, unsupported("%s with the JVM's case mappings (%s=false) is not supported natively", plan.ShortClass(pe.Class), icuCaseMappingsKey)
		}
		c, err := stringChild(pe, "child", conf)
		if err != nil {
			return nil, err
		}
		t, err := defaultStringResult(pe)
		if err != nil {
			return nil, err
		}
		return &caseMap{kind: kind, child: c, typ: t}, nil
	}
}

// ---- tables ----

// caseMapping is one code point's full case mapping (generated tables).
type caseMapping struct {
	cp rune
	to string
}

// caseRange is a range of code points with ICU case properties (1 cased, 2 case-ignorable).
type caseRange struct {
	lo, hi rune
	props  uint8
}

// runeTable is a two-stage table over all code points: 0x1100 blocks of 256 entries, blocks
// with the same entries shared. An entry is 0 for a code point that maps to itself, the target
// code point for a one-code-point mapping, or -(i+1) for expansion i (several code points).
type runeTable struct {
	index  [0x1100]uint16
	blocks []int32
	expand [][]byte // UTF-8 of the multi-code-point mappings
}

func (t *runeTable) get(r rune) int32 {
	return t.blocks[int(t.index[r>>8])<<8|int(r&0xFF)]
}

// buildRuneTable builds a runeTable from (code point, entry) pairs sorted by code point.
func buildRuneTable(n int, at func(i int) (rune, int32)) *runeTable {
	t := &runeTable{}
	seen := map[[256]int32]uint16{}
	var blk [256]int32
	j := 0
	for b := 0; b < len(t.index); b++ {
		blk = [256]int32{}
		for ; j < n; j++ {
			cp, e := at(j)
			if int(cp>>8) != b {
				break
			}
			blk[cp&0xFF] = e
		}
		id, ok := seen[blk]
		if !ok {
			id = uint16(len(t.blocks) >> 8)
			seen[blk] = id
			t.blocks = append(t.blocks, blk[:]...)
		}
		t.index[b] = id
	}
	return t
}

func mappingTable(ms []caseMapping) *runeTable {
	var expand [][]byte
	t := buildRuneTable(len(ms), func(i int) (rune, int32) {
		m := ms[i]
		if r, w := utf8.DecodeRuneInString(m.to); w == len(m.to) {
			return m.cp, r
		}
		expand = append(expand, []byte(m.to))
		return m.cp, -int32(len(expand))
	})
	t.expand = expand
	return t
}

var (
	upperTable       = mappingTable(icuUpper)
	lowerTable       = mappingTable(icuLower)
	titleTable       = mappingTable(icuTitle)
	simpleLowerTable = mappingTable(icuSimpleLower)
	// casePropTable holds the props of caseRange per code point (as entries of a runeTable).
	casePropTable = func() *runeTable {
		var cps []rune
		var ps []int32
		for _, r := range icuCaseProps {
			for c := r.lo; c <= r.hi; c++ {
				cps, ps = append(cps, c), append(ps, int32(r.props))
			}
		}
		return buildRuneTable(len(cps), func(i int) (rune, int32) { return cps[i], ps[i] })
	}()
)

// asciiUpper and asciiLower map each byte below 0x80 as Character.toUpperCase/toLowerCase do.
var asciiUpper, asciiLower = func() (u, l [128]byte) {
	for i := range u {
		u[i], l[i] = byte(i), byte(i)
	}
	for c := 'a'; c <= 'z'; c++ {
		u[c], l[c-'a'+'A'] = byte(c-'a'+'A'), byte(c)
	}
	return
}()

// ---- evaluation ----

type caseMap struct {
	kind  caseKind
	child Expr
	typ   sparktype.Type
}

func (e *caseMap) Type() sparktype.Type { return e.typ }
func (e *caseMap) mayFail() bool        { return mayFail(e.child) }
func (e *caseMap) String() string       { return fmt.Sprintf("%s(%s)", caseNames[e.kind], e.child) }

func (e *caseMap) Eval(ctx *exec.TaskContext, b *columnar.Batch) (arrow.Array, error) {
	return e.evalMasked(ctx, b, nil)
}

func (e *caseMap) evalMasked(ctx *exec.TaskContext, b *columnar.Batch, active []byte) (arrow.Array, error) {
	in, err := evalActive(ctx, b, e.child, active)
	if err != nil {
		return nil, err
	}
	defer in.Release()
	n := b.NumRows
	dt := e.typ.Arrow()
	if n == 0 || in.NullN() == n {
		return allNull(ctx.Alloc, dt, n), nil
	}
	vbuf, nulls := andValidity(ctx.Alloc, n, in)
	offs, data := binaryParts(in)
	base := offs[0]
	all := data[base:offs[n]]
	// ASCII-only input (the common case) keeps every row's length: one pass over the batch's
	// bytes, offsets shifted. Null rows' bytes are mapped too (harmless, they stay null).
	ascii := isASCII(all)
	capacity := int64(len(all))
	if !ascii {
		capacity += capacity / 4
	}
	out, err := newBytesOut(ctx.Alloc, n, capacity)
	if err != nil {
		if vbuf != nil {
			vbuf.Release()
		}
		return nil, fmt.Errorf("%s: %w", e, err)
	}
	if ascii {
		mapASCII(e.kind, out.room()[:len(all)], all)
		if e.kind == caseInitCap {
			initCapRowStarts(out.room(), offs, base)
		}
		for i := 0; i <= n; i++ {
			out.offs[i] = offs[i] - base
		}
		out.used = len(all)
		return out.finish(dt, n, vbuf, nulls), nil
	}
	// Some rows hold multi-byte characters. The rows between two of them are ASCII and lie next
	// to each other in the data: each such run is mapped as one ASCII string (its offsets
	// shifted), and only the rows holding a byte >= 0x80 take the code point path. Null rows in a
	// run are mapped too (harmless, they stay null).
	for i := 0; i < n; {
		start := int(offs[i] - base)
		p := start + asciiPrefix(all[start:]) // the next non-ASCII byte, or the end
		j := i
		for j < n && int(offs[j+1]-base) <= p {
			j++
		}
		if j > i {
			end := int(offs[j] - base)
			if err := out.ensure(end - start); err != nil {
				return nil, e.failOut(out, vbuf, err)
			}
			dst := out.room()
			mapASCII(e.kind, dst[:end-start], all[start:end])
			if e.kind == caseInitCap {
				initCapRowStarts(dst, offs[i:j+1], offs[i])
			}
			shift := int32(out.used-start) - base
			for r := i + 1; r <= j; r++ {
				out.offs[r] = offs[r] + shift
			}
			out.used += end - start
			i = j
			if i == n {
				break
			}
		}
		s := data[offs[i]:offs[i+1]]
		if !validRow(vbuf, i) {
			out.endRow(i)
			i++
			continue
		}
		if err := out.ensure(len(s) * caseMaxGrowth); err != nil {
			return nil, e.failOut(out, vbuf, err)
		}
		dst := out.room()
		var m int
		switch e.kind {
		case caseUpper:
			m = upperSlow(dst, s)
		case caseLower:
			m = lowerSlow(dst, s)
		default:
			m = initCapSlow(dst, s)
		}
		out.end(i, m)
		i++
	}
	return out.finish(dt, n, vbuf, nulls), nil
}

func (e *caseMap) failOut(out *bytesOut, vbuf *memory.Buffer, err error) error {
	out.release()
	if vbuf != nil {
		vbuf.Release()
	}
	return fmt.Errorf("%s: %w", e, err)
}

// mapASCII maps the ASCII bytes src into dst (as long) as one string: upper, lower, or for
// initcap lower with each byte after a space upper-cased (initCapRowStarts then upper-cases the
// first byte of each row). Eight bytes at a time: every byte is below 0x80, so adding a constant
// to a byte never carries into the next one, and the sum's top bit tells whether the byte is
// at least some bound; a letter's case is its 0x20 bit.
func mapASCII(kind caseKind, dst, src []byte) {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	dst = dst[:len(src)]
	i := 0
	switch kind {
	case caseUpper:
		for ; i+8 <= len(src); i += 8 {
			x := binary.LittleEndian.Uint64(src[i:])
			az := (x + (0x80-'a')*ones) &^ (x + (0x80-'z'-1)*ones) & high
			binary.LittleEndian.PutUint64(dst[i:], x^az>>2)
		}
		for ; i < len(src); i++ {
			dst[i] = asciiUpper[src[i]]
		}
	case caseLower:
		for ; i+8 <= len(src); i += 8 {
			x := binary.LittleEndian.Uint64(src[i:])
			az := (x + (0x80-'A')*ones) &^ (x + (0x80-'Z'-1)*ones) & high
			binary.LittleEndian.PutUint64(dst[i:], x^az>>2)
		}
		for ; i < len(src); i++ {
			dst[i] = asciiLower[src[i]]
		}
	case caseInitCap:
		var afterSpace uint64 // bit 7 set when the byte before the next word is a space
		for ; i+8 <= len(src); i += 8 {
			x := binary.LittleEndian.Uint64(src[i:])
			x ^= (x + (0x80-'A')*ones) &^ (x + (0x80-'Z'-1)*ones) & high >> 2
			space := ^((x ^ 0x20*ones) + 0x7f*ones) & high // the spaces
			az := (x + (0x80-'a')*ones) &^ (x + (0x80-'z'-1)*ones) & high
			x ^= (space<<8 | afterSpace) & az >> 2
			afterSpace = space >> 56
			binary.LittleEndian.PutUint64(dst[i:], x)
		}
		prev := byte(0)
		if afterSpace != 0 {
			prev = ' '
		}
		for ; i < len(src); i++ {
			l := asciiLower[src[i]]
			if prev == ' ' {
				dst[i] = asciiUpper[l]
			} else {
				dst[i] = l
			}
			prev = l
		}
	}
}

// initCapRowStarts upper-cases the first byte of each non-empty row of an ASCII run mapped by
// mapASCII, rows offs[k]..offs[k+1] of the input at dst[offs[k]-base:].
func initCapRowStarts(dst []byte, offs []int32, base int32) {
	for k := 0; k+1 < len(offs); k++ {
		if offs[k+1] > offs[k] {
			p := offs[k] - base
			dst[p] = asciiUpper[dst[p]]
		}
	}
}

// validRune decodes the code point at s[i] of UTF8String.makeValid's valid string: an invalid
// sequence (a byte that cannot start one, or a start whose second byte is out of Table 3-7's
// range: 1 byte; a sequence cut short by a non-continuation byte or the end: the bytes up to
// there) is one U+FFFD. It returns the code point and the bytes it spans.
func validRune(s []byte, i int) (rune, int) {
	b := s[i]
	if b < 0x80 {
		return rune(b), 1
	}
	const repl = utf8.RuneError
	want := int(validLen[b])
	n := min(want, len(s)-i)
	if n <= 1 {
		return repl, 1
	}
	lo, hi := byte(0x80), byte(0xBF)
	switch b {
	case 0xE0:
		lo = 0xA0
	case 0xED:
		hi = 0x9F
	case 0xF0:
		lo = 0x90
	case 0xF4:
		hi = 0x8F
	}
	if s[i+1] < lo || s[i+1] > hi {
		return repl, 1
	}
	k := 2
	for k < n && s[i+k]&0xC0 == 0x80 {
		k++
	}
	if k < want {
		return repl, k
	}
	r, _ := utf8.DecodeRune(s[i : i+k])
	return r, k
}

// validLen is UTF8String.bytesOfCodePointInUTF8: the length a first byte announces, 0 for a
// byte that cannot start a code point (continuation bytes, C0, C1, F5..FF).
var validLen = func() (l [256]uint8) {
	for b := range l {
		switch {
		case b < 0x80:
			l[b] = 1
		case b >= 0xC2 && b <= 0xDF:
			l[b] = 2
		case b >= 0xE0 && b <= 0xEF:
			l[b] = 3
		case b >= 0xF0 && b <= 0xF4:
			l[b] = 4
		}
	}
	return
}()

// putMapped writes r's mapping by t into dst and returns the bytes written.
func putMapped(dst []byte, t *runeTable, r rune) int {
	e := t.get(r)
	switch {
	case e == 0:
		return utf8.EncodeRune(dst, r)
	case e > 0:
		return utf8.EncodeRune(dst, e)
	default:
		return copy(dst, t.expand[-e-1])
	}
}

// upperSlow upper-cases a non-ASCII string (no context rule applies to upper in the root locale).
func upperSlow(dst, s []byte) int {
	m := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < 0x80 {
			dst[m] = asciiUpper[c]
			m++
			i++
			continue
		}
		r, w := validRune(s, i)
		i += w
		m += putMapped(dst[m:], upperTable, r)
	}
	return m
}

// lowerSlow lower-cases a non-ASCII string. Final_Sigma's context is read with ICU's case
// type (bit 1 cased, bit 2 case-ignorable, which wins): the last code point before that is not
// case-ignorable, tracked as the string is read, and the first one after, read ahead.
func lowerSlow(dst, s []byte) int {
	m := 0
	precededByCased := false
	for i := 0; i < len(s); {
		var r rune
		if c := s[i]; c < 0x80 {
			dst[m] = asciiLower[c]
			m++
			i++
			r = rune(c)
		} else {
			var w int
			r, w = validRune(s, i)
			i += w
			if r == 0x3A3 {
				sigma := rune(0x3C3)
				if precededByCased && !casedAfter(s, i, 1, 2) {
					sigma = 0x3C2
				}
				m += utf8.EncodeRune(dst[m:], sigma)
			} else {
				m += putMapped(dst[m:], lowerTable, r)
			}
		}
		if p := casePropTable.get(r); p&2 == 0 {
			precededByCased = p&1 != 0
		}
	}
	return m
}

// initCapSlow is CollationAwareUTF8String.toTitleCaseICU of a non-ASCII string: the same
// Final_Sigma reading as lowerSlow, with the Unicode properties (bit 4 cased, 8 case-ignorable).
func initCapSlow(dst, s []byte) int {
	m := 0
	newWord, precededByCased := true, false
	for i := 0; i < len(s); {
		r, w := validRune(s, i)
		i += w
		switch {
		case newWord:
			m += putMapped(dst[m:], titleTable, r)
		case r < 0x80:
			dst[m] = asciiLower[r]
			m++
		case r == 0x3A3:
			sigma := rune(0x3C3)
			if precededByCased && !casedAfter(s, i, 4, 8) {
				sigma = 0x3C2
			}
			m += utf8.EncodeRune(dst[m:], sigma)
		case r == 0x130:
			m += copy(dst[m:], "i\u0307")
		default:
			m += putMapped(dst[m:], simpleLowerTable, r)
		}
		newWord = r == ' '
		if p := casePropTable.get(r); p&8 == 0 {
			precededByCased = p&4 != 0
		}
	}
	return m
}

// casedAfter reports whether the first code point of s from byte i on that lacks the ignorable
// property bit has the cased bit.
func casedAfter(s []byte, i int, cased, ignorable int32) bool {
	for i < len(s) {
		r, w := validRune(s, i)
		i += w
		p := casePropTable.get(r)
		if p&ignorable != 0 {
			continue
		}
		return p&cased != 0
	}
	return false
}
