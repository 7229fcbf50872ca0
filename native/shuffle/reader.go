package shuffle

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bolide-dev/bolide/native/columnar"
	"github.com/bolide-dev/bolide/native/exec"
	"github.com/bolide-dev/bolide/native/sparktype"
)

// FrameSource yields the frames of one reduce partition (the concatenation of the blocks of every
// map output being read), each frame INCLUDING its 4-byte length prefix. nil, nil at the end. The
// returned slice is only valid until the next call (it is a reused JVM direct buffer): copy or
// decompress out of it before returning from Next.
type FrameSource interface{ NextFrame() ([]byte, error) }

// NewReader is the leaf operator that decodes frames into batches of the given schema, concatenating
// small decoded blocks up to targetRows rows per output batch (blocks from many map tasks are often
// tiny). All output buffers come from ctx.Alloc (set in Open).
//
// A block is decompressed into one buffer of ctx.Alloc which its columns view (no copy); a batch
// made of several blocks is concatenated into new buffers and the blocks are freed at once. A
// block of targetRows rows or more is returned as it is. targetRows <= 0 means ctx.BatchSize().
func NewReader(schema []sparktype.Field, src FrameSource, targetRows int) exec.Operator {
	return &reader{schema: schema, src: src, target: targetRows}
}

type reader struct {
	schema []sparktype.Field
	src    FrameSource
	target int

	ctx       *exec.TaskContext
	bs        *blockSchema
	dec       *blockDecoder
	accounted int64 // the decoder's scratch (Go heap), reported to ctx.Alloc
	limit     int   // target rows per batch
	frames    int   // frames read so far
	pending   []*columnar.Batch
	pendN     int
	done      bool
}

func (r *reader) Schema() []sparktype.Field { return r.schema }

func (r *reader) Open(ctx *exec.TaskContext) error {
	if ctx.Alloc == nil {
		return fmt.Errorf("shuffle read without a task allocator")
	}
	bs, err := newBlockSchema(r.schema)
	if err != nil {
		return fmt.Errorf("shuffle read: %w", err)
	}
	r.ctx, r.bs, r.dec, r.limit = ctx, bs, newBlockDecoder(bs), r.target
	if r.limit <= 0 {
		r.limit = ctx.BatchSize()
	}
	return nil
}

func (r *reader) Next() (*columnar.Batch, error) {
	if r.bs == nil {
		return nil, fmt.Errorf("shuffle reader read before Open")
	}
	for !r.done {
		// Out of memory with rows in hand: hand them over now, so that the consumer reaches its
		// safe point and spills, rather than failing the read before the next block.
		if r.pendN > 0 && r.ctx.Alloc.OutOfMemory() && !r.ctx.Alloc.TrimToFit() {
			return r.flush()
		}
		b, err := r.nextBlock()
		if err != nil {
			return nil, err
		}
		if b == nil {
			r.done = true
			break
		}
		if r.pendN > 0 && r.pendN+b.NumRows > r.limit {
			out, err := r.flush()
			r.pending, r.pendN = append(r.pending, b), b.NumRows
			return out, err
		}
		r.pending = append(r.pending, b)
		r.pendN += b.NumRows
		if r.pendN >= r.limit {
			return r.flush()
		}
	}
	if r.pendN == 0 {
		return nil, nil
	}
	return r.flush()
}

// nextBlock decodes the next non-empty frame, or returns nil at the end.
func (r *reader) nextBlock() (*columnar.Batch, error) {
	for {
		// A refused reservation (the previous block's decoding, say) that the allocator's cache
		// of freed buffers accounts for is no reason to fail the read: drop the cache first.
		r.ctx.Alloc.TrimToFit()
		if err := r.ctx.Alloc.Err(); err != nil {
			return nil, err
		}
		frame, err := r.src.NextFrame()
		if err != nil {
			return nil, fmt.Errorf("shuffle read: frame %d: %w", r.frames, err)
		}
		if len(frame) == 0 { // nil, or an empty view of the JVM's buffer: the end
			return nil, nil
		}
		b, err := r.dec.decode(r.ctx.Alloc, frame)
		r.account()
		if err != nil {
			return nil, fmt.Errorf("shuffle read: frame %d (%d bytes): %w", r.frames, len(frame), err)
		}
		r.frames++
		if b.NumRows > 0 {
			return b, nil
		}
		b.Release()
	}
}

// flush returns the pending blocks as one batch.
func (r *reader) flush() (*columnar.Batch, error) {
	pend := r.pending
	r.pending, r.pendN = r.pending[:0], 0
	if len(pend) == 1 {
		b := pend[0]
		pend[0] = nil
		return b, nil
	}
	defer func() {
		for i, b := range pend {
			b.Release()
			pend[i] = nil
		}
	}()
	rows := 0
	for _, b := range pend {
		rows += b.NumRows
	}
	cols := make([]arrow.Array, len(r.schema))
	parts := make([]arrow.Array, len(pend))
	for c := range cols {
		for i, b := range pend {
			parts[i] = b.Cols[c]
		}
		a, err := array.Concatenate(parts, r.ctx.Alloc)
		if err != nil {
			columnar.NewBatch(cols[:c], 0).Release()
			return nil, fmt.Errorf("shuffle read: concatenating %d blocks: %w", len(pend), err)
		}
		cols[c] = a
	}
	return columnar.NewBatch(cols, rows), nil
}

// account reports the decoder's scratch to the task (it grows to the largest block).
func (r *reader) account() {
	size := r.dec.memSize()
	r.ctx.Alloc.Account(size - r.accounted)
	r.accounted = size
}

func (r *reader) Close() {
	for _, b := range r.pending {
		b.Release()
	}
	r.pending, r.pendN = nil, 0
	r.done = true
	if r.dec != nil {
		r.ctx.Alloc.Account(-r.accounted)
		r.accounted, r.dec = 0, nil
	}
}
