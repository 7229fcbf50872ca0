package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// readCase is one ReadAt; every File must answer it as os.File does.
type readCase struct {
	off int64
	n   int
}

func readCases(size int64) []readCase {
	return []readCase{
		{0, 0}, {0, 1}, {0, 100}, {1000, 70000}, {size - 8, 8}, {size - 8, 4}, {size - tailSize, int(tailSize)},
		{size - tailSize - 5000, 10000}, {size - 10, 100}, {size - 1, 1}, {size, 1}, {size, 0}, {size + 5, 10},
		{size / 2, int(size / 3)}, {0, int(size)}, {0, int(size) + 10},
	}
}

// checkLikeOS compares f's answers with os.File's over the same bytes.
func checkLikeOS(t *testing.T, f File, data []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ref, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("%s: size %d, want %d", f.Name(), f.Size(), len(data))
	}
	for _, c := range readCases(int64(len(data))) {
		if c.off < 0 || c.n < 0 {
			continue
		}
		want := make([]byte, c.n)
		wn, werr := ref.ReadAt(want, c.off)
		got := make([]byte, c.n)
		gn, gerr := f.ReadAt(got, c.off)
		if gn != wn || gerr != werr || !bytes.Equal(got[:gn], want[:wn]) {
			t.Errorf("%s: ReadAt(%d bytes, %d) = %d, %v; os.File: %d, %v (bytes equal: %v)",
				f.Name(), c.n, c.off, gn, gerr, wn, werr, bytes.Equal(got[:gn], want[:wn]))
		}
	}
	if _, err := f.ReadAt(make([]byte, 1), -1); err == nil || !strings.Contains(err.Error(), f.Name()) {
		t.Errorf("%s: ReadAt at -1: %v, want an error naming the file", f.Name(), err)
	}
}

func TestS3ReadAtLikeOSFile(t *testing.T) {
	needS3(t)
	for _, size := range []int{200_000, 1000, 8, 0} {
		data := randomBytes(size)
		loc := put(t, fmt.Sprintf("readat/%d", size), data)
		for _, scheme := range []string{"s3", "s3a", "s3n"} {
			l := scheme + strings.TrimPrefix(loc, "s3")
			f := mustOpen(t, l, testConfig())
			if f.Name() != l {
				t.Errorf("Name() = %q, want %q", f.Name(), l)
			}
			checkLikeOS(t, f, data)
		}
	}
}

func TestLocalReadAtLikeOSFile(t *testing.T) {
	data := randomBytes(100_000)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	checkLikeOS(t, mustOpen(t, path, nil), data)
	checkLikeOS(t, mustOpen(t, "file:"+path, nil), data)
}

// A small object is read in Open's one request; a larger one's footer too.
func TestS3TailServesTheFooter(t *testing.T) {
	needS3(t)
	small := mustOpen(t, put(t, "tail/small", randomBytes(5000)), testConfig())
	buf := make([]byte, 5000)
	if _, err := small.ReadAt(buf, 0); err != nil {
		t.Fatal(err)
	}
	if n := requests(t, small); n != 1 {
		t.Errorf("small object: %d requests, want 1", n)
	}
	big := mustOpen(t, put(t, "tail/big", randomBytes(1<<20)), testConfig())
	footer := make([]byte, 40_000)
	if _, err := big.ReadAt(footer[:8], big.Size()-8); err != nil {
		t.Fatal(err)
	}
	if _, err := big.ReadAt(footer, big.Size()-8-int64(len(footer))); err != nil {
		t.Fatal(err)
	}
	if n := requests(t, big); n != 1 {
		t.Errorf("footer of a large object: %d requests, want 1", n)
	}
}

// Sequential small reads cost a few growing windows, not one request each.
func TestS3SequentialReadahead(t *testing.T) {
	needS3(t)
	smallWindows(t, 16<<10, 256<<10, 1<<20)
	data := randomBytes(2 << 20)
	f := mustOpen(t, put(t, "seq/obj", data), testConfig())
	got := make([]byte, 0, len(data))
	buf := make([]byte, 4096)
	for off := int64(0); off < f.Size(); {
		n, err := f.ReadAt(buf, off)
		if err != nil && err != io.EOF {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
		off += int64(n)
	}
	if !bytes.Equal(got, data) {
		t.Fatal("bytes differ")
	}
	// 16+32+64+128 KiB, then 256 KiB windows up to the tail: 1 + 4 + 7 requests.
	if n := requests(t, f); n > 13 {
		t.Errorf("%d requests for 512 reads of 4 KiB, want at most 13", n)
	}
	t.Logf("%d requests", requests(t, f))
}

// Random and concurrent reads through windows small enough to be evicted return the right bytes.
func TestS3RandomConcurrentReads(t *testing.T) {
	needS3(t)
	smallWindows(t, 4<<10, 32<<10, 96<<10)
	data := randomBytes(600_000)
	f := mustOpen(t, put(t, "random/obj", data), testConfig())
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(seed))
			for i := 0; i < 150; i++ {
				off := rnd.Int63n(int64(len(data)))
				n := rnd.Intn(50_000)
				if i%3 == 0 { // streams of small reads
					n = 700
				}
				buf := make([]byte, n)
				got, err := f.ReadAt(buf, off)
				want := min(n, len(data)-int(off))
				if got != want || (err != nil && !(err == io.EOF && want < n)) || !bytes.Equal(buf[:got], data[off:off+int64(got)]) {
					errs <- errors.New("wrong read")
					return
				}
			}
		}(int64(g))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	s := f.(*s3File)
	s.ra.mu.Lock()
	cached := s.ra.cached
	s.ra.mu.Unlock()
	if cached > windowBudget {
		t.Errorf("%d bytes of windows after the reads, budget %d", cached, windowBudget)
	}
}

