package objstore

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// DefaultWholeObjectMax is the size up to which a Prefetcher fetches an S3 object whole.
const DefaultWholeObjectMax = 8 << 20

// PrefetchOptions bound a Prefetcher.
type PrefetchOptions struct {
	// Limit is how many files may be open at once: those being opened or waiting ahead of the
	// consumer, plus those Next handed out and not yet closed. Below 1 counts as 1, which opens
	// each file only once the previous one is closed (no overlap). The Iceberg scan passes
	// spark.bolide.scan.iceberg.dataFileConcurrencyLimit.
	Limit int
	// WholeObjectMax: an S3 object of at most this many bytes is fetched whole while it waits
	// ahead, so its reads cost no request at all; a larger one only has its tail fetched, the
	// rest read lazily by ranges. 0 means DefaultWholeObjectMax, a negative value never.
	WholeObjectMax int64
}

// Prefetcher opens the files of a task in order, up to Limit of them concurrently ahead of the
// consumer, which takes them in order with Next. Memory stays bounded: at most Limit files are
// open, and a file waiting ahead holds at most max(WholeObjectMax, 64 KiB) (its tail or its
// whole object), so the files ahead hold at most Limit x that; a file being read adds its
// readahead windows (32 MiB at most, see readahead.go). Local files are only opened ahead.
//
// A Prefetcher is for one consumer goroutine; Close may be called from any.
type Prefetcher struct {
	locs   []string
	opts   PrefetchOptions
	parent context.Context
	ctx    context.Context // cancelled by Close: stops opening, cancels the files not handed out
	cancel context.CancelFunc
	tokens chan struct{} // one per open file
	slots  []chan opened // one per location, filled once
	next   int
	wg     sync.WaitGroup
	once   sync.Once
}

type opened struct {
	f      File
	err    error
	detach func() bool // unties the file from the Prefetcher's context (it is handed out)
	cancel context.CancelFunc
}

// NewPrefetcher starts opening locations (see Open for their forms and cfg). Files live under
// ctx: cancelling it fails their reads, as Open's context does. Close the Prefetcher when done.
func NewPrefetcher(ctx context.Context, locations []string, cfg *Config, opts PrefetchOptions) *Prefetcher {
	return newPrefetcher(ctx, locations, cfg, opts, Open)
}

// newPrefetcher takes the function that opens a location, so tests can watch the real Open.
func newPrefetcher(ctx context.Context, locations []string, cfg *Config, opts PrefetchOptions,
	open func(context.Context, string, *Config) (File, error)) *Prefetcher {
	opts.Limit = max(opts.Limit, 1)
	if opts.WholeObjectMax == 0 {
		opts.WholeObjectMax = DefaultWholeObjectMax
	}
	p := &Prefetcher{locs: locations, opts: opts, parent: ctx, tokens: make(chan struct{}, opts.Limit),
		slots: make([]chan opened, len(locations))}
	p.ctx, p.cancel = context.WithCancel(ctx)
	for i := range p.slots {
		p.slots[i] = make(chan opened, 1)
	}
	p.wg.Add(1)
	// Tokens are taken in location order, so the file the consumer waits for is always among
	// those being opened: a later file cannot hold the token the next one needs.
	go func() {
		defer p.wg.Done()
		for i, loc := range locations {
			select {
			case p.tokens <- struct{}{}:
			case <-p.ctx.Done():
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.slots[i] <- p.open(open, loc, cfg)
			}()
		}
	}()
	return p
}

// open opens one file under a context of its own: the Prefetcher's until the file is handed out,
// the caller's after.
func (p *Prefetcher) open(open func(context.Context, string, *Config) (File, error), loc string, cfg *Config) opened {
	fctx, cancel := context.WithCancel(p.parent)
	detach := context.AfterFunc(p.ctx, cancel)
	f, err := open(fctx, loc, cfg)
	if err == nil && p.opts.WholeObjectMax > 0 && f.Size() <= p.opts.WholeObjectMax {
		if s, ok := f.(*s3File); ok {
			err = s.loadAll()
			if err != nil {
				f.Close()
				f = nil
			}
		}
	}
	if err != nil {
		<-p.tokens // an error holds no memory
		detach()
		cancel()
		return opened{err: err}
	}
	return opened{f: f, detach: detach, cancel: cancel}
}

// Next returns the next file, in the order of the locations, waiting until it is open; nil and
// io.EOF after the last. An error opening a file is returned in its turn (the files after it
// can still be taken). The caller owns the file and must Close it: that frees its place for the
// next file ahead.
func (p *Prefetcher) Next() (File, error) {
	if p.next >= len(p.slots) {
		return nil, io.EOF
	}
	i := p.next
	select {
	case o := <-p.slots[i]:
		p.next++
		if o.err != nil {
			return nil, o.err
		}
		if !o.detach() { // Close won the race: the file's context is cancelled already
			o.f.Close()
			<-p.tokens
			return nil, fmt.Errorf("prefetch %s: %w", p.locs[i], context.Cause(p.ctx))
		}
		return &prefetched{File: o.f, done: func() { o.cancel(); <-p.tokens }}, nil
	case <-p.ctx.Done():
		return nil, fmt.Errorf("prefetch %s: %w", p.locs[i], context.Cause(p.ctx))
	}
}

// Close stops opening files and closes those opened but not handed out; files handed out stay
// usable. Closing twice is harmless.
func (p *Prefetcher) Close() error {
	p.once.Do(func() {
		p.cancel()
		p.wg.Wait()
		for _, s := range p.slots {
			select {
			case o := <-s:
				if o.f != nil {
					o.f.Close()
					o.cancel()
				}
			default:
			}
		}
	})
	return nil
}

// prefetched is a file handed out by Next: closing it frees its token.
type prefetched struct {
	File
	once sync.Once
	done func()
}

func (f *prefetched) Close() error {
	err := f.File.Close()
	f.once.Do(f.done)
	return err
}
