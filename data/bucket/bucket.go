// Package bucket reads and writes objects under an s3://bucket/prefix
// through the AWS SDK for Go v2: on AWS, or on any S3-compatible server
// (MinIO, SeaweedFS, versitygw, Ceph, R2…). Endpoint, region and
// credentials come from the standard AWS environment variables and config
// files (AWS_ENDPOINT_URL or AWS_ENDPOINT_URL_S3, AWS_REGION,
// AWS_ACCESS_KEY_ID, AWS_PROFILE…); with an endpoint of its own a server is
// addressed path-style (http://host/bucket/key), as S3-compatible servers
// expect, and AWS itself virtual-hosted.
//
// Objects are named relative to the prefix ("manifest.json"), with
// slashes. A missing object is fs.ErrNotExist; a conditional write whose
// condition no longer holds is ErrChanged.
package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// ErrChanged is a conditional write refused because the object is no
// longer what the condition named: another writer got there first.
var ErrChanged = errors.New("the object was changed by another writer")

// IsURL reports whether s names a bucket (s3://…) rather than a path.
func IsURL(s string) bool { return strings.HasPrefix(s, "s3://") }

// Bucket is a prefix of an S3 bucket.
type Bucket struct {
	client       *s3.Client
	name, prefix string // prefix is "" or ends in "/"
}

// Parse splits s3://bucket/prefix into the bucket's name and the prefix
// (without slashes at either end).
func Parse(u string) (name, prefix string, err error) {
	rest, ok := strings.CutPrefix(u, "s3://")
	if !ok {
		return "", "", fmt.Errorf("%q: want s3://bucket/prefix", u)
	}
	name, prefix, _ = strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	if name == "" || strings.ContainsAny(name, `\?#`) {
		return "", "", fmt.Errorf("%q: want s3://bucket/prefix (a bucket's name, then the prefix)", u)
	}
	for _, seg := range strings.Split(prefix, "/") {
		if prefix != "" && (seg == "" || seg == "." || seg == "..") {
			return "", "", fmt.Errorf("%q: the prefix has an empty, . or .. part; want s3://bucket/prefix", u)
		}
	}
	return name, prefix, nil
}

// Open opens the bucket prefix u (s3://bucket/prefix) with the standard
// AWS configuration. It does not contact the server: the first request
// tells whether it can be reached.
func Open(ctx context.Context, u string) (*Bucket, error) {
	name, prefix, err := Parse(u)
	if err != nil {
		return nil, err
	}
	// The SDK's own log lines (an instance-metadata fallback when no
	// credentials are set) would go to stderr unasked: the errors say it.
	cfg, err := config.LoadDefaultConfig(ctx, config.WithLogger(logging.Nop{}), config.WithHTTPClient(httpClient()))
	if err != nil {
		return nil, fmt.Errorf("%s: AWS configuration: %w", u, err)
	}
	if cfg.Region == "" {
		// S3-compatible servers mostly ignore it, but the SDK signs with it.
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		// A server of its own (AWS_ENDPOINT_URL…) is addressed by path:
		// S3-compatible servers rarely have a DNS name per bucket.
		o.UsePathStyle = o.BaseEndpoint != nil
		// Checksums only where S3 requires them: not every S3-compatible
		// server knows the newer checksum headers. Files carry their own
		// SHA-256 (checked by the lake's readers).
		o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
	})
	if prefix != "" {
		prefix += "/"
	}
	return &Bucket{client: client, name: name, prefix: prefix}, nil
}

// The HTTP client's bounds: a server that accepts a connection and never
// answers hung a lake write until it was killed. A connection within
// connectTimeout, the first byte of an answer within firstByteTimeout, no
// pause in a body longer than stallTimeout (reset by every byte, so a
// large object on a slow link is not cut), and a whole request within
// requestTimeout. An error names the bound that ended it (timeoutErr).
// (Variables so that a test can shorten them.)
var (
	connectTimeout   = 10 * time.Second
	firstByteTimeout = 30 * time.Second
	stallTimeout     = 60 * time.Second
	requestTimeout   = 30 * time.Minute
)

func httpClient() *awshttp.BuildableClient {
	return awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = connectTimeout }).
		WithTransportOptions(func(tr *http.Transport) { tr.ResponseHeaderTimeout = firstByteTimeout }).
		WithReadTimeout(stallTimeout).
		WithTimeout(requestTimeout)
}

