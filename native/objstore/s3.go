package objstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// tailSize is how much of an object's end Open fetches, in the request that also tells its size.
// A Parquet footer (the last 8 bytes, then the metadata before them) of a file with a few row
// groups and a hundred columns fits; a bigger one costs one more request.
var tailSize int64 = 64 << 10

// clients holds one S3 client per distinct Config for the life of the process: a client owns a
// connection pool, which every task of an executor reading the same storage should share. Keys
// are HMACs of the Config (fingerprint), so the map holds no secret in printable form; the
// clients hold the credentials, as they must to sign.
var clients struct {
	sync.Mutex
	m map[[32]byte]*s3.Client
}

func clientFor(cfg *Config) (*s3.Client, error) {
	if cfg.CredentialsRefused != "" {
		return nil, fmt.Errorf("S3 credentials: %s", cfg.CredentialsRefused)
	}
	key := cfg.fingerprint()
	clients.Lock()
	defer clients.Unlock()
	if c := clients.m[key]; c != nil {
		return c, nil
	}
	region := cfg.Region
	if region == "" {
		region = DefaultRegion
	}
	opts := s3.Options{
		Region:       region,
		UsePathStyle: cfg.PathStyle,
		Credentials:  aws.AnonymousCredentials{},
		// Reads only: checksums the SDK would compute or validate "when supported" are not worth
		// a CRC over every ranged read (TLS guards the bytes), and older S3-compatible servers
		// reject the headers.
		RequestChecksumCalculation: aws.RequestChecksumCalculationWhenRequired,
		ResponseChecksumValidation: aws.ResponseChecksumValidationWhenRequired,
	}
	switch {
	case cfg.static():
		creds := aws.Credentials{AccessKeyID: string(cfg.AccessKeyID), SecretAccessKey: string(cfg.SecretAccessKey),
			SessionToken: string(cfg.SessionToken), Source: "objstore.Config"}
		opts.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	case cfg.DefaultChain:
		// Only the chain's credential provider is taken (cached, refreshed before expiry): the
		// region, endpoint and retry settings stay the Config's, as the Java readers' do.
		// Loading reads the shared config files but resolves no credentials yet, so an executor
		// without any fails at its first request, naming the file, like Iceberg's reader.
		dc, err := awsconfig.LoadDefaultConfig(context.Background(), awsconfig.WithRegion(region))
		if err != nil {
			return nil, fmt.Errorf("S3 credentials from the AWS default chain: %w", err)
		}
		opts.Credentials = dc.Credentials
	}
	if ep := cfg.Endpoint; ep != "" {
		if !strings.Contains(ep, "://") {
			scheme := "https://"
			if cfg.DisableSSL {
				scheme = "http://"
			}
			ep = scheme + ep
		}
		opts.BaseEndpoint = aws.String(ep)
	}
	c := s3.New(opts)
	if clients.m == nil {
		clients.m = map[[32]byte]*s3.Client{}
	}
	clients.m[key] = c
	return c, nil
}

// s3File is an S3 object. Its tail stays pinned from Open on; other bytes come through readahead
// windows (readahead.go). Memory: the tail, at most windowBudget of windows (plus the windows
// being fetched), and the whole object if a Prefetcher loaded it.
type s3File struct {
	client      *s3.Client
	bucket, key string
	name        string
	size        int64
	ctx         context.Context
	cancel      context.CancelFunc
	ra          *readahead
	closed      atomic.Bool

	requests atomic.Int64 // GETs issued by this file (Open's included), for tests and metrics
	fetched  atomic.Int64 // bytes they returned
}

func openS3(ctx context.Context, loc, bucket, key string, cfg *Config) (File, error) {
	fctx, cancel := context.WithCancel(ctx)
	client, err := clientFor(cfg)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("s3 open %s: %w", loc, err)
	}
	f := &s3File{client: client, bucket: bucket, key: key, name: loc, ctx: fctx, cancel: cancel}
	tail, err := f.openTail()
	if err != nil {
		cancel()
		return nil, err
	}
	f.ra = newReadahead(fctx, f.get, f.size)
	if len(tail) > 0 {
		f.ra.pin(f.size-int64(len(tail)), tail)
	}
	return f, nil
}

