package objstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// localFile is a File on the local file system: os.File's ReadAt, with errors that name the
// location as given (a file: URI stays a URI in messages) instead of the decoded path.
type localFile struct {
	f      *os.File
	name   string
	size   int64
	closed atomic.Bool
}

func openLocal(loc, path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("local open %s: %w", loc, pathCause(err))
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("local stat %s: %w", loc, pathCause(err))
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("local open %s: is a directory", loc)
	}
	return &localFile{f: f, name: loc, size: fi.Size()}, nil
}

// pathCause drops the *fs.PathError around an os error, which would name the path a second time;
// its cause (syscall.ENOENT, so fs.ErrNotExist) stays.
func pathCause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (l *localFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := l.f.ReadAt(p, off)
	if err != nil && err != io.EOF { // io.EOF stays bare: callers compare with ==
		err = fmt.Errorf("local read %s range [%d,+%d): %w", l.name, off, len(p), pathCause(err))
	}
	return n, err
}

func (l *localFile) Size() int64         { return l.size }
func (l *localFile) Name() string        { return l.name }
func (l *localFile) Prefetch(_, _ int64) {}
func (l *localFile) WillRead([][2]int64) {}

// Close closes the file; closing twice is harmless.
func (l *localFile) Close() error {
	if l.closed.Swap(true) {
		return nil
	}
	if err := l.f.Close(); err != nil {
		return fmt.Errorf("local close %s: %w", l.name, pathCause(err))
	}
	return nil
}
