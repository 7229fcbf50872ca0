package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"testing"
	"time"
)

// watch wraps the real Open: it counts the files open at once (being opened, or opened and not
// closed) and slows each open down, so that concurrency shows.
type watch struct {
	mu            sync.Mutex
	open, maxOpen int
	order         []string
}

func (w *watch) add(d int) {
	w.mu.Lock()
	w.open += d
	w.maxOpen = max(w.maxOpen, w.open)
	w.mu.Unlock()
}

func (w *watch) openFunc(ctx context.Context, loc string, cfg *Config) (File, error) {
	w.add(1)
	w.mu.Lock()
	w.order = append(w.order, loc)
	w.mu.Unlock()
	time.Sleep(30 * time.Millisecond)
	f, err := Open(ctx, loc, cfg)
	if err != nil {
		w.add(-1)
		return nil, err
	}
	return &watched{File: f, w: w}, nil
}

type watched struct {
	File
	w    *watch
	once sync.Once
}

func (f *watched) Close() error {
	f.once.Do(func() { f.w.add(-1) })
	return f.File.Close()
}

func (w *watch) state() (open, maxOpen int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open, w.maxOpen
}

// objects puts n objects, alternately small and large, and returns their locations and bytes.
func objects(t *testing.T, prefix string, n int) ([]string, [][]byte) {
	locs := make([]string, n)
	data := make([][]byte, n)
	for i := range locs {
		size := 80_000 + i // more than the tail, less than WholeObjectMax below
		if i%2 == 1 {
			size = 300_000 + i
		}
		data[i] = randomBytes(size)
		locs[i] = put(t, fmt.Sprintf("%s/%02d", prefix, i), data[i])
	}
	return locs, data
}

func TestPrefetcherOrderAndBound(t *testing.T) {
	needS3(t)
	locs, data := objects(t, "prefetch-order", 10)
	for _, limit := range []int{1, 3} {
		w := &watch{}
		p := newPrefetcher(context.Background(), locs, testConfig(), PrefetchOptions{Limit: limit, WholeObjectMax: 100_000}, w.openFunc)
		for i := range locs {
			if i == 2 {
				time.Sleep(150 * time.Millisecond) // let the Prefetcher run ahead as far as it may
			}
			f, err := p.Next()
			if err != nil {
				t.Fatal(err)
			}
			if f.Name() != locs[i] {
				t.Fatalf("limit %d: file %d is %s, want %s", limit, i, f.Name(), locs[i])
			}
			buf := make([]byte, f.Size())
			if _, err := f.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, data[i]) {
				t.Fatalf("limit %d: %s: %v or bytes differ", limit, locs[i], err)
			}
			if len(data[i]) < 100_000 && requests(t, f.(*prefetched).File.(*watched).File) != 2 {
				t.Errorf("%s: a small object should be read by the open (tail, then the rest)", locs[i])
			}
			f.Close()
		}
		if f, err := p.Next(); f != nil || err != io.EOF {
			t.Errorf("after the last: %v, %v", f, err)
		}
		p.Close()
		open, maxOpen := w.state()
		if open != 0 || maxOpen != limit {
			t.Errorf("limit %d: %d files open at most (want exactly the limit), %d left open", limit, maxOpen, open)
		}
		// Opens start in order, run concurrently, and each location is opened once.
		seen := map[string]int{}
		for _, l := range w.order {
			seen[l]++
		}
		for _, l := range locs {
			if seen[l] != 1 {
				t.Errorf("limit %d: %s opened %d times", limit, l, seen[l])
			}
		}
	}
}

// A missing file fails in its turn; the others are still handed out.
func TestPrefetcherError(t *testing.T) {
	needS3(t)
	locs, _ := objects(t, "prefetch-error", 3)
	missing := "s3://" + testBucket + "/prefetch-error/missing"
	locs = []string{locs[0], missing, locs[1], locs[2]}
	p := NewPrefetcher(context.Background(), locs, testConfig(), PrefetchOptions{Limit: 2})
	defer p.Close()
	for i, loc := range locs {
		f, err := p.Next()
		if loc == missing {
			if !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("missing file: %v", err)
			}
			continue
		}
		if err != nil || f.Name() != loc {
			t.Fatalf("file %d: %v", i, err)
		}
		f.Close()
	}
}

// Close closes the files not handed out; those handed out stay readable.
func TestPrefetcherClose(t *testing.T) {
	needS3(t)
	locs, data := objects(t, "prefetch-close", 8)
	w := &watch{}
	p := newPrefetcher(context.Background(), locs, testConfig(), PrefetchOptions{Limit: 4}, w.openFunc)
	f0, err := p.Next()
	if err != nil {
		t.Fatal(err)
	}
	f1, err := p.Next()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	p.Close()
	if open, _ := w.state(); open != 2 {
		t.Errorf("%d files open after Close, want the 2 handed out", open)
	}
	buf := make([]byte, len(data[1]))
	if _, err := f1.ReadAt(buf, 0); err != nil || !bytes.Equal(buf, data[1]) {
		t.Errorf("a file handed out before Close: %v", err)
	}
	f0.Close()
	f1.Close()
	if open, _ := w.state(); open != 0 {
		t.Errorf("%d files open, want 0", open)
	}
	if _, err := p.Next(); !errors.Is(err, context.Canceled) {
		t.Errorf("Next after Close: %v, want context.Canceled", err)
	}
}

func TestPrefetcherLocalFiles(t *testing.T) {
	dir := t.TempDir()
	var locs []string
	for i := 0; i < 5; i++ {
		path := fmt.Sprintf("%s/%d", dir, i)
		if err := os.WriteFile(path, []byte{byte(i)}, 0o644); err != nil {
			t.Fatal(err)
		}
		locs = append(locs, "file:"+path)
	}
	p := NewPrefetcher(context.Background(), locs, nil, PrefetchOptions{Limit: 2})
	defer p.Close()
	for i := range locs {
		f, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 1)
		if _, err := f.ReadAt(b, 0); err != nil || b[0] != byte(i) {
			t.Fatalf("file %d: %v %v", i, b, err)
		}
		f.Close()
	}
}
