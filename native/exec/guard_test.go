package exec

import (
	"strings"
	"testing"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/sparktype"
)

type panicky struct{ err error }

func (p *panicky) Schema() []sparktype.Field { return nil }
func (p *panicky) Open(*TaskContext) error   { return nil }
func (p *panicky) Close()                    {}
func (p *panicky) Next() (*columnar.Batch, error) {
	if p.err != nil {
		return nil, p.err
	}
	var m map[string]int
	m["boom"]++ // nil map write: a runtime panic
	return nil, nil
}

// A panic inside an operator becomes an error naming the operator; errors are named once and keep
// their Spark error class.
func TestGuardedNamesTheOperator(t *testing.T) {
	g := &Guarded{Name: "BolideFilter", Inner: &panicky{}}
	_, err := g.Next()
	if err == nil || !strings.HasPrefix(err.Error(), "BolideFilter panicked: assignment to entry in nil map") {
		t.Fatalf("got %v", err)
	}
	inner := &Guarded{Name: "BolideScan", Inner: &panicky{err: DivideByZero()}}
	outer := &Guarded{Name: "BolideProject", Inner: inner}
	_, err = outer.Next()
	if err == nil || !strings.HasPrefix(err.Error(), "BolideScan: [DIVIDE_BY_ZERO]") {
		t.Fatalf("got %v", err)
	}
	if se, ok := AsSparkError(err); !ok || se.Class != "DIVIDE_BY_ZERO" {
		t.Fatalf("Spark error class lost: %v", err)
	}
}
