package objstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/bolide-dev/bolide/native/memory"
)

// The S3 tests run against a real S3-compatible server, versitygw, which TestMain builds once
// (scripts/s3-server.sh install, cached outside the checkout) and starts on a free port over a
// temporary directory. Without it the run fails: BOLIDE_SKIP_S3=1 skips the S3 tests instead.
var (
	skipS3     = os.Getenv("BOLIDE_SKIP_S3") == "1"
	s3Endpoint string
	testKeyID  = "BOLIDETESTKEY"
	testSecret = "bolide-test-secret-" + randomHex(8) // searched for in every message: must never appear
	testBucket = "bolide-test"
)

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

func TestMain(m *testing.M) {
	stop := func() {}
	if !skipS3 {
		var err error
		if stop, err = startServer(); err != nil {
			fmt.Fprintf(os.Stderr, "objstore: the S3 tests need a versitygw server: %v\n"+
				"(set BOLIDE_SKIP_S3=1 to skip them)\n", err)
			os.Exit(1)
		}
	}
	code := m.Run()
	stop()
	// As memtest.Main, which cannot be used here: it exits before the server could be stopped.
	if err := memory.CheckAll(); err != nil {
		fmt.Fprintf(os.Stderr, "memtest: %v\n", err)
		code = max(code, 1)
	}
	os.Exit(code)
}

// startServer builds (once) and starts versitygw, creates the test bucket, and returns how to
// stop it.
func startServer() (func(), error) {
	script, err := filepath.Abs("../../scripts/s3-server.sh")
	if err != nil {
		return nil, err
	}
	install := exec.Command("bash", script, "install")
	install.Stderr = os.Stderr
	out, err := install.Output()
	if err != nil {
		return nil, fmt.Errorf("%s install: %w", script, err)
	}
	bin := strings.TrimSpace(string(out))
	if i := strings.LastIndexByte(bin, '\n'); i >= 0 {
		bin = bin[i+1:]
	}
	dir, err := os.MkdirTemp("", "objstore-s3-")
	if err != nil {
		return nil, err
	}
	// Object metadata in sidecar files rather than extended attributes, which the gateway would
	// otherwise require of the file system (tmpfs has them only since Linux 6.6).
	data, meta := filepath.Join(dir, "data"), filepath.Join(dir, "meta")
	for _, d := range []string{data, meta} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	log, err := os.Create(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	// A port the kernel says is free; the short race with another process taking it first shows
	// as the gateway exiting, reported with its log.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--port", addr, "--quiet", "posix", "--sidecar", meta, data)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+testKeyID, "ROOT_SECRET_ACCESS_KEY="+testSecret)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = dieWithParent()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		log.Close()
		os.RemoveAll(dir)
	}
	s3Endpoint = "http://" + addr
	client := mustClient(testConfig())
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err = client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(testBucket)})
		cancel()
		if err == nil {
			return stop, nil
		}
		select {
		case werr := <-exited:
			exited <- werr
			stop()
			logText, _ := os.ReadFile(log.Name())
			return nil, fmt.Errorf("versitygw exited (%v): %s", werr, logText)
		default:
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("versitygw at %s did not answer: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func needS3(t testing.TB) {
	t.Helper()
	if skipS3 {
		t.Skip("BOLIDE_SKIP_S3=1")
	}
}

// testConfig reaches the test server with the root credentials.
func testConfig() *Config {
	return &Config{Endpoint: s3Endpoint, PathStyle: true, AccessKeyID: Secret(testKeyID), SecretAccessKey: Secret(testSecret)}
}

// put stores data under key in the test bucket and returns its s3:// location.
func put(t testing.TB, key string, data []byte) string {
	t.Helper()
	_, err := mustClient(testConfig()).PutObject(context.Background(), &s3.PutObjectInput{
		Bucket: aws.String(testBucket), Key: aws.String(key), Body: bytes.NewReader(data),
	})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return "s3://" + testBucket + "/" + key
}

func deleteObject(t testing.TB, key string) {
	t.Helper()
	_, err := mustClient(testConfig()).DeleteObject(context.Background(), &s3.DeleteObjectInput{
		Bucket: aws.String(testBucket), Key: aws.String(key)})
	if err != nil {
		t.Fatalf("delete %s: %v", key, err)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

// requests is the number of GETs an S3 File issued.
func requests(t testing.TB, f File) int64 {
	t.Helper()
	if p, ok := f.(*prefetched); ok {
		f = p.File
	}
	s, ok := f.(*s3File)
	if !ok {
		t.Fatalf("%T is not an S3 file", f)
	}
	return s.requests.Load()
}

// smallWindows shrinks the readahead for a test so small objects exercise it.
func smallWindows(t testing.TB, min, max, budget int64) {
	oldMin, oldMax, oldBudget := minWindow, maxWindow, windowBudget
	minWindow, maxWindow, windowBudget = min, max, budget
	t.Cleanup(func() { minWindow, maxWindow, windowBudget = oldMin, oldMax, oldBudget })
}

func mustOpen(t testing.TB, loc string, cfg *Config) File {
	t.Helper()
	f, err := Open(context.Background(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func isNotExist(err error) bool { return errors.Is(err, os.ErrNotExist) }

// mustClient is clientFor for Configs that have a client.
func mustClient(cfg *Config) *s3.Client {
	c, err := clientFor(cfg)
	if err != nil {
		panic(err)
	}
	return c
}