// openTail learns the size and fetches the last tailSize bytes in one request: a suffix range
// GET answers with the bytes and "Content-Range: bytes first-last/size". That is a round trip
// less than HeadObject then GetObject, for every file. An empty object has no suffix to return
// (416 Range Not Satisfiable): HeadObject then.
func (f *s3File) openTail() ([]byte, error) {
	what := fmt.Sprintf("s3 open %s (get the last %d bytes)", f.name, tailSize)
	f.requests.Add(1)
	out, err := f.client.GetObject(f.ctx, &s3.GetObjectInput{
		Bucket: aws.String(f.bucket), Key: aws.String(f.key), Range: aws.String("bytes=-" + strconv.FormatInt(tailSize, 10)),
	})
	if err != nil {
		var api smithy.APIError
		if errors.As(err, &api) && api.ErrorCode() == "InvalidRange" {
			return nil, f.head()
		}
		return nil, newS3Err(what, err)
	}
	defer out.Body.Close()
	first, last, size, ok := parseContentRange(aws.ToString(out.ContentRange))
	if !ok {
		if out.ContentRange != nil || out.ContentLength == nil {
			return nil, fmt.Errorf("%s: unexpected Content-Range %q", what, aws.ToString(out.ContentRange))
		}
		// The server ignored the range and sends the whole object: keep it if it is tail-sized,
		// otherwise drop the connection rather than download it.
		if size = *out.ContentLength; size > tailSize {
			f.size = size
			return nil, nil
		}
		first, last = 0, size-1
	}
	if size == 0 {
		f.size = 0
		return nil, nil
	}
	if last != size-1 || first < 0 || first > last {
		return nil, fmt.Errorf("%s: Content-Range %q is not the object's tail", what, aws.ToString(out.ContentRange))
	}
	tail := make([]byte, last-first+1)
	if _, err := io.ReadFull(out.Body, tail); err != nil {
		return nil, fmt.Errorf("%s: %w", what, s3Cause{err})
	}
	f.fetched.Add(int64(len(tail)))
	f.size = size
	return tail, nil
}

func (f *s3File) head() error {
	f.requests.Add(1)
	out, err := f.client.HeadObject(f.ctx, &s3.HeadObjectInput{Bucket: aws.String(f.bucket), Key: aws.String(f.key)})
	if err != nil {
		return newS3Err("s3 head "+f.name, err)
	}
	if out.ContentLength == nil || *out.ContentLength < 0 {
		return fmt.Errorf("s3 head %s: no Content-Length", f.name)
	}
	f.size = *out.ContentLength
	return nil
}

// parseContentRange parses "bytes first-last/size".
func parseContentRange(s string) (first, last, size int64, ok bool) {
	r, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	span, total, found := strings.Cut(r, "/")
	a, b, found2 := strings.Cut(span, "-")
	if !found || !found2 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	first, err1 = strconv.ParseInt(a, 10, 64)
	last, err2 = strconv.ParseInt(b, 10, 64)
	size, err3 = strconv.ParseInt(total, 10, 64)
	return first, last, size, err1 == nil && err2 == nil && err3 == nil
}

// get is the readahead's fetchFunc: one ranged GET of exactly len(p) bytes at off. A body cut
// short mid-way (a dropped connection, which the SDK's retries do not cover) is retried once.
func (f *s3File) get(ctx context.Context, p []byte, off int64) error {
	what := fmt.Sprintf("s3 get %s range [%d,+%d)", f.name, off, len(p))
	var err error
	for attempt := 0; attempt < 2; attempt++ {
		var retry bool
		retry, err = f.getOnce(ctx, what, p, off)
		if err == nil || !retry || ctx.Err() != nil {
			break
		}
	}
	return err
}

func (f *s3File) getOnce(ctx context.Context, what string, p []byte, off int64) (retry bool, err error) {
	f.requests.Add(1)
	out, err := f.client.GetObject(ctx, &s3.GetObjectInput{
		Bucket: aws.String(f.bucket), Key: aws.String(f.key),
		Range: aws.String(fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1)),
	})
	if err != nil {
		return false, newS3Err(what, err)
	}
	defer out.Body.Close()
	// A server that ignores Range sends the object from its first byte.
	if first, _, _, ok := parseContentRange(aws.ToString(out.ContentRange)); ok && first != off || !ok && off != 0 {
		return false, fmt.Errorf("%s: the server answered with Content-Range %q", what, aws.ToString(out.ContentRange))
	}
	n, err := io.ReadFull(out.Body, p)
	f.fetched.Add(int64(n))
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return false, fmt.Errorf("%s: the object ended after %d bytes of the range (replaced while open?)", what, n)
	}
	return true, fmt.Errorf("%s: %w", what, s3Cause{err})
}

func (f *s3File) ReadAt(p []byte, off int64) (int, error) {
	if f.closed.Load() {
		return 0, fmt.Errorf("s3 read %s: %w", f.name, fs.ErrClosed)
	}
	if off < 0 {
		return 0, fmt.Errorf("s3 read %s range [%d,+%d): negative offset", f.name, off, len(p))
	}
	return f.ra.readAt(p, off)
}

func (f *s3File) Size() int64  { return f.size }
func (f *s3File) Name() string { return f.name }

func (f *s3File) Prefetch(off, length int64) {
	if !f.closed.Load() {
		f.ra.prefetch(off, length)
	}
}

func (f *s3File) WillRead(ranges [][2]int64) { f.ra.willRead(ranges) }

// loadAll fetches the whole object (a Prefetcher does, for small objects).
func (f *s3File) loadAll() error { return f.ra.loadAll() }

// Close cancels the file's requests in flight, waits for its background fetches and drops its
// bytes. Closing twice is harmless.
func (f *s3File) Close() error {
	if f.closed.Swap(true) {
		return nil
	}
	f.cancel()
	f.ra.release()
	return nil
}
