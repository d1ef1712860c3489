package s3list

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"ragd"
	"ragd/internal/ingest/guard"
)

// The defaults of Config's zero bounds.
const (
	DefaultMaxObjects     = 10000
	DefaultMaxObjectBytes = 32 << 20
	pageSize              = 1000 // ListObjectsV2's own maximum
	maxRetries            = 2    // attempts of a request (minio-go's MaxRetries)
)

// Config is a bucket to list and its bounds.
type Config struct {
	// Endpoint is the S3 endpoint's URL, http:// or https://, e.g.
	// https://s3.eu-west-1.amazonaws.com or http://minio.internal:9000.
	Endpoint string
	Bucket   string
	// Prefix limits the listing to keys that start with it.
	Prefix string
	// Region is the bucket's region; empty: asked of the endpoint.
	Region string
	// AccessKey and SecretKey are env:VAR each (ragd.EnvSecret); both
	// empty: anonymous requests (a public bucket).
	AccessKey, SecretKey string
	// MaxObjects bounds the objects under the prefix; more is an error.
	MaxObjects int
	// MaxObjectBytes bounds an object read; a larger one is listed in
	// Listing.TooLarge and never read.
	MaxObjectBytes int64
}

// Object is one listed object.
type Object struct {
	Key          string
	ETag         string
	Size         int64
	LastModified time.Time
}

// Listing is a bucket's objects compared with the last sync's ETags.
type Listing struct {
	// Objects are every object listed, by key.
	Objects map[string]Object
	// Added, Changed, Unchanged and Deleted are keys, sorted: Deleted were
	// in the last sync but are listed no more.
	Added, Changed, Unchanged, Deleted []string
	// TooLarge are objects over MaxObjectBytes (in Added or Changed too):
	// they are not read, and their documents must not be deleted.
	TooLarge []string
}

