package objstore

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
)

// Config says how to reach S3-compatible storage. The zero value reaches AWS S3 in us-east-1
// anonymously (public buckets only).
//
// Credentials are static keys, the AWS SDK's default chain, or none (requests go unsigned).
// ConfigFromProperties picks the source the Java readers would: the catalog's or the Hadoop
// configuration's keys when both halves are set; otherwise the default chain (environment
// variables, shared config and credentials files, web identity, container and EC2 instance
// roles), which is what Iceberg's S3FileIO (DefaultCredentialsProvider) and S3A's default
// provider list fall back to, resolved in the executor's process as theirs are; anonymous only
// when S3A is told so (AnonymousAWSCredentialsProvider). A credential provider that is a Java
// class the engine cannot run sets CredentialsRefused, and planning leaves the scan to Java.
//
// A Config never prints its credentials: String, GoString and Format (every fmt verb), slog's
// LogValue and JSON all redact them, and the credential fields are of type Secret, which redacts
// itself too. Only a reflection-based dump of a struct that holds a Config in an unexported field
// could see them; keep Configs in exported fields or behind pointers.
type Config struct {
	Endpoint  string // "https://host:port" or "host:port" (https unless DisableSSL); "" = AWS for Region
	Region    string // signing region; "" = us-east-1
	PathStyle bool   // https://endpoint/bucket/key instead of https://bucket.endpoint/key
	// DisableSSL makes an Endpoint without a scheme http:// (fs.s3a.connection.ssl.enabled=false).
	DisableSSL bool

	AccessKeyID     Secret // with SecretAccessKey: static credentials; both empty = anonymous
	SecretAccessKey Secret
	SessionToken    Secret // temporary credentials (STS) only
	// DefaultChain takes the credentials from the AWS SDK's default chain when the keys above are
	// not both set.
	DefaultChain bool
	// CredentialsRefused, when not empty, says why the native reader cannot authenticate as
	// Spark's reader would (a custom provider class); it names settings, never values.
	CredentialsRefused string
}

// DefaultRegion signs requests when a Config names none (S3-compatible servers mostly accept it).
const DefaultRegion = "us-east-1"

// Secret is a credential: it prints as "redacted" (or "" when empty) in every form fmt, slog and
// encoding/json know, so a Secret logged by mistake leaks nothing. string(s) is the value.
type Secret string

const redacted = "redacted"

func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString keeps %#v of a struct holding a Secret valid Go with the value redacted.
func (s Secret) GoString() string { return strconv.Quote(s.String()) }

// Format makes every verb (%x and %q included, which would otherwise print the bytes) redact.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprint(f, s.String())
}

func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }

func (s Secret) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// static reports whether requests are signed with the Config's own keys.
func (c *Config) static() bool { return c.AccessKeyID != "" && c.SecretAccessKey != "" }

// anonymous reports whether requests go unsigned.
func (c *Config) anonymous() bool { return !c.static() && !c.DefaultChain }

// String describes the Config with its credentials redacted.
func (c Config) String() string {
	var b strings.Builder
	b.WriteString("objstore.Config{")
	if c.Endpoint != "" {
		fmt.Fprintf(&b, "endpoint %q, ", redactUserinfo(c.Endpoint))
	}
	region := c.Region
	if region == "" {
		region = DefaultRegion + " (default)"
	}
	fmt.Fprintf(&b, "region %s", region)
	if c.PathStyle {
		b.WriteString(", path-style")
	}
	if c.DisableSSL {
		b.WriteString(", no ssl")
	}
	switch {
	case c.CredentialsRefused != "":
		b.WriteString(", credentials not readable natively")
	case c.anonymous():
		b.WriteString(", anonymous")
	case !c.static():
		b.WriteString(", credentials from the AWS default chain")
	case c.SessionToken != "":
		b.WriteString(", temporary credentials (redacted)")
	default:
		b.WriteString(", static credentials (redacted)")
	}
	b.WriteString("}")
	return b.String()
}

// GoString is what %#v prints: the description, not the fields (which would hold the secrets).
func (c Config) GoString() string { return c.String() }

// Format makes every verb print String: fmt would otherwise print the fields for %x, %d, %+v.
func (c Config) Format(f fmt.State, verb rune) { fmt.Fprint(f, c.String()) }

func (c Config) LogValue() slog.Value { return slog.StringValue(c.String()) }

func (c Config) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// fingerprintKey keys the HMAC of fingerprint. It is random per process so a fingerprint says
// nothing about the secrets outside it, not even whether two processes use the same ones.
var fingerprintKey = func() []byte {
	k := make([]byte, 32)
	if _, err := rand.Read(k); err != nil {
		panic("objstore: no randomness for the client cache key: " + err.Error())
	}
	return k
}()

