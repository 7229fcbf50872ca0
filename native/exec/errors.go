package exec

import (
	"errors"
	"fmt"
)

// SparkError is an error Spark would raise with an error class (ANSI arithmetic overflow, division
// by zero, invalid cast input). The JVM adapter rethrows it as the matching Spark exception, so a
// user sees the same error class with Bolide on as off.
type SparkError struct {
	// Class is Spark's error class, e.g. "ARITHMETIC_OVERFLOW", "DIVIDE_BY_ZERO".
	Class string
	// Params are the error class's message parameters, as Spark names them.
	Params map[string]string
	// Exception is the Spark exception kind: "arithmetic", "number-format", "runtime", or
	// "spark" (a SparkException whose cause is the engine's own error, Cause).
	Exception string
	// Cause is what the engine saw, for errors Spark raises with a cause (file errors); its text
	// becomes the message of the Java cause.
	Cause error
}

func (e *SparkError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("[%s] %v: %v", e.Class, e.Params, e.Cause)
	}
	return fmt.Sprintf("[%s] %v", e.Class, e.Params)
}

func (e *SparkError) Unwrap() error { return e.Cause }

// FailedReadFile is Spark's FAILED_READ_FILE.<sub> error of a file scan (FileScanRDD, through
// FileDataSourceV2.attachFilePath): sub is FILE_NOT_EXIST, PARQUET_COLUMN_DATA_TYPE_MISMATCH or
// NO_HINT; path is the file as Spark names it (its URL-encoded URI), named once: cause says what
// went wrong without repeating it.
func FailedReadFile(sub, path string, cause error, params map[string]string) *SparkError {
	p := map[string]string{"path": path}
	for k, v := range params {
		p[k] = v
	}
	return &SparkError{Class: "FAILED_READ_FILE." + sub, Exception: "spark", Params: p, Cause: cause}
}

// AsSparkError finds a SparkError in err's chain.
func AsSparkError(err error) (*SparkError, bool) {
	var se *SparkError
	ok := errors.As(err, &se)
	return se, ok
}

// ArithmeticOverflow is Spark's ARITHMETIC_OVERFLOW error.
func ArithmeticOverflow(message, alternative string) *SparkError {
	return &SparkError{Class: "ARITHMETIC_OVERFLOW", Exception: "arithmetic",
		Params: map[string]string{"message": message, "alternative": alternative, "config": `"spark.sql.ansi.enabled"`}}
}

// DivideByZero is Spark's DIVIDE_BY_ZERO error.
func DivideByZero() *SparkError {
	return &SparkError{Class: "DIVIDE_BY_ZERO", Exception: "arithmetic",
		Params: map[string]string{"config": `"spark.sql.ansi.enabled"`}}
}

// RemainderByZero is Spark's REMAINDER_BY_ZERO error (ANSI `%` and pmod by zero).
func RemainderByZero() *SparkError {
	return &SparkError{Class: "REMAINDER_BY_ZERO", Exception: "arithmetic",
		Params: map[string]string{"config": `"spark.sql.ansi.enabled"`}}
}

// BinaryArithmeticOverflow is Spark's BINARY_ARITHMETIC_OVERFLOW error (ANSI byte/short +, -, *).
// Values are SQL literals of the operands widened to SMALLINT ("127S"); functionName is the
// try_ variant ("`try_add`"), a parameter newer Spark releases add (extra parameters are
// ignored by releases whose message does not use them).
func BinaryArithmeticOverflow(value1, symbol, value2, functionName string) *SparkError {
	return &SparkError{Class: "BINARY_ARITHMETIC_OVERFLOW", Exception: "arithmetic",
		Params: map[string]string{"value1": value1, "symbol": symbol, "value2": value2,
			"functionName": functionName}}
}

// CastOverflow is Spark's CAST_OVERFLOW error (QueryExecutionErrors.castingCauseOverflowError):
// value is the SQL literal of the source value, types are SQL type names in double quotes
// ("\"INT\""). ansiConfig is sent for releases whose message uses it.
func CastOverflow(value, sourceType, targetType string) *SparkError {
	return &SparkError{Class: "CAST_OVERFLOW", Exception: "arithmetic",
		Params: map[string]string{"value": value, "sourceType": sourceType, "targetType": targetType,
			"ansiConfig": `"spark.sql.ansi.enabled"`}}
}

// IllegalDayOfWeek is Spark's ILLEGAL_DAY_OF_WEEK (ANSI next_day of an unknown day name, a
// SparkIllegalArgumentException); name is the input as Java decodes it.
func IllegalDayOfWeek(name string) *SparkError {
	return &SparkError{Class: "ILLEGAL_DAY_OF_WEEK", Exception: "illegal-argument",
		Params: map[string]string{"string": name}}
}

// DatetimeFieldOutOfBounds is Spark's DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION
// (QueryExecutionErrors.ansiDateTimeArgumentOutOfRange, a SparkDateTimeException); rangeMessage
// is the message of the java.time exception Spark caught.
func DatetimeFieldOutOfBounds(rangeMessage string) *SparkError {
	return &SparkError{Class: "DATETIME_FIELD_OUT_OF_BOUNDS.WITH_SUGGESTION", Exception: "datetime",
		Params: map[string]string{"rangeMessage": rangeMessage, "ansiConfig": `"spark.sql.ansi.enabled"`}}
}
