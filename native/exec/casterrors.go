package exec

// Errors of casts from strings in ANSI mode (kept apart from errors.go so that the cast kernels
// extend their own file).

// CastInvalidInput is Spark's CAST_INVALID_INPUT of a string that does not parse as the target
// type: expression is the string as a SQL literal (toSQLValue: quoted, backslashes and quotes
// escaped, the text as Java decodes the UTF-8), targetType the SQL type name in double quotes
// ("\"INT\""). Spark raises it as a SparkNumberFormatException for numbers, a
// SparkDateTimeException for dates and timestamps and a SparkRuntimeException for booleans; the
// JVM picks the exception from targetType.
func CastInvalidInput(expression, targetType string) *SparkError {
	return &SparkError{Class: "CAST_INVALID_INPUT", Exception: "number-format",
		Params: map[string]string{"expression": expression, "sourceType": `"STRING"`,
			"targetType": targetType, "ansiConfig": `"spark.sql.ansi.enabled"`}}
}

// NumericOutOfSupportedRange is DataTypeErrors.outOfDecimalTypeRangeError: a string whose
// decimal value has more than 38 integral digits, cast to a decimal in ANSI mode; value is the
// string as Java decodes it.
func NumericOutOfSupportedRange(value string) *SparkError {
	return &SparkError{Class: "NUMERIC_OUT_OF_SUPPORTED_RANGE", Exception: "arithmetic",
		Params: map[string]string{"value": value}}
}