// ToRead are the keys a sync reads: added and changed, not too large.
func (l Listing) ToRead() []string {
	var out []string
	for _, k := range append(slices.Clone(l.Added), l.Changed...) {
		if !slices.Contains(l.TooLarge, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Lister lists and reads one bucket.
type Lister struct {
	cfg    Config
	client *minio.Client
	where  string // bucket and endpoint, for messages
}

// New checks cfg, resolves its credentials and builds the client whose
// connections f's address rules vet. A malformed endpoint or missing
// credentials are ragd.Invalid.
func New(cfg Config, f *guard.Fetcher) (*Lister, error) {
	if cfg.MaxObjects <= 0 {
		cfg.MaxObjects = DefaultMaxObjects
	}
	if cfg.MaxObjectBytes <= 0 {
		cfg.MaxObjectBytes = DefaultMaxObjectBytes
	}
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, ragd.Invalid("url", "value_error", "the S3 endpoint must be an http:// or https:// URL with a host and no path, not %q", cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, ragd.Invalid("bucket", "value_error", "an s3 source needs a bucket")
	}
	creds, err := resolveCreds(cfg)
	if err != nil {
		return nil, err
	}
	cl, _ := f.Client(nil)
	client, err := minio.New(u.Host, &minio.Options{Creds: creds, Secure: u.Scheme == "https", Region: cfg.Region,
		Transport: cl.Transport, MaxRetries: maxRetries})
	if err != nil {
		return nil, ragd.Invalid("url", "value_error", "the S3 endpoint %s: %v", u.Redacted(), err)
	}
	return &Lister{cfg: cfg, client: client, where: fmt.Sprintf("bucket %q at %s", cfg.Bucket, u.Redacted())}, nil
}

// resolveCreds reads the key pair from the environment.
func resolveCreds(cfg Config) (*credentials.Credentials, error) {
	if cfg.AccessKey == "" && cfg.SecretKey == "" {
		return credentials.NewStatic("", "", "", credentials.SignatureAnonymous), nil
	}
	id, err := ragd.EnvSecret("access_key", cfg.AccessKey)
	if err != nil {
		return nil, err
	}
	secret, err := ragd.EnvSecret("secret_key", cfg.SecretKey)
	if err != nil {
		return nil, err
	}
	return credentials.NewStaticV4(id, secret, ""), nil
}

// List lists the objects under the prefix and compares their ETags with
// previous (key → ETag of the last sync). Any failure is an error, and no
// listing.
func (l *Lister) List(ctx context.Context, previous map[string]string) (Listing, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := Listing{Objects: map[string]Object{}}
	for obj := range l.client.ListObjects(ctx, l.cfg.Bucket, minio.ListObjectsOptions{Prefix: l.cfg.Prefix, Recursive: true, MaxKeys: pageSize}) {
		if obj.Err != nil {
			return Listing{}, l.explain(obj.Err)
		}
		if strings.HasSuffix(obj.Key, "/") {
			continue // a folder marker
		}
		if len(out.Objects) == l.cfg.MaxObjects {
			return Listing{}, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
				"%s has more than max_objects (%d) objects under prefix %q: nothing can be taken as deleted; raise max_objects or narrow the prefix",
				l.where, l.cfg.MaxObjects, l.cfg.Prefix)}
		}
		o := Object{Key: obj.Key, ETag: strings.Trim(obj.ETag, `"`), Size: obj.Size, LastModified: obj.LastModified}
		out.Objects[o.Key] = o
		switch prev, ok := previous[o.Key]; {
		case !ok:
			out.Added = append(out.Added, o.Key)
		case strings.Trim(prev, `"`) != o.ETag:
			out.Changed = append(out.Changed, o.Key)
		default:
			out.Unchanged = append(out.Unchanged, o.Key)
		}
		if o.Size > l.cfg.MaxObjectBytes {
			out.TooLarge = append(out.TooLarge, o.Key)
		}
	}
	if err := ctx.Err(); err != nil {
		return Listing{}, err
	}
	for k := range previous {
		if _, ok := out.Objects[k]; !ok {
			out.Deleted = append(out.Deleted, k)
		}
	}
	for _, s := range [][]string{out.Added, out.Changed, out.Unchanged, out.Deleted, out.TooLarge} {
		slices.Sort(s)
	}
	return out, nil
}

// Read reads one object, at most MaxObjectBytes of it (more is
// ragd.KindTooLarge).
func (l *Lister) Read(ctx context.Context, key string) ([]byte, error) {
	obj, err := l.client.GetObject(ctx, l.cfg.Bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return nil, l.explain(err)
	}
	defer obj.Close()
	body, err := io.ReadAll(io.LimitReader(obj, l.cfg.MaxObjectBytes+1))
	if err != nil {
		return nil, l.explain(err)
	}
	if int64(len(body)) > l.cfg.MaxObjectBytes {
		return nil, &ragd.Error{Kind: ragd.KindTooLarge, Message: fmt.Sprintf(
			"object %q of %s is larger than max_object_bytes (%d)", key, l.where, l.cfg.MaxObjectBytes)}
	}
	return body, nil
}

// explain turns the endpoint's refusals into ragd's errors: a missing
// bucket or key NotFound, refused credentials Forbidden, the guard's
// refusal as it is, anything else (no answer, a 5xx) unavailable.
func (l *Lister) explain(err error) error {
	var re *ragd.Error
	if errors.As(err, &re) {
		return re
	}
	resp := minio.ToErrorResponse(err)
	switch {
	case resp.Code == "NoSuchBucket":
		return ragd.NotFound("%s does not exist", l.where)
	case resp.Code == "NoSuchKey":
		return ragd.NotFound("%s has no object %q", l.where, resp.Key)
	case resp.Code == "AccessDenied" || resp.Code == "InvalidAccessKeyId" || resp.Code == "SignatureDoesNotMatch" ||
		resp.StatusCode == http.StatusForbidden || resp.StatusCode == http.StatusUnauthorized:
		return ragd.Forbidden("%s refused the credentials (%s): check access_key and secret_key", l.where, resp.Code)
	}
	return &ragd.Error{Kind: ragd.KindUnavailable, Message: "the S3 endpoint of " + l.where + " could not be listed",
		Err: &ragd.NetError{What: "s3", Err: err}}
}
