package expr

import (
	"fmt"
	"math"
	"testing"

	"github.com/bolide-dev/bolide/native/plan"
)

func seqJSON(elem string, start, stop, step string) string {
	typ := fmt.Sprintf(`{"type":"array","elementType":%q,"containsNull":false}`, elem)
	if step == "" {
		step = "null"
	}
	return arrNodeT("Sequence", typ, "start", start, "stop", stop, "stepOpt", step, "timeZoneId", `"UTC"`)
}

func TestSequenceIntegral(t *testing.T) {
	start := column(t, "integer", 1, 5, 3, nil, 7, -2)
	stop := column(t, "integer", 5, 1, 3, 4, nil, 7)
	got, err := arrRun(t, seqJSON("integer", col(0, "integer"), col(1, "integer"), ""), start, stop)
	expectRows(t, "default step", got, err, "[1, 2, 3, 4, 5]", "[5, 4, 3, 2, 1]", "[3]", "null", "null",
		"[-2, -1, 0, 1, 2, 3, 4, 5, 6, 7]")

	step := column(t, "integer", 2, -3, 0, 1, 1, 4)
	got, err = arrRun(t, seqJSON("integer", col(0, "integer"), col(1, "integer"), col(2, "integer")), start, stop, step)
	expectRows(t, "explicit step", got, err, "[1, 3, 5]", "[5, 2]", "[3]", "null", "null", "[-2, 2, 6]")

	// Bytes wrap in the intermediate products but not in the result.
	bs := column(t, "byte", -128, 127)
	be := column(t, "byte", 127, -128)
	bst := column(t, "byte", 127, -127)
	got, err = arrRun(t, seqJSON("byte", col(0, "byte"), col(1, "byte"), col(2, "byte")), bs, be, bst)
	expectRows(t, "bytes", got, err, "[-128, -1, 126]", "[127, 0, -127]")

	// Longs at the extremes.
	ls := column(t, "long", int64(math.MinInt64), int64(math.MaxInt64-2))
	le := column(t, "long", int64(math.MinInt64+2), int64(math.MaxInt64))
	got, err = arrRun(t, seqJSON("long", col(0, "long"), col(1, "long"), ""), ls, le)
	expectRows(t, "long extremes", got, err, "[-9223372036854775808, -9223372036854775807, -9223372036854775806]",
		"[9223372036854775805, 9223372036854775806, 9223372036854775807]")
	// stop - start overflows a long although the sequence is short: Spark fails with its internal
	// "Unreachable code reached." error, and so does this.
	_, err = arrRun(t, seqJSON("long", col(0, "long"), col(1, "long"), litLong(math.MaxInt64)),
		column(t, "long", int64(math.MinInt64)), column(t, "long", int64(0)))
	if err == nil {
		t.Errorf("long big step: no error")
	}
	got, err = arrRun(t, seqJSON("long", col(0, "long"), col(1, "long"), litLong(math.MaxInt64)),
		column(t, "long", int64(0)), column(t, "long", int64(math.MaxInt64)))
	expectRows(t, "long big step", got, err, "[0, 9223372036854775807]")
}

func litLong(v int64) string { return lit("long", fmt.Sprint(v)) }

func TestSequenceErrors(t *testing.T) {
	js := seqJSON("integer", col(0, "integer"), col(1, "integer"), col(2, "integer"))
	_, err := arrRun(t, js, column(t, "integer", 1, 5), column(t, "integer", 2, 1), column(t, "integer", 1, 1))
	expectSparkError(t, "wrong direction", err, "_LEGACY_ERROR_TEMP_3243", map[string]string{"start": "5", "stop": "1", "step": "1"})
	_, err = arrRun(t, js, column(t, "integer", 1), column(t, "integer", 2), column(t, "integer", 0))
	expectSparkError(t, "zero step", err, "_LEGACY_ERROR_TEMP_3243", nil)
	// A null row raises nothing.
	got, err := arrRun(t, js, column(t, "integer", nil), column(t, "integer", 1), column(t, "integer", 1))
	expectRows(t, "null start", got, err, "null")

	_, err = arrRun(t, seqJSON("integer", col(0, "integer"), col(1, "integer"), ""),
		column(t, "integer", math.MinInt32), column(t, "integer", math.MaxInt32))
	expectSparkError(t, "too long", err, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", map[string]string{"numberOfElements": "4294967296"})
	_, err = arrRun(t, seqJSON("long", col(0, "long"), col(1, "long"), ""),
		column(t, "long", int64(math.MinInt64)), column(t, "long", int64(math.MaxInt64)))
	expectSparkError(t, "long overflow", err, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", map[string]string{"numberOfElements": "18446744073709551616"})
	_, err = arrRun(t, seqJSON("long", col(0, "long"), col(1, "long"), litLong(-1)),
		column(t, "long", int64(math.MaxInt64)), column(t, "long", int64(math.MinInt64)))
	expectSparkError(t, "long overflow down", err, "COLLECTION_SIZE_LIMIT_EXCEEDED.PARAMETER", map[string]string{"numberOfElements": "18446744073709551616"})
}

func TestSequenceDates(t *testing.T) {
	got, err := arrRun(t, seqJSON("date", col(0, "date"), col(1, "date"), ""), column(t, "date", 100, 5, nil), column(t, "date", 102, 3, 1))
	expectRows(t, "dates", got, err, "[100, 101, 102]", "[5, 4, 3]", "null")
	dateSeq := func(zone string) string {
		return arrNodeT("Sequence", `{"type":"array","elementType":"date","containsNull":false}`,
			"start", col(0, "date"), "stop", col(1, "date"), "stepOpt", "null", "timeZoneId", q(zone))
	}
	if _, err := Translate(parse(t, dateSeq("+02:00")), &plan.Conf{}); err != nil {
		t.Errorf("fixed offset zone refused: %v", err)
	}
	expectRefused(t, "dst zone", dateSeq("Europe/Paris"), "transitions")
	expectRefused(t, "timestamps", arrNodeT("Sequence", `{"type":"array","elementType":"timestamp","containsNull":false}`,
		"start", col(0, "timestamp"), "stop", col(1, "timestamp"), "stepOpt", "null", "timeZoneId", `"UTC"`), "sequence of timestamp")
}
