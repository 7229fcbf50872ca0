package columnar

// View returns the bytes b as a slice of T (len(b)/size of T elements, no copy), for code that
// fills or reads the buffers of a column it builds itself (the shuffle's block decoder). b must be
// aligned for T; memory from an arrow allocator always is.
func View[T any](b []byte) []T { return reinterpret[T](b) }
