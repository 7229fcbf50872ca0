package iceberg

import "fmt"

// Identity-partition values of uuid columns arrive as strings: Iceberg Java hands a
// java.util.UUID to Spark as its toString, the canonical lower-case 8-4-4-4-12 form, the same
// form uuid data columns are read as (parquet/uuid.go). The JVM encodes that form
// (IcebergScans.constantValue); this check keeps a value in any other form from becoming an
// answer that differs from Iceberg Java's.

// checkUUIDConstant accepts a decoded constant that is null or a canonical lower-case uuid.
func checkUUIDConstant(v any) error {
	if v == nil {
		return nil
	}
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("a uuid partition value must be a string, not %T", v)
	}
	if !canonicalUUID(s) {
		return fmt.Errorf("uuid partition value %q is not in the canonical lower-case 8-4-4-4-12 form", s)
	}
	return nil
}

func canonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
				return false
			}
		}
	}
	return true
}