// fingerprint identifies a Config in the client cache: an HMAC of every field, so two Configs
// share a client exactly when they are equal, and the cache holds no secret in printable form.
func (c *Config) fingerprint() [sha256.Size]byte {
	h := hmac.New(sha256.New, fingerprintKey)
	var n [8]byte
	for _, s := range []string{c.Endpoint, c.Region, strconv.FormatBool(c.PathStyle),
		strconv.FormatBool(c.DisableSSL), string(c.AccessKeyID), string(c.SecretAccessKey), string(c.SessionToken),
		strconv.FormatBool(c.DefaultChain), c.CredentialsRefused} {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// ConfigFromProperties reads a Config from Iceberg catalog properties and Spark/Hadoop settings,
// the first key present winning:
//
//	endpoint      s3.endpoint, then fs.s3a.endpoint
//	path style    s3.path-style-access, then fs.s3a.path.style.access
//	access key    s3.access-key-id, then fs.s3a.access.key
//	secret key    s3.secret-access-key, then fs.s3a.secret.key
//	session token s3.session-token, then fs.s3a.session.token
//	region        client.region, s3.region, then fs.s3a.endpoint.region, fs.s3a.region
//	ssl           fs.s3a.connection.ssl.enabled (only for an endpoint without a scheme)
//	providers     without both keys: client.credentials-provider, client.factory,
//	              client.assume-role.arn and s3.remote-signing-enabled (Java classes or flows the
//	              engine does not run: refused), fs.s3a.aws.credentials.provider (each listed class
//	              must be one whose credentials the default chain finds, or S3A's anonymous one)
//
// Every fs.s3a.X key is also read as spark.hadoop.fs.s3a.X, which wins over the bare spelling
// the way Spark's spark.hadoop.* settings override the Hadoop configuration files. Iceberg's keys
// win over Hadoop's because they configure the catalog's own FileIO, which is what reads the
// table in Spark. Per-bucket S3A keys (fs.s3a.bucket.NAME.X) are not read.
func ConfigFromProperties(props map[string]string) Config {
	get := func(keys ...string) string {
		for _, k := range keys {
			if v, ok := props[k]; ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
		return ""
	}
	s3a := func(names ...string) []string {
		var keys []string
		for _, n := range names {
			keys = append(keys, "spark.hadoop.fs.s3a."+n, "fs.s3a."+n)
		}
		return keys
	}
	flag := func(v string, def bool) bool {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return def
		}
		return b
	}
	c := Config{
		Endpoint:        get(append([]string{"s3.endpoint"}, s3a("endpoint")...)...),
		Region:          get(append([]string{"client.region", "s3.region"}, s3a("endpoint.region", "region")...)...),
		PathStyle:       flag(get(append([]string{"s3.path-style-access"}, s3a("path.style.access")...)...), false),
		DisableSSL:      !flag(get(s3a("connection.ssl.enabled")...), true),
		AccessKeyID:     Secret(get(append([]string{"s3.access-key-id"}, s3a("access.key")...)...)),
		SecretAccessKey: Secret(get(append([]string{"s3.secret-access-key"}, s3a("secret.key")...)...)),
		SessionToken:    Secret(get(append([]string{"s3.session-token"}, s3a("session.token")...)...)),
	}
	if !c.static() {
		c.DefaultChain, c.CredentialsRefused = credentialProviders(get, s3a)
	}
	return c
}

// s3aChainProviders are the credential providers S3A may list whose credentials the AWS SDK's
// default chain finds the same way (S3A's own default list is the first four; the static-key
// ones find nothing here, since the keys are not both set).
var s3aChainProviders = map[string]bool{
	"org.apache.hadoop.fs.s3a.TemporaryAWSCredentialsProvider":                        true,
	"org.apache.hadoop.fs.s3a.SimpleAWSCredentialsProvider":                           true,
	"com.amazonaws.auth.EnvironmentVariableCredentialsProvider":                       true,
	"org.apache.hadoop.fs.s3a.auth.IAMInstanceCredentialsProvider":                    true,
	"software.amazon.awssdk.auth.credentials.EnvironmentVariableCredentialsProvider":  true,
	"software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider":              true,
	"com.amazonaws.auth.DefaultAWSCredentialsProviderChain":                           true,
	"software.amazon.awssdk.auth.credentials.InstanceProfileCredentialsProvider":      true,
	"com.amazonaws.auth.InstanceProfileCredentialsProvider":                           true,
	"software.amazon.awssdk.auth.credentials.ContainerCredentialsProvider":            true,
	"software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider":              true,
	"software.amazon.awssdk.auth.credentials.WebIdentityTokenFileCredentialsProvider": true,
	"com.amazonaws.auth.WebIdentityTokenCredentialsProvider":                          true,
}

const s3aAnonymous = "org.apache.hadoop.fs.s3a.AnonymousAWSCredentialsProvider"

// credentialProviders decides, for a Config without both keys, between the default chain,
// anonymous access and a refusal (with its reason).
func credentialProviders(get func(keys ...string) string, s3a func(names ...string) []string) (chain bool, refused string) {
	for _, k := range []string{"client.credentials-provider", "client.factory", "client.assume-role.arn"} {
		if get(k) != "" {
			return false, "the catalog sets " + k + ", a credential source the native reader does not run"
		}
	}
	if b, err := strconv.ParseBool(get("s3.remote-signing-enabled")); err == nil && b {
		return false, "the catalog signs S3 requests remotely (s3.remote-signing-enabled)"
	}
	list := get(s3a("aws.credentials.provider")...)
	if list == "" {
		return true, ""
	}
	anonymous := false
	for _, p := range strings.Split(list, ",") {
		switch p = strings.TrimSpace(p); {
		case p == "":
		case p == s3aAnonymous:
			anonymous = true
		case !s3aChainProviders[p]:
			return false, "fs.s3a.aws.credentials.provider lists " + p + ", a provider the native reader does not run"
		}
	}
	if anonymous && strings.TrimSpace(strings.Split(list, ",")[0]) == s3aAnonymous {
		return false, ""
	}
	if anonymous {
		return false, "fs.s3a.aws.credentials.provider mixes anonymous access with other providers"
	}
	return true, ""
}
