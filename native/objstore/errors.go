package objstore

import (
	"errors"
	"io/fs"
	"net/http"
	"regexp"

	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// ErrUnsupportedScheme: the location names a file system objstore does not read (hdfs:, gs:,
// abfs: ...). The caller can hand such a file to Spark's reader instead.
var ErrUnsupportedScheme = errors.New("unsupported location scheme")

// s3Cause wraps an error of the AWS SDK for a message: the SDK's text is kept (the operation, the
// HTTP status, the S3 error code and request id help whoever reads the log), minus the query
// string of any URL in it, where a presigned request would carry its signature, and any user
// information (an endpoint written https://user:password@host). The SDK error
// stays reachable through errors.As, and requests are signed in headers, which no SDK error
// prints.
type s3Cause struct{ err error }

func (e s3Cause) Error() string { return scrub(e.err.Error()) }
func (e s3Cause) Unwrap() error { return e.err }

var (
	urlQuery    = regexp.MustCompile(`(https?://[^\s"'?]*)\?[^\s"']*`)
	urlUserinfo = regexp.MustCompile(`(https?://)[^/\s"'@]*@`)
	amzParams   = regexp.MustCompile(`(?i)(X-Amz-(?:Signature|Credential|Security-Token)=)[^&\s"']*`)
)

func scrub(s string) string {
	s = urlQuery.ReplaceAllString(s, "$1?(query redacted)")
	s = urlUserinfo.ReplaceAllString(s, "$1(redacted)@")
	return amzParams.ReplaceAllString(s, "${1}redacted")
}

// s3Kind maps what S3 answered to the fs error a caller tests with errors.Is: a missing object
// or bucket to fs.ErrNotExist (as os.Open does for a missing file or directory), a refused one
// (bad credentials, no permission) to fs.ErrPermission. nil when neither applies.
func s3Kind(err error) error {
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
		case "NoSuchKey", "NotFound", "NoSuchBucket":
			return fs.ErrNotExist
		// versitygw answers an unknown access key with 404 XAdminUserNotFound where S3 says 403
		// InvalidAccessKeyId: a refusal all the same, not a missing object.
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "InvalidToken", "ExpiredToken",
			"XAdminUserNotFound":
			return fs.ErrPermission
		}
	}
	var resp *smithyhttp.ResponseError
	if errors.As(err, &resp) {
		switch resp.HTTPStatusCode() {
		case http.StatusNotFound:
			return fs.ErrNotExist
		case http.StatusForbidden, http.StatusUnauthorized:
			return fs.ErrPermission
		}
	}
	return nil
}

// s3Err is the error of an S3 request: what (for example "s3 get s3://b/k range [0,+8)"), then
// the fs kind if any, then the SDK's scrubbed message.
type s3Err struct {
	what  string
	kind  error
	cause s3Cause
}

func newS3Err(what string, err error) error {
	return &s3Err{what: what, kind: s3Kind(err), cause: s3Cause{err}}
}

func (e *s3Err) Error() string {
	if e.kind != nil {
		return e.what + ": " + e.kind.Error() + ": " + e.cause.Error()
	}
	return e.what + ": " + e.cause.Error()
}

func (e *s3Err) Unwrap() []error {
	if e.kind != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.cause}
}
