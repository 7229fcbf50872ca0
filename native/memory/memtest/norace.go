//go:build !race

package memtest

// Race reports whether the test binary runs under the race detector. Matrix tests (every type
// by every shape) run a rotating part of their matrix under it: the detector looks for
// concurrency bugs, which a few cells show as well as all of them, at five to ten times the
// cost per cell; `make test` runs the whole matrices once more without it.
const Race = false
