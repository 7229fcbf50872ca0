package exec

import (
	"fmt"
	"runtime/debug"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// Guarded wraps an operator so that its errors and panics name it: a user reading a failed task
// sees "BolideFilter: ..." rather than a bare Go message.
type Guarded struct {
	Name  string
	Inner Operator
}

func (g *Guarded) Schema() []sparktype.Field { return g.Inner.Schema() }

func (g *Guarded) Open(ctx *TaskContext) (err error) {
	defer g.recover(&err)
	if err = g.Inner.Open(ctx); err != nil {
		err = g.wrap(err)
	}
	return err
}

func (g *Guarded) Next() (b *columnar.Batch, err error) {
	defer g.recover(&err)
	b, err = g.Inner.Next()
	if err != nil {
		err = g.wrap(err)
	}
	return b, err
}

func (g *Guarded) Close() { g.Inner.Close() }

func (g *Guarded) recover(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("%s panicked: %v\n%s", g.Name, r, debug.Stack())
	}
}

// wrap prefixes the operator name once (children already named their own errors).
func (g *Guarded) wrap(err error) error {
	if _, named := err.(*namedError); named {
		return err
	}
	return &namedError{op: g.Name, err: err}
}

type namedError struct {
	op  string
	err error
}

func (e *namedError) Error() string { return e.op + ": " + e.err.Error() }
func (e *namedError) Unwrap() error { return e.err }
