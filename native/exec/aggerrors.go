package exec

import "strconv"

// Errors raised by aggregate functions in ANSI mode (kept apart from errors.go, which the
// expression kernels extend).

// DecimalSumOverflow is QueryExecutionErrors.overflowInSumOfDecimalError: ARITHMETIC_OVERFLOW with
// message "Overflow in sum of decimals"; suggestedFunc is "try_sum" (Sum) or "try_avg" (Average).
func DecimalSumOverflow(suggestedFunc string) *SparkError {
	return ArithmeticOverflow("Overflow in sum of decimals",
		" Use '"+suggestedFunc+"' to tolerate overflow and return NULL instead.")
}

// NumericValueOutOfRange is DataTypeErrors.cannotChangeDecimalPrecisionError:
// NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION; value is the decimal's plain string.
func NumericValueOutOfRange(value string, precision, scale int32) *SparkError {
	return &SparkError{Class: "NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION", Exception: "arithmetic",
		Params: map[string]string{
			"value":     value,
			"precision": strconv.Itoa(int(precision)),
			"scale":     strconv.Itoa(int(scale)),
			"config":    `"spark.sql.ansi.enabled"`,
		}}
}
