package iceberg

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
)

// LocalPath turns an Iceberg location on the local file system into a path.
func LocalPath(loc string) (string, error) {
	if strings.HasPrefix(loc, "/") {
		return loc, nil
	}
	u, err := url.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("parse location %q: %w", loc, err)
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("file system %q is not read natively yet (%s)", u.Scheme, loc)
	}
	return u.Path, nil
}

// readRange reads [off, off+n) of a local file (a deletion vector's blob in its Puffin file).
func readRange(path string, off, n int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if off < 0 || n < 0 || off+n > fi.Size() {
		return nil, fmt.Errorf("blob [%d, +%d) lies outside the file (%d bytes)", off, n, fi.Size())
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return nil, fmt.Errorf("read blob [%d, +%d): %w", off, n, err)
	}
	return buf, nil
}
