package objstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestConfigFromProperties(t *testing.T) {
	for _, c := range []struct {
		name  string
		props map[string]string
		want  Config
	}{
		{"empty: the default chain", nil, Config{DefaultChain: true}},
		{"iceberg", map[string]string{
			"s3.endpoint": "http://minio:9000", "s3.path-style-access": "true", "s3.access-key-id": "AK",
			"s3.secret-access-key": "SK", "s3.session-token": "ST", "client.region": "eu-west-1",
		}, Config{Endpoint: "http://minio:9000", PathStyle: true, Region: "eu-west-1", AccessKeyID: "AK", SecretAccessKey: "SK", SessionToken: "ST"}},
		{"s3.region", map[string]string{"s3.region": "us-west-2", "fs.s3a.endpoint.region": "x"}, Config{Region: "us-west-2", DefaultChain: true}},
		{"hadoop bare", map[string]string{
			"fs.s3a.endpoint": "s3.local:9000", "fs.s3a.path.style.access": "TRUE", "fs.s3a.access.key": "AK",
			"fs.s3a.secret.key": "SK", "fs.s3a.session.token": "ST", "fs.s3a.region": "ap-south-1",
			"fs.s3a.connection.ssl.enabled": "false",
		}, Config{Endpoint: "s3.local:9000", PathStyle: true, DisableSSL: true, Region: "ap-south-1", AccessKeyID: "AK", SecretAccessKey: "SK", SessionToken: "ST"}},
		{"spark.hadoop wins over bare", map[string]string{
			"spark.hadoop.fs.s3a.endpoint": "a", "fs.s3a.endpoint": "b",
			"spark.hadoop.fs.s3a.access.key": "AK1", "fs.s3a.access.key": "AK2",
			"fs.s3a.endpoint.region": "r1", "spark.hadoop.fs.s3a.region": "r2",
		}, Config{Endpoint: "a", AccessKeyID: "AK1", Region: "r1", DefaultChain: true}},
		{"iceberg wins over hadoop", map[string]string{
			"s3.endpoint": "ice", "spark.hadoop.fs.s3a.endpoint": "hadoop",
			"s3.path-style-access": "false", "fs.s3a.path.style.access": "true",
			"s3.secret-access-key": "SK1", "spark.hadoop.fs.s3a.secret.key": "SK2",
			"client.region": "r1", "s3.region": "r2",
		}, Config{Endpoint: "ice", SecretAccessKey: "SK1", Region: "r1", DefaultChain: true}},
		{"blank values do not count", map[string]string{"s3.endpoint": " ", "fs.s3a.endpoint": " e "}, Config{Endpoint: "e", DefaultChain: true}},
		{"bad booleans keep defaults", map[string]string{"s3.path-style-access": "yes please", "fs.s3a.connection.ssl.enabled": "maybe"}, Config{DefaultChain: true}},
		{"s3a default providers", map[string]string{"fs.s3a.aws.credentials.provider": " org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider,\n" +
			"org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider, com.amazonaws.auth.EnvironmentVariableCredentialsProvider," +
			"org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider"}, Config{DefaultChain: true}},
		{"s3a anonymous", map[string]string{"spark.hadoop.fs.s3a.aws.credentials.provider": "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider"}, Config{}},
		{"static keys win over providers", map[string]string{"fs.s3a.access.key": "AK", "fs.s3a.secret.key": "SK",
			"fs.s3a.aws.credentials.provider": "com.example.Custom", "client.credentials-provider": "com.example.Custom"},
			Config{AccessKeyID: "AK", SecretAccessKey: "SK"}},
		{"s3a custom provider", map[string]string{"fs.s3a.aws.credentials.provider": "com.amazonaws.auth.EnvironmentVariableCredentialsProvider,com.example.Vault"},
			Config{CredentialsRefused: "fs.s3a.aws.credentials.provider lists com.example.Vault, a provider the native reader does not run"}},
		{"s3a anonymous after others", map[string]string{"fs.s3a.aws.credentials.provider": "com.amazonaws.auth.EnvironmentVariableCredentialsProvider," +
			"org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider"},
			Config{CredentialsRefused: "fs.s3a.aws.credentials.provider mixes anonymous access with other providers"}},
		{"iceberg provider class", map[string]string{"client.credentials-provider": "com.example.Provider"},
			Config{CredentialsRefused: "the catalog sets client.credentials-provider, a credential source the native reader does not run"}},
		{"iceberg assume role", map[string]string{"client.assume-role.arn": "arn:aws:iam::1:role/r"},
			Config{CredentialsRefused: "the catalog sets client.assume-role.arn, a credential source the native reader does not run"}},
		{"iceberg remote signing", map[string]string{"s3.remote-signing-enabled": "true"},
			Config{CredentialsRefused: "the catalog signs S3 requests remotely (s3.remote-signing-enabled)"}},
	} {
		if got := ConfigFromProperties(c.props); got != c.want {
			t.Errorf("%s: got %+v, want %+v (secrets: %q %q %q)", c.name, got, c.want,
				string(got.AccessKeyID), string(got.SecretAccessKey), string(got.SessionToken))
		}
	}
}