// timeoutErr names the bound a timed-out request passed, or returns nil.
func timeoutErr(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "awaiting response headers"):
		return fmt.Errorf("the server accepted the connection but did not answer within %s (the first-byte timeout)", firstByteTimeout)
	case strings.Contains(msg, "Client.Timeout"):
		return fmt.Errorf("a request was not done within %s (the whole-request timeout)", requestTimeout)
	case strings.Contains(msg, "dial tcp") && strings.Contains(msg, "timeout"):
		return fmt.Errorf("no connection to the server within %s (the connect timeout)", connectTimeout)
	case strings.Contains(msg, "read timeout") || strings.Contains(msg, "ResponseTimeout") || strings.Contains(msg, "reach timeout limit"):
		return fmt.Errorf("the server stopped sending for %s in the middle of an answer (the stall timeout)", stallTimeout)
	}
	return nil
}

// String is the bucket prefix as a URL.
func (b *Bucket) String() string { return "s3://" + b.name + "/" + b.prefix }

// URL is the URL of the object rel.
func (b *Bucket) URL(rel string) string { return "s3://" + b.name + "/" + b.prefix + rel }

func (b *Bucket) key(rel string) *string { return aws.String(b.prefix + rel) }

// Object describes an object: its name under the prefix, size, ETag (as
// the server gives it, quotes included), when it was last written and its
// user metadata.
type Object struct {
	Rel      string
	Size     int64
	ETag     string
	Modified time.Time
	Meta     map[string]string
}

// Head describes the object rel.
func (b *Bucket) Head(ctx context.Context, rel string) (Object, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.name, Key: b.key(rel)})
	if err != nil {
		return Object{}, b.err(rel, err)
	}
	return Object{Rel: rel, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag),
		Modified: aws.ToTime(out.LastModified), Meta: out.Metadata}, nil
}

// ReadAll reads the object rel whole, refusing one over limit bytes.
func (b *Bucket) ReadAll(ctx context.Context, rel string, limit int64) ([]byte, Object, error) {
	body, o, err := b.Get(ctx, rel, "")
	if err != nil {
		return nil, o, err
	}
	defer body.Close()
	if o.Size > limit {
		return nil, o, &Error{URL: b.URL(rel), Err: fmt.Errorf("%d bytes, more than the %d this reads", o.Size, limit)}
	}
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, o, b.err(rel, err)
	}
	if int64(len(data)) > limit {
		return nil, o, &Error{URL: b.URL(rel), Err: fmt.Errorf("more than the %d bytes this reads", limit)}
	}
	return data, o, nil
}

// ErrNotModified is Get's answer when the object still has the ETag given.
var ErrNotModified = errors.New("not modified")

// Get opens the object rel for reading. With ifNoneMatch (an ETag) an
// object that still has it is ErrNotModified, and nothing is sent.
func (b *Bucket) Get(ctx context.Context, rel, ifNoneMatch string) (io.ReadCloser, Object, error) {
	in := &s3.GetObjectInput{Bucket: &b.name, Key: b.key(rel)}
	if ifNoneMatch != "" {
		in.IfNoneMatch = aws.String(ifNoneMatch)
	}
	out, err := b.client.GetObject(ctx, in)
	if err != nil {
		if status(err) == http.StatusNotModified {
			return nil, Object{}, ErrNotModified
		}
		return nil, Object{}, b.err(rel, err)
	}
	return out.Body, Object{Rel: rel, Size: aws.ToInt64(out.ContentLength), ETag: aws.ToString(out.ETag),
		Modified: aws.ToTime(out.LastModified), Meta: out.Metadata}, nil
}

// PutOptions are a write's condition and metadata. With neither IfMatch
// nor IfAbsent the object is written whatever is there.
type PutOptions struct {
	IfMatch  string // write only over the object with this ETag
	IfAbsent bool   // write only if there is no object of that name
	Meta     map[string]string
}

// Put writes body (size bytes; an io.ReadSeeker, so the request can be
// signed and sent again) as the object rel and returns its ETag. A
// condition that does not hold is ErrChanged.
func (b *Bucket) Put(ctx context.Context, rel string, body io.ReadSeeker, size int64, opts PutOptions) (string, error) {
	in := &s3.PutObjectInput{Bucket: &b.name, Key: b.key(rel), Body: body, ContentLength: aws.Int64(size), Metadata: opts.Meta}
	if opts.IfMatch != "" {
		in.IfMatch = aws.String(opts.IfMatch)
	}
	if opts.IfAbsent {
		in.IfNoneMatch = aws.String("*")
	}
	out, err := b.client.PutObject(ctx, in)
	if err != nil {
		switch code(err) {
		case "PreconditionFailed", "ConditionalRequestConflict":
			return "", &Error{URL: b.URL(rel), Err: ErrChanged}
		}
		// If-Match on an object that is gone: some servers say 404.
		if opts.IfMatch != "" && status(err) == http.StatusNotFound {
			return "", &Error{URL: b.URL(rel), Err: ErrChanged}
		}
		return "", b.err(rel, err)
	}
	return aws.ToString(out.ETag), nil
}

