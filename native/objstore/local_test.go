package objstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLocation(t *testing.T) {
	for _, c := range []struct {
		in   string
		want location
		err  string
	}{
		{in: "/abs/p q/f.parquet", want: location{path: "/abs/p q/f.parquet"}},
		{in: "rel/f", want: location{path: "rel/f"}},
		{in: "/a%20b", want: location{path: "/a%20b"}}, // a path is never decoded
		{in: "file:/a%20b/c", want: location{path: "/a b/c"}},
		{in: "file:///a%20b/c", want: location{path: "/a b/c"}},
		{in: "file://localhost/a/c", want: location{path: "/a/c"}},
		{in: "FILE:/x", want: location{path: "/x"}},
		{in: "file:/tmp/100%", want: location{path: "/tmp/100%"}}, // not an escape: taken as it is
		{in: "file:/a b", want: location{path: "/a b"}},
		{in: "s3://bucket/k/e/y.parquet", want: location{bucket: "bucket", key: "k/e/y.parquet"}},
		{in: "s3a://bucket/a%20b?c#d", want: location{bucket: "bucket", key: "a%20b?c#d"}}, // keys are verbatim
		{in: "s3n://bucket/k", want: location{bucket: "bucket", key: "k"}},
		{in: "S3A://bucket/k", want: location{bucket: "bucket", key: "k"}},
		{in: "", err: "empty location"},
		{in: "s3://bucket", err: "s3://bucket/key"},
		{in: "s3://bucket/", err: "s3://bucket/key"},
		{in: "s3:/bucket/k", err: "s3://bucket/key"},
		{in: "file://otherhost/x", err: "names a host"},
		{in: "file:rel", err: "relative"},
		{in: "gs://b/k", err: "unsupported location scheme"},
		{in: "s3a://AK:SK@bucket/k", err: "credentials in a location"},
	} {
		got, err := parseLocation(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.err)
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	if _, err := parseLocation("hdfs://nn/x"); !errors.Is(err, ErrUnsupportedScheme) {
		t.Errorf("hdfs: %v, want ErrUnsupportedScheme", err)
	}
	if _, err := parseLocation("s3a://AK:SK@bucket/k"); err == nil || strings.Contains(err.Error(), "SK") {
		t.Errorf("credentials in a location: %v, want an error that does not repeat them", err)
	}
}

// file: URIs of paths with spaces and percent signs reach the file, however they are written.
func TestLocalFileURIs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dir with space", "100% sure")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a b+c#d.bin")
	data := []byte("local bytes")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	encoded := (&url.URL{Scheme: "file", Path: path}).String() // file:///...%20...%25...
	for _, loc := range []string{
		path,
		encoded,
		"file:" + strings.TrimPrefix(encoded, "file://"), // file:/... as Java writes
		"file://localhost" + strings.TrimPrefix(encoded, "file://"),
	} {
		f := mustOpen(t, loc, nil)
		if f.Name() != loc || f.Size() != int64(len(data)) {
			t.Errorf("%s: name %q size %d", loc, f.Name(), f.Size())
		}
		buf := make([]byte, 20)
		n, err := f.ReadAt(buf, 0)
		if n != len(data) || err != io.EOF || string(buf[:n]) != string(data) {
			t.Errorf("%s: ReadAt = %d %v %q", loc, n, err, buf[:n])
		}
	}
}

func TestLocalErrors(t *testing.T) {
	dir := t.TempDir()
	for _, loc := range []string{filepath.Join(dir, "missing.parquet"), "file:" + dir + "/missing%20file"} {
		_, err := Open(context.Background(), loc, nil)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), loc) {
			t.Errorf("Open(%s) = %v, want fs.ErrNotExist naming the location", loc, err)
		}
	}
	if _, err := Open(context.Background(), dir, nil); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("Open(dir) = %v, want an error", err)
	}
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.ReadAt(make([]byte, 1), 0); !errors.Is(err, fs.ErrClosed) || !strings.Contains(err.Error(), path) {
		t.Errorf("ReadAt after Close = %v, want fs.ErrClosed naming the file", err)
	}
}
