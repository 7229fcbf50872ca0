// Package objstore owns the engine's access to the bytes of data files wherever they live: local
// files (plain paths and file: URIs) and S3-compatible object storage (s3:, s3a:, s3n:). A File is
// an io.ReaderAt with a size, which is all the Parquet reader needs; S3 files serve the Parquet
// access pattern (footer first, then column chunks) with few requests: the tail of the object is
// fetched when it is opened, and other reads through adaptive readahead windows. A Prefetcher
// opens the data files of a task ahead of their consumer, a bounded number at a time.
//
// Credentials travel in a Config and never appear in an error, a log line or a printed Config.
package objstore

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// File is an opened object: ReadAt as os.File's (safe for concurrent use; a read that reaches the
// end returns the bytes up to it and io.EOF), the size fixed when it was opened, and the location
// as given to Open, for messages.
type File interface {
	io.ReaderAt
	Size() int64
	Name() string
	// Prefetch hints that [off, off+length) will be read soon; an S3 file starts fetching it in the
	// background (within its readahead budget), a local file ignores it (the OS page cache and its
	// readahead do that job). Reads of the range then wait for the fetch instead of issuing their own.
	Prefetch(off, length int64)
	// WillRead announces byte ranges ({offset, length}) that will be read front to back, all at
	// once (one reader each, interleaved), and that the bytes around them may not be read: an S3
	// file then fetches each in as few requests as its readahead budget shared among them allows,
	// and nothing past their ends. The Parquet reader announces the column chunks of each row
	// group it decodes. Nothing is fetched yet; a local file ignores it.
	WillRead(ranges [][2]int64)
	Close() error
}

// Open opens the object at location: a local path ("/abs/path", or relative), a file: URI
// ("file:/p", "file:///p", "file://localhost/p", percent-decoded), or an S3 location
// ("s3://bucket/key", also s3a: and s3n:, the key taken verbatim as Iceberg and Hadoop do). cfg
// is only read for S3 locations and may be nil there (anonymous, default region).
//
// For S3, ctx bounds the File's life, not only Open: ReadAt has no context of its own, so the
// File's requests run under ctx and fail once it is cancelled (cancel the task, its reads stop).
//
// A missing file or object fails with an error for which errors.Is(err, fs.ErrNotExist) holds,
// refused credentials with fs.ErrPermission; every error names the location and the operation.
func Open(ctx context.Context, location string, cfg *Config) (File, error) {
	loc, err := parseLocation(location)
	if err != nil {
		return nil, err
	}
	if loc.bucket == "" {
		return openLocal(location, loc.path)
	}
	if cfg == nil {
		cfg = &Config{}
	}
	return openS3(ctx, location, loc.bucket, loc.key, cfg)
}

// location is a parsed location: a local path, or an S3 bucket and key.
type location struct {
	path        string
	bucket, key string
}

func parseLocation(s string) (location, error) {
	scheme, rest, ok := splitScheme(s)
	if !ok {
		if s == "" {
			return location{}, fmt.Errorf("open: empty location")
		}
		return location{path: s}, nil
	}
	switch strings.ToLower(scheme) {
	case "file":
		p, err := filePath(rest)
		if err != nil {
			return location{}, fmt.Errorf("open %s: %w", redactUserinfo(s), err)
		}
		return location{path: p}, nil
	case "s3", "s3a", "s3n":
		if !strings.HasPrefix(rest, "//") {
			return location{}, fmt.Errorf("open %s: an S3 location is %s://bucket/key", s, scheme)
		}
		bucket, key, _ := strings.Cut(rest[2:], "/")
		if strings.Contains(bucket, "@") {
			// Old Hadoop releases took s3a://KEY:SECRET@bucket/...; never echo such a location.
			return location{}, fmt.Errorf("open %s: credentials in a location are not supported", redactUserinfo(s))
		}
		if bucket == "" || key == "" {
			return location{}, fmt.Errorf("open %s: an S3 location is %s://bucket/key", s, scheme)
		}
		return location{bucket: bucket, key: key}, nil
	}
	return location{}, fmt.Errorf("open %s: %w %q", redactUserinfo(s), ErrUnsupportedScheme, scheme)
}

// redactUserinfo drops the user information of "scheme://user:password@host/...", which
// messages must not repeat.
func redactUserinfo(s string) string {
	scheme, rest, ok := splitScheme(s)
	if !ok || !strings.HasPrefix(rest, "//") {
		return s
	}
	auth, path, hasPath := strings.Cut(rest[2:], "/")
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = "(redacted)@" + auth[i+1:]
	}
	if hasPath {
		path = "/" + path
	}
	return scheme + "://" + auth + path
}

// splitScheme splits "scheme:rest" (RFC 3986: a letter, then letters, digits, "+", "-", ".").
// A single letter is taken for a Windows drive, not a scheme.
func splitScheme(s string) (scheme, rest string, ok bool) {
	i := strings.IndexByte(s, ':')
	if i < 2 {
		return "", "", false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", "", false
		}
	}
	return s[:i], s[i+1:], true
}

// filePath maps the part of a file: URI after "file:" to a path. The URI is percent-decoded (Java's
// File.toURI and Spark's SparkPath write "file:/a%20b"), but a path Hadoop printed unencoded
// ("file:/tmp/100%") does not decode, so it is taken as it is.
func filePath(rest string) (string, error) {
	if strings.HasPrefix(rest, "//") {
		host, p, _ := strings.Cut(rest[2:], "/")
		if host != "" && !strings.EqualFold(host, "localhost") {
			return "", fmt.Errorf("the file URI names a host: only local files are read")
		}
		rest = "/" + p
	}
	if rest == "" || rest[0] != '/' {
		return "", fmt.Errorf("file URI with a relative path")
	}
	if p, err := url.PathUnescape(rest); err == nil {
		return p, nil
	}
	return rest, nil
}