// PutFile writes the file at p as the object rel (see Put).
func (b *Bucket) PutFile(ctx context.Context, rel, p string, opts PutOptions) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	return b.Put(ctx, rel, f, st.Size(), opts)
}

// List lists the objects under the prefix rel ("" for all; a folder's name
// ends in "/"), in key order.
func (b *Bucket) List(ctx context.Context, under string) ([]Object, error) {
	var out []Object
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.name, Prefix: b.key(under)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, b.err(under, err)
		}
		for _, o := range page.Contents {
			rel := strings.TrimPrefix(aws.ToString(o.Key), b.prefix)
			out = append(out, Object{Rel: rel, Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag), Modified: aws.ToTime(o.LastModified)})
		}
	}
	return out, nil
}

// Delete removes the object rel (no error if it is not there).
func (b *Bucket) Delete(ctx context.Context, rel string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.name, Key: b.key(rel)})
	if err != nil {
		return b.err(rel, err)
	}
	return nil
}

// LocalName is where the object rel goes under the folder dir, or an
// error when its name would leave dir or is not a plain file name (a key
// is any string: "../x", "a//b" and "/x" are all keys).
func LocalName(dir, rel string) (string, error) {
	if rel == "" || rel == "." || !fs.ValidPath(rel) || strings.Contains(rel, `\`) {
		return "", fmt.Errorf("object %q: its name is not a plain relative path, so it is not copied", rel)
	}
	return filepath.Join(dir, filepath.FromSlash(path.Clean(rel))), nil
}

// Error is a request's error with the URL of the object it was for.
type Error struct {
	URL string
	Err error
}

func (e *Error) Error() string { return e.URL + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// err is a request's error with the object's URL: fs.ErrNotExist for a
// missing object or bucket, and a server that cannot be reached said in
// those words rather than the SDK's.
func (b *Bucket) err(rel string, err error) error {
	// Before the context's errors: the HTTP client's timeouts also say
	// they are a deadline exceeded.
	if te := timeoutErr(err); te != nil {
		return &Error{URL: b.URL(rel), Err: te}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var ne *net.OpError
	switch c := code(err); {
	case c == "NoSuchBucket":
		err = fmt.Errorf("the bucket %q does not exist (%w)", b.name, fs.ErrNotExist)
	case c == "NoSuchKey" || c == "NotFound":
		err = fmt.Errorf("%w (%s)", fs.ErrNotExist, c)
	case c == "SignatureDoesNotMatch" || c == "InvalidAccessKeyId" || c == "AccessDenied" || c == "InvalidToken" || c == "ExpiredToken" ||
		c == "Forbidden" || status(err) == http.StatusForbidden:
		// A HEAD request's refusal has no body, so no code: its 403 says
		// the same. (An unknown access key was reported as a missing file.)
		// The SDK's text buries the code after request ids.
		err = fmt.Errorf("the server refused the credentials or the access (%s): check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY or AWS_PROFILE", c)
	case status(err) == http.StatusNotFound:
		err = fs.ErrNotExist
	case errors.As(err, &ne):
		err = fmt.Errorf("the server cannot be reached (%w)", ne)
	case strings.Contains(err.Error(), "get credentials"):
		err = fmt.Errorf("no AWS credentials were found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or run where an instance role gives them (%w)", err)
	}
	return &Error{URL: b.URL(rel), Err: err}
}

// code is an S3 error's code ("NoSuchKey"), "" for other errors.
func code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

// status is an error's HTTP status, 0 when it has none.
func status(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// Download copies the object rel to the file p, written beside and renamed
// into place (a file at p is always a whole object), with the object's
// time as its modification time. It returns what it copied.
func (b *Bucket) Download(ctx context.Context, rel, p string) (Object, error) {
	body, o, err := b.Get(ctx, rel, "")
	if err != nil {
		return o, err
	}
	defer body.Close()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return o, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".fetch-*")
	if err != nil {
		return o, err
	}
	defer os.Remove(tmp.Name()) // after the rename, nothing
	n, err := io.Copy(tmp, body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return o, b.err(rel, err)
	}
	if n != o.Size {
		return o, &Error{URL: b.URL(rel), Err: fmt.Errorf("%d bytes read, but the object has %d", n, o.Size)}
	}
	if !o.Modified.IsZero() {
		os.Chtimes(tmp.Name(), o.Modified, o.Modified)
	}
	return o, os.Rename(tmp.Name(), p)
}

// Fetch copies what the URL u names into the folder dir and returns the
// local path to read: the object itself when u names one
// (s3://bucket/logs/run.eval), else a folder holding every object under the
// prefix, named after its last part, as a folder of files would be. A
// prefix with nothing under it, or an object whose name is not a plain
// relative path, is an error naming it: nothing is read in part.
func Fetch(ctx context.Context, u, dir string) (string, error) {
	name, prefix, err := Parse(u)
	if err != nil {
		return "", err
	}
	b, err := Open(ctx, u)
	if err != nil {
		return "", err
	}
	list, err := b.List(ctx, "")
	if err != nil {
		return "", err
	}
	if len(list) == 0 && prefix != "" {
		// Not a prefix: one object?
		parent, base := path.Split(prefix)
		pb, err := Open(ctx, "s3://"+name+"/"+parent)
		if err != nil {
			return "", err
		}
		p := filepath.Join(dir, base)
		if _, err := pb.Download(ctx, base, p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("%s: no object of that name and none under it", u)
			}
			return "", err
		}
		return p, nil
	}
	if len(list) == 0 {
		return "", fmt.Errorf("%s: the bucket is empty", u)
	}
	// A folder named as the prefix's last part (the bucket's for none), as
	// a local folder of that name would be.
	root := filepath.Join(dir, name)
	if prefix != "" {
		root = filepath.Join(dir, path.Base(prefix))
	}
	if err := copyAll(ctx, b, list, root); err != nil {
		return "", err
	}
	return root, nil
}

// copyAll copies the objects list of b under the folder root.
func copyAll(ctx context.Context, b *Bucket, list []Object, root string) error {
	for _, o := range list {
		if strings.HasSuffix(o.Rel, "/") && o.Size == 0 {
			continue // a folder marker
		}
		p, err := LocalName(root, o.Rel)
		if err != nil {
			return fmt.Errorf("%s: %w", b.URL(o.Rel), err)
		}
		if _, err := b.Download(ctx, o.Rel, p); err != nil {
			return err
		}
	}
	return nil
}

// Mirror keeps a local folder a copy of the objects under a bucket prefix,
// for code that reads folders (serve --watch). What changed is told by
// each object's ETag and size; an object fetched again gets the time it
// was fetched, so a reader comparing sizes and times sees the change.
type Mirror struct {
	b    *Bucket
	dir  string
	seen map[string]Object // by Rel: what the local copy is of
}

// NewMirror mirrors b into the folder dir.
func NewMirror(b *Bucket, dir string) *Mirror {
	return &Mirror{b: b, dir: dir, seen: map[string]Object{}}
}

// Dir is the local folder.
func (m *Mirror) Dir() string { return m.dir }

// Bucket is the mirrored prefix.
func (m *Mirror) Bucket() *Bucket { return m.b }

// Sync lists the prefix and copies what changed since the last Sync: new
// objects and objects whose ETag or size changed are fetched whole (a
// local file is always a whole object), and the copies of objects gone
// are removed. It reports whether anything changed. An object whose name
// cannot be a local path is left out and reported in skipped (by URL,
// with why), not fetched.
func (m *Mirror) Sync(ctx context.Context) (changed bool, skipped map[string]error, err error) {
	list, err := m.b.List(ctx, "")
	if err != nil {
		return false, nil, err
	}
	now := map[string]bool{}
	for _, o := range list {
		if strings.HasSuffix(o.Rel, "/") && o.Size == 0 {
			continue // a folder marker
		}
		p, err := LocalName(m.dir, o.Rel)
		if err != nil {
			if skipped == nil {
				skipped = map[string]error{}
			}
			skipped[m.b.URL(o.Rel)] = err
			continue
		}
		now[o.Rel] = true
		if s, ok := m.seen[o.Rel]; ok && s.ETag == o.ETag && s.Size == o.Size {
			continue
		}
		_, err = m.b.Download(ctx, o.Rel, p)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since the listing
			}
			return changed, skipped, err
		}
		t := time.Now()
		os.Chtimes(p, t, t)
		// What the listing said: an object changed since is fetched again.
		m.seen[o.Rel] = Object{Rel: o.Rel, Size: o.Size, ETag: o.ETag}
		changed = true
	}
	for rel := range m.seen {
		if !now[rel] {
			if p, err := LocalName(m.dir, rel); err == nil {
				os.Remove(p)
			}
			delete(m.seen, rel)
			changed = true
		}
	}
	return changed, skipped, nil
}