// Prefetch fetches the hinted range in the background; reads of it issue no request.
func TestS3Prefetch(t *testing.T) {
	needS3(t)
	smallWindows(t, 16<<10, 128<<10, 1<<20)
	data := randomBytes(700_000)
	f := mustOpen(t, put(t, "prefetch/obj", data), testConfig())
	f.Prefetch(0, 500_000) // 4 windows of 128 KiB
	buf := make([]byte, 1000)
	for off := int64(0); off < 500_000; off += 1000 {
		if _, err := f.ReadAt(buf, off); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf, data[off:off+1000]) {
			t.Fatalf("bytes at %d differ", off)
		}
	}
	if n := requests(t, f); n != 1+4 {
		t.Errorf("%d requests, want 5 (the tail and 4 prefetched windows)", n)
	}
	f.Prefetch(0, 1<<30) // beyond the budget: no more than it holds
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// Reads as large as the biggest window go straight into the caller's buffer.
func TestS3LargeReadBypassesWindows(t *testing.T) {
	needS3(t)
	smallWindows(t, 16<<10, 64<<10, 1<<20)
	data := randomBytes(400_000)
	f := mustOpen(t, put(t, "large/obj", data), testConfig())
	buf := make([]byte, 300_000)
	if n, err := f.ReadAt(buf, 1); n != len(buf) || err != nil || !bytes.Equal(buf, data[1:300_001]) {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if n := requests(t, f); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
	if s := f.(*s3File); s.ra.cached != 0 {
		t.Errorf("%d bytes cached, want none", s.ra.cached)
	}
}

func TestS3MissingObject(t *testing.T) {
	needS3(t)
	for _, loc := range []string{
		"s3://" + testBucket + "/no/such/key.parquet",
		"s3a://no-such-bucket-" + randomHex(4) + "/key",
	} {
		_, err := Open(context.Background(), loc, testConfig())
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), loc) {
			t.Errorf("Open(%s) = %v; want fs.ErrNotExist naming the location", loc, err)
		}
	}
}

func TestS3RefusedCredentials(t *testing.T) {
	needS3(t)
	isolateChain(t) // the chain finds nothing: anonymous
	t.Setenv("AWS_ACCESS_KEY_ID", "NOSUCHKEY")
	t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret+"-wrong")
	loc := put(t, "creds/obj", randomBytes(100))
	wrongSecret := testConfig()
	wrongSecret.SecretAccessKey = Secret(testSecret + "-wrong")
	wrongKey := testConfig()
	wrongKey.AccessKeyID = "NOSUCHKEY"
	for _, cfg := range []*Config{wrongSecret, wrongKey, {Endpoint: s3Endpoint, PathStyle: true}, chainConfig()} {
		_, err := Open(context.Background(), loc, cfg)
		if !errors.Is(err, fs.ErrPermission) || !strings.Contains(err.Error(), loc) {
			t.Errorf("%v: Open = %v; want fs.ErrPermission naming the location", cfg, err)
			continue
		}
		if strings.Contains(err.Error(), testSecret) {
			t.Errorf("the error shows the secret: %v", err)
		}
		t.Logf("%v: %v", cfg, err)
	}
}

func TestS3ClosedAndCancelled(t *testing.T) {
	needS3(t)
	loc := put(t, "closed/obj", randomBytes(300_000))
	f, err := Open(context.Background(), loc, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, fs.ErrClosed) {
		t.Errorf("ReadAt after Close = %v, want fs.ErrClosed", err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, err = Open(ctx, loc, testConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cancel()
	if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), loc) {
		t.Errorf("ReadAt after cancel = %v, want context.Canceled naming the location", err)
	}
}

// Equal Configs share a client; different secrets do not.
func TestClientCache(t *testing.T) {
	a, b := testConfig(), testConfig()
	if mustClient(a) != mustClient(b) {
		t.Error("equal configs got different clients")
	}
	b.SecretAccessKey += "x"
	if mustClient(a) == mustClient(b) {
		t.Error("different secrets share a client")
	}
}

// An object deleted while open fails its next read as missing.
func TestS3DeletedWhileOpen(t *testing.T) {
	needS3(t)
	loc := put(t, "deleted/obj", randomBytes(300_000))
	f := mustOpen(t, loc, testConfig())
	deleteObject(t, "deleted/obj")
	if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), loc) {
		t.Errorf("ReadAt = %v, want fs.ErrNotExist naming the location", err)
	}
	buf := make([]byte, 8) // the tail is still there
	if _, err := f.ReadAt(buf, f.Size()-8); err != nil {
		t.Errorf("ReadAt of the tail = %v", err)
	}
}

