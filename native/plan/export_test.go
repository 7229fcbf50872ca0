package plan

// SetFastPath turns the one-pass decoding on or off (off: encoding/json alone, as before it) and
// returns a function that restores the previous setting. Tests that call it must not run in
// parallel.
func SetFastPath(on bool) (restore func()) {
	old := fastPath
	fastPath = on
	return func() { fastPath = old }
}

// Scan reports whether the one-pass scanner accepts buf.
func Scan(buf []byte) bool {
	_, err := scan(buf)
	return err == nil
}