// Neither a Config, nor a Secret, nor anything holding them prints a credential, whatever the
// verb or encoder.
func TestConfigNeverPrintsCredentials(t *testing.T) {
	const key, secret, token = "AKIAFORMATTEST0KEYID", "FORMAT-TEST-SECRET-value", "FORMAT-TEST-SESSION-token"
	cfg := Config{Endpoint: "https://s3.example.com", Region: "eu-west-1", PathStyle: true,
		AccessKeyID: key, SecretAccessKey: secret, SessionToken: token}
	type holder struct {
		Cfg  Config
		Ptr  *Config
		Keys []Secret
	}
	values := []any{cfg, &cfg, holder{cfg, &cfg, []Secret{cfg.SecretAccessKey}}, []Config{cfg},
		map[string]Config{"c": cfg}, cfg.SecretAccessKey, cfg.AccessKeyID, &cfg.SessionToken}
	var out bytes.Buffer
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%10.3s", "%T"} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
		fmt.Fprintln(&out, v)
		fmt.Fprint(&out, v)
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(j)
		slog.New(slog.NewTextHandler(&out, nil)).Info("config", "v", v)
		slog.New(slog.NewJSONHandler(&out, nil)).Info("config", "v", v)
	}
	fmt.Fprint(&out, cfg.String(), cfg.GoString(), cfg.SecretAccessKey.String(), cfg.SecretAccessKey.GoString())
	// The client cache, dumped: its keys are HMACs.
	mustClient(&cfg)
	clients.Lock()
	fmt.Fprintf(&out, "%v %+v %#v", clients.m, clients.m, clients.m)
	clients.Unlock()
	for _, s := range []string{key, secret, token} {
		if strings.Contains(out.String(), s) {
			t.Fatalf("%q printed:\n%s", s, out.String())
		}
	}
	if !strings.Contains(cfg.String(), "https://s3.example.com") || !strings.Contains(cfg.String(), "eu-west-1") {
		t.Errorf("String() = %s: endpoint and region should show", cfg)
	}
}

// No error of Open or ReadAt shows the secret, whatever went wrong.
func TestErrorsNeverShowCredentials(t *testing.T) {
	needS3(t)
	loc := put(t, "errors/obj", randomBytes(1000))
	wrong := testConfig()
	wrong.SecretAccessKey = Secret(testSecret + "-wrong")
	wrong.SessionToken = Secret(testSecret + "-token")
	unreachable := testConfig()
	unreachable.Endpoint = "http://127.0.0.1:1"
	var errs []error
	try := func(loc string, cfg *Config) {
		f, err := Open(context.Background(), loc, cfg)
		if err != nil {
			errs = append(errs, err)
			return
		}
		defer f.Close()
		f.Close()
		_, err = f.ReadAt(make([]byte, 10), 0)
		errs = append(errs, err)
	}
	try(loc, wrong)
	try(loc, unreachable)
	try("s3://"+testBucket+"/errors/missing", testConfig())
	try("s3://no-such-bucket/x", testConfig())
	try(loc, testConfig()) // ReadAt after Close
	try("s3a://"+testKeyID+":"+testSecret+"@"+testBucket+"/errors/obj", testConfig())
	try("hdfs://user:"+testSecret+"@namenode/x", testConfig())
	try("file://user:"+testSecret+"@host/x", nil)
	ctx, cancel := context.WithCancel(context.Background())
	f, err := Open(ctx, put(t, "errors/big", randomBytes(200_000)), testConfig())
	if err == nil {
		cancel()
		_, err = f.ReadAt(make([]byte, 10), 0)
		f.Close()
	}
	cancel()
	errs = append(errs, err)
	for _, err := range errs {
		if err == nil {
			t.Fatal("an error path did not fail")
		}
		t.Log(err)
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, testSecret) {
				t.Errorf("an error shows the secret: %s", s)
			}
		}
	}
}

func TestScrub(t *testing.T) {
	in := `Get "https://b.s3.amazonaws.com/k?X-Amz-Credential=AK%2F2020&X-Amz-Signature=abc123&x-id=GetObject": EOF; ` +
		`X-Amz-Security-Token=tok; Get "http://user:pw@host:9000/b/k": refused`
	got := scrub(in)
	for _, s := range []string{"abc123", "AK%2F2020", "tok", "x-id", "pw"} {
		if strings.Contains(got, s) {
			t.Errorf("scrub left %q: %s", s, got)
		}
	}
	if !strings.Contains(got, "https://b.s3.amazonaws.com/k") || !strings.Contains(got, "@host:9000/b/k") {
		t.Errorf("scrub dropped the URL: %s", got)
	}
}
