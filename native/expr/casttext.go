package expr

import (
	"github.com/bolide-dev/bolide/native/plan"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// textCast picks the kernel of a cast from or to a string or a date. ok is false for casts it
// does not handle (numeric and boolean casts, cast.go); a nil kernel with ok is a refusal, why
// says what is missing.
func textCast(e *cast, pe *plan.Expr, conf *plan.Conf) (fn castFn, why string, ok bool) {
	from, to := e.from, e.to
	switch {
	case from.Kind == sparktype.String && to.IsIntegral():
		return castStringToIntegral, "", true
	case from.Kind == sparktype.String && to.Kind == sparktype.Boolean:
		return castStringToBoolean, "", true
	case from.Kind == sparktype.String && to.Kind == sparktype.Decimal:
		if why := stringToDecimalRefusal(conf); why != "" {
			return nil, why, true
		}
		return castStringToDecimal, "", true
	case from.Kind == sparktype.String && to.IsFloating():
		return castStringToFloating, "", true
	case from.Kind == sparktype.String && to.Kind == sparktype.Timestamp:
		z, err := zoneOf(pe, conf)
		if err != nil {
			return nil, err.Error(), true
		}
		fn, why := stringToTimestampCast(to, z)
		return fn, why, true
	case from.Kind == sparktype.String && to.Kind == sparktype.TimestampNTZ:
		fn, why := stringToTimestampCast(to, nil)
		return fn, why, true
	case from.Kind == sparktype.String && to.Kind == sparktype.Date:
		return castStringToDate, "", true
	case to.Kind == sparktype.String && from.IsIntegral():
		return castIntegralToString, "", true
	case to.Kind == sparktype.String && from.Kind == sparktype.Boolean:
		return castBooleanToString, "", true
	case to.Kind == sparktype.String && from.Kind == sparktype.Decimal:
		if from.Scale < 0 {
			return nil, "a decimal with a negative scale", true
		}
		return castDecimalToString, "", true
	case to.Kind == sparktype.String && from.IsFloating():
		if why := javaToStringUnknown(); why != "" {
			return nil, why, true
		}
		return castFloatingToString, "", true
	case to.Kind == sparktype.String && from.Kind == sparktype.Timestamp:
		z, err := zoneOf(pe, conf)
		if err != nil {
			return nil, err.Error(), true
		}
		return timestampToString(z), "", true
	case to.Kind == sparktype.String && from.Kind == sparktype.TimestampNTZ:
		return timestampToString(nil), "", true
	case from.Kind == sparktype.Date && to.Kind == sparktype.String:
		if why := legacyTimeParser(conf); why != "" {
			return nil, why, true
		}
		return castDateToString, "", true
	}
	return nil, "", false
}