// Announced ranges are fetched in one window per run of adjacent ranges, from the run's start
// whichever range is read first, and nothing past their ends.
func TestS3WillRead(t *testing.T) {
	needS3(t)
	data := randomBytes(1 << 20)
	f := mustOpen(t, put(t, "willread/obj", data), testConfig())
	s := f.(*s3File)
	f.WillRead([][2]int64{{100_000, 300_000}, {400_000, 50_000}, {600_000, 10_000}})
	read := func(off, n int64) {
		t.Helper()
		buf := make([]byte, 4096)
		for end := off + n; off < end; off += int64(len(buf)) {
			b := buf[:min(int64(len(buf)), end-off)]
			if _, err := f.ReadAt(b, off); err != nil || !bytes.Equal(b, data[off:off+int64(len(b))]) {
				t.Fatalf("ReadAt(%d, %d): %v or bytes differ", len(b), off, err)
			}
		}
	}
	read(400_000, 50_000) // the second range first
	read(100_000, 300_000)
	if r, got := s.requests.Load(), s.fetched.Load()-tailSize; r != 2 || got != 350_000 {
		t.Errorf("the adjacent ranges: %d requests, %d bytes; want 1 request (after the tail's) of 350000 bytes", r, got)
	}
	read(600_000, 10_000) // a range alone: nothing past its end
	if r, got := s.requests.Load(), s.fetched.Load()-tailSize; r != 3 || got != 360_000 {
		t.Errorf("a lone range: %d requests, %d bytes in all; want 3 and 360000", r, got)
	}
}

// chainConfig reaches the test server with the AWS default chain's credentials.
func chainConfig() *Config { return &Config{Endpoint: s3Endpoint, PathStyle: true, DefaultChain: true} }

// isolateChain makes the default chain see only what the test sets: no credentials from the
// environment, no shared files, no instance metadata service; and no cached client of an
// earlier test (a client keeps the credentials its chain found).
func isolateChain(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	forget := func() {
		key := chainConfig().fingerprint()
		clients.Lock()
		delete(clients.m, key)
		clients.Unlock()
	}
	forget()
	t.Cleanup(forget)
}

// Without keys in the Config, the AWS default chain authenticates: from the environment, or
// from the shared credentials file; with neither, the request fails as unauthorised, naming the
// object and never showing a secret.
func TestS3DefaultCredentialChain(t *testing.T) {
	needS3(t)
	data := randomBytes(5000)
	loc := put(t, "chain/obj", data)
	read := func(t *testing.T) error {
		f, err := Open(context.Background(), loc, chainConfig())
		if err != nil {
			return err
		}
		defer f.Close()
		got := make([]byte, len(data))
		if _, err := f.ReadAt(got, 0); err != nil {
			return err
		}
		if !bytes.Equal(got, data) {
			t.Fatal("read different bytes")
		}
		return nil
	}
	t.Run("environment", func(t *testing.T) {
		isolateChain(t)
		t.Setenv("AWS_ACCESS_KEY_ID", testKeyID)
		t.Setenv("AWS_SECRET_ACCESS_KEY", testSecret)
		if err := read(t); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("shared credentials file", func(t *testing.T) {
		isolateChain(t)
		creds := fmt.Sprintf("[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", testKeyID, testSecret)
		if err := os.WriteFile(os.Getenv("AWS_SHARED_CREDENTIALS_FILE"), []byte(creds), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := read(t); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("nothing found", func(t *testing.T) {
		isolateChain(t)
		err := read(t)
		if err == nil || !strings.Contains(err.Error(), loc) || strings.Contains(err.Error(), testSecret) {
			t.Fatalf("Open without credentials = %v; want an error naming %s without the secret", err, loc)
		}
		t.Log(err)
	})
	t.Run("refused provider", func(t *testing.T) {
		cfg := chainConfig()
		cfg.DefaultChain, cfg.CredentialsRefused = false, "the catalog sets client.credentials-provider"
		if _, err := Open(context.Background(), loc, cfg); err == nil || !strings.Contains(err.Error(), "client.credentials-provider") {
			t.Fatalf("Open = %v; want the refusal", err)
		}
	})
}
