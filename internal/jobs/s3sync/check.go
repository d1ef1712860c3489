package s3sync

import (
	"context"
	"net/url"
	"strings"

	"ragd"
	"ragd/internal/jobs/sourcesync"
)

// bucketAt is where an s3 source reads: its endpoint (scheme://host,
// lower-cased), bucket and key prefix.
type bucketAt struct {
	endpoint, bucket, prefix string
}

// where is the source's address in its source URIs:
// <endpoint>/<bucket>/<prefix>.
func (b bucketAt) where() string { return b.endpoint + "/" + b.bucket + "/" + b.prefix }

// webURL is the citation of key: its path-style URL when the endpoint is
// https (it opens for a public object), "" for an http one, which is a
// server of the operator's own rather than a public address.
func (b bucketAt) webURL(key string) string {
	if !strings.HasPrefix(b.endpoint, "https://") {
		return ""
	}
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return b.endpoint + "/" + url.PathEscape(b.bucket) + "/" + strings.Join(parts, "/")
}

// rel is key relative to the prefix, as the source's globs see it.
func (b bucketAt) rel(key string) string {
	return strings.TrimPrefix(strings.TrimPrefix(key, b.prefix), "/")
}

// locate reads where src reads from its url (s3://<bucket>/<prefix>)
// and endpoint, refusing what is not of that form naming the field.
func locate(src ragd.Source) (bucketAt, error) {
	rest, ok := strings.CutPrefix(src.URL, "s3://")
	if !ok {
		return bucketAt{}, ragd.Invalid("url", "value_error", "an s3 source's url is s3://<bucket>/<prefix>, not %q", src.URL)
	}
	if strings.Contains(src.URL, "#") {
		return bucketAt{}, ragd.Invalid("url", "value_error", "an s3 source's url may not hold #: %q", src.URL)
	}
	bucket, prefix, _ := strings.Cut(rest, "/")
	if !validBucket(bucket) {
		return bucketAt{}, ragd.Invalid("url", "value_error",
			"%q names no bucket: the url is s3://<bucket>/<prefix>, the bucket 1 to 255 letters, digits, '.', '-' or '_'", src.URL)
	}
	if len(prefix) > 1024 || strings.ContainsFunc(prefix, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return bucketAt{}, ragd.Invalid("url", "value_error", "the prefix of %q is longer than 1024 bytes or holds a control character", src.URL)
	}
	endpoint, err := checkEndpoint(src.Endpoint)
	if err != nil {
		return bucketAt{}, err
	}
	return bucketAt{endpoint: endpoint, bucket: bucket, prefix: prefix}, nil
}

func validBucket(b string) bool {
	if b == "" || len(b) > 255 {
		return false
	}
	for _, r := range b {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// checkEndpoint is the endpoint as http(s)://host[:port], lower-cased;
// one with a path, a query, a fragment or credentials is refused (the
// latter without echoing it).
func checkEndpoint(endpoint string) (string, error) {
	if endpoint == "" {
		return "", ragd.Invalid("endpoint", "missing", "an s3 source needs an endpoint, http(s)://host[:port] (for AWS https://s3.<region>.amazonaws.com)")
	}
	u, err := url.Parse(endpoint)
	if err == nil && u.User != nil {
		return "", ragd.Invalid("endpoint", "value_error", "the endpoint may not hold credentials: name them in access_key and secret_key as env:VAR")
	}
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") ||
		u.RawQuery != "" || u.ForceQuery || strings.Contains(endpoint, "#") {
		return "", ragd.Invalid("endpoint", "value_error", "the endpoint must be http(s)://host[:port], with no path, query or fragment, not %q", endpoint)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// Check validates what an s3 source says: its url and endpoint, its
// region's form, its keys (env:VAR each, both or neither), its globs,
// and that it sets none of the other kinds' fields.
func (s *Syncer) Check(_ context.Context, src ragd.Source) error {
	if _, err := locate(src); err != nil {
		return err
	}
	for _, f := range []struct {
		field string
		set   bool
	}{{"ref", src.Ref != ""}, {"ssh_key", src.SSHKey != ""}, {"max_pages", src.MaxPages != 0}, {"max_depth", src.MaxDepth != 0}} {
		if f.set {
			return ragd.Invalid(f.field, "value_error", "%s is not a setting of an s3 source", f.field)
		}
	}
	if len(src.Region) > 64 || strings.ContainsFunc(src.Region, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return ragd.Invalid("region", "value_error", "region %q is not a region name (letters, digits, - and _)", src.Region)
	}
	if err := checkKeys(src); err != nil {
		return err
	}
	if err := sourcesync.CheckGlobs("include", src.Include); err != nil {
		return err
	}
	return sourcesync.CheckGlobs("exclude", src.Exclude)
}

// checkKeys refuses keys not named as env:VAR (never echoing them) and
// one key without the other.
func checkKeys(src ragd.Source) error {
	for _, k := range []struct{ field, value string }{{"access_key", src.AccessKey}, {"secret_key", src.SecretKey}} {
		if name, ok := strings.CutPrefix(k.value, ragd.SecretPrefix); k.value != "" && (!ok || name == "") {
			return ragd.Invalid(k.field, "value_error", "%s must be env:VAR, naming the environment variable of the server that holds it, never the key itself", k.field)
		}
	}
	if (src.AccessKey == "") != (src.SecretKey == "") {
		return ragd.Invalid("secret_key", "value_error", "access_key and secret_key go together: both env:VAR, or neither for a public bucket")
	}
	return nil
}
