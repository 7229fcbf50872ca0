package expr

import "testing"

func TestBRoundDecimal(t *testing.T) {
	in := column(t, "decimal(7,3)", "1245", "1235", "-1245", "-1235", "1246", "-1244", "9999999", "-9999995", "500", "1500", "2500", nil)
	got, err := run(t, node("BRound", "decimal(7,2)", "child", col(0, "decimal(7,3)"), "scale", litInt(2), "ansiEnabled", "true"), in)
	// HALF_EVEN: a tie goes to the even neighbour.
	expectRows(t, "bround 2", got, err, "1.24", "1.24", "-1.24", "-1.24", "1.25", "-1.24", "10000.00", "-10000.00", "0.50", "1.50", "2.50", "null")
	got, err = run(t, node("BRound", "decimal(5,0)", "child", col(0, "decimal(7,3)"), "scale", litInt(0), "ansiEnabled", "true"), in)
	expectRows(t, "bround 0", got, err, "1", "1", "-1", "-1", "1", "-1", "10000", "-10000", "0", "2", "2", "null")
	// Wide values take the 128-bit path: ...678.5 ties to even (down), -...679.5 to -...680,
	// and ...678.50000000000000000001 is above the tie.
	wide := column(t, "decimal(38,20)", "12345678901234567850000000000000000000", "-12345678901234567950000000000000000000",
		"12345678901234567850000000000000000001")
	got, err = run(t, node("BRound", "decimal(19,0)", "child", col(0, "decimal(38,20)"), "scale", litInt(0), "ansiEnabled", "true"), wide)
	expectRows(t, "bround wide", got, err, "123456789012345678", "-123456789012345680", "123456789012345679")
	expectRefused(t, "bround double", node("BRound", "double", "child", col(0, "double"), "scale", litInt(2), "ansiEnabled", "true"), "of double")
}
