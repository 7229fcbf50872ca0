package expr

import (
	"bytes"

	"github.com/bolide-dev/bolide/native/plan"
)

// trim, ltrim, rtrim and btrim with a trim string (StringTrim, StringTrimLeft, StringTrimRight
// with trimStr; btrim is StringTrimBoth, rewritten to StringTrim) over UTF8_BINARY strings, as
// UTF8String.trimLeft(trimString) and trimRight(trimString) do: code point by code point (by
// numBytesForFirstByte, so invalid UTF-8 counts as Spark counts it) from the start or the end,
// a code point is removed while its bytes occur anywhere in trimString (a bytewise substring
// search: UTF8String.find); both sides trim the left first, then the right of what remains. A
// null trim string gives null; an empty one trims nothing. A code point cut short at the end of
// the string is taken to the end (UTF8String reads past its end there).

func translateTrimWith(pe *plan.Expr, side trimSide, conf *plan.Conf) (Expr, error) {
	src, err := stringChild(pe, "srcStr", conf)
	if err != nil {
		return nil, err
	}
	trim, err := stringChild(pe, "trimStr", conf)
	if err != nil {
		return nil, err
	}
	return &strEdit{namedCall: namedCall{name: trimNames[side], args: []Expr{src, trim}}, typ: src.Type(), row: func(out *bytesOut, a *editArgs) error {
		s, t := a.strs[0], a.strs[1]
		if side != trimRight {
			s = trimLeftWith(s, t)
		}
		if side != trimLeft {
			s = trimRightWith(s, t, &a.pos)
		}
		if err := out.ensure(len(s)); err != nil {
			return err
		}
		out.append(s)
		return nil
	}}, nil
}

// trimChar reports whether the code point c is found in t (UTF8String.find(c, 0) >= 0).
func trimChar(t, c []byte) bool {
	if len(c) == 1 {
		return bytes.IndexByte(t, c[0]) >= 0
	}
	return bytes.Contains(t, c)
}

func trimLeftWith(s, t []byte) []byte {
	i := 0
	for i < len(s) {
		w := min(int(utf8Width[s[i]]), len(s)-i)
		if !trimChar(t, s[i:i+w]) {
			break
		}
		i += w
	}
	return s[i:]
}

func trimRightWith(s, t []byte, pos *[]int32) []byte {
	if isASCII(s) {
		end := len(s)
		for end > 0 && bytes.IndexByte(t, s[end-1]) >= 0 {
			end--
		}
		return s[:end]
	}
	// Code points are delimited from the start (a continuation byte alone counts as one), as
	// UTF8String.trimRight does: record their starts, then walk back over them.
	starts := (*pos)[:0]
	for i := 0; i < len(s); i += int(utf8Width[s[i]]) {
		starts = append(starts, int32(i))
	}
	*pos = starts
	end := len(s)
	for k := len(starts) - 1; k >= 0; k-- {
		if !trimChar(t, s[starts[k]:end]) {
			break
		}
		end = int(starts[k])
	}
	return s[:end]
}
