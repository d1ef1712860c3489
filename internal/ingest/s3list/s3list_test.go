package s3list_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"ragd"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/s3list"
	"ragd/internal/testkit/testenv"
)

// bucket is a fresh bucket on the test S3 server, and a client that fills
// it.
type bucket struct {
	name   string
	client *minio.Client
	server testenv.S3Server
}

func newBucket(t *testing.T) *bucket {
	t.Helper()
	srv := testenv.S3(t)
	u, err := url.Parse(srv.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	c, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(srv.AccessKey, srv.SecretKey, "")})
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "ragd-test-" + hex.EncodeToString(b)
	if err := c.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket on %s: %v", srv.Endpoint, err)
	}
	return &bucket{name: name, client: c, server: srv}
}

func (b *bucket) put(t *testing.T, key, body string) {
	t.Helper()
	if _, err := b.client.PutObject(context.Background(), b.name, key, strings.NewReader(body), int64(len(body)), minio.PutObjectOptions{}); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

func (b *bucket) remove(t *testing.T, key string) {
	t.Helper()
	if err := b.client.RemoveObject(context.Background(), b.name, key, minio.RemoveObjectOptions{}); err != nil {
		t.Fatalf("remove %s: %v", key, err)
	}
}

// proxy passes requests to the S3 server, counting object reads and list
// pages. A request signed with the access key "wrong-key" it answers as S3
// answers an unknown key (403 InvalidAccessKeyId): a stand-in for the
// signature check the test server does not make.
type proxy struct {
	srv          *httptest.Server
	mu           sync.Mutex
	reads        map[string]int // object GETs by key
	listRequests atomic.Int32
}

func newProxy(t *testing.T, endpoint string) *proxy {
	target, _ := url.Parse(endpoint)
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &proxy{reads: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "Credential=wrong-key/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			return
		}
		parts := strings.SplitN(strings.TrimPrefix(r.URL.Path, "/"), "/", 2)
		switch {
		case r.Method == http.MethodGet && len(parts) == 2 && parts[1] != "":
			p.mu.Lock()
			p.reads[parts[1]]++
			p.mu.Unlock()
		case r.Method == http.MethodGet && r.URL.Query().Has("list-type"):
			p.listRequests.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *proxy) readCount() (n int, keys []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, c := range p.reads {
		n += c
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return n, keys
}

var open = &guard.Fetcher{AllowPrivate: true} // the test server is on loopback

func lister(t *testing.T, cfg s3list.Config) *s3list.Lister {
	t.Helper()
	t.Setenv("RAGD_TEST_S3_AK", testenv.S3(t).AccessKey)
	t.Setenv("RAGD_TEST_S3_SK", testenv.S3(t).SecretKey)
	if cfg.AccessKey == "" {
		cfg.AccessKey, cfg.SecretKey = "env:RAGD_TEST_S3_AK", "env:RAGD_TEST_S3_SK"
	}
	l, err := s3list.New(cfg, open)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}

// syncOnce lists and reads what the listing says to read, returning the ETags
// for the next sync.
func syncOnce(t *testing.T, l *s3list.Lister, prev map[string]string) (s3list.Listing, map[string]string) {
	t.Helper()
	listing, err := l.List(context.Background(), prev)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	for _, k := range listing.ToRead() {
		if _, err := l.Read(context.Background(), k); err != nil {
			t.Fatalf("Read %s: %v", k, err)
		}
	}
	etags := map[string]string{}
	for k, o := range listing.Objects {
		etags[k] = o.ETag
	}
	return listing, etags
}

// TestListIncremental: two syncs of a prefix on the real S3 server; the
// second, after one object changed, one was deleted and one added,
// reports exactly that and reads only the changed and the added (object
// GETs counted on the wire).
func TestListIncremental(t *testing.T) {
	b := newBucket(t)
	for _, k := range []string{"docs/a.md", "docs/b.md", "docs/c.md", "other/x.md"} {
		b.put(t, k, "# "+k)
	}
	p := newProxy(t, b.server.Endpoint)
	l := lister(t, s3list.Config{Endpoint: p.srv.URL, Bucket: b.name, Prefix: "docs/"})
	first, etags := syncOnce(t, l, nil)
	if !slices.Equal(first.Added, []string{"docs/a.md", "docs/b.md", "docs/c.md"}) || len(first.Objects) != 3 {
		t.Fatalf("first listing added %v (%d objects); want docs/a, b, c (not other/)", first.Added, len(first.Objects))
	}
	if n, _ := p.readCount(); n != 3 {
		t.Fatalf("first sync read %d objects, want 3", n)
	}
	b.put(t, "docs/b.md", "# b, edited")
	b.remove(t, "docs/c.md")
	b.put(t, "docs/d.md", "# d")
	second, _ := syncOnce(t, l, etags)
	want := s3list.Listing{Added: []string{"docs/d.md"}, Changed: []string{"docs/b.md"}, Unchanged: []string{"docs/a.md"}, Deleted: []string{"docs/c.md"}}
	if !slices.Equal(second.Added, want.Added) || !slices.Equal(second.Changed, want.Changed) ||
		!slices.Equal(second.Unchanged, want.Unchanged) || !slices.Equal(second.Deleted, want.Deleted) {
		t.Errorf("second listing: added %v changed %v unchanged %v deleted %v; want %v %v %v %v",
			second.Added, second.Changed, second.Unchanged, second.Deleted, want.Added, want.Changed, want.Unchanged, want.Deleted)
	}
	if n, keys := p.readCount(); n != 5 || p.reads["docs/a.md"] != 1 {
		t.Errorf("after two syncs %d object reads (%v, a.md %d times); want 5, a.md once", n, keys, p.reads["docs/a.md"])
	}
}

// TestListBounds: a listing longer than one page (1,000 keys) is paged;
// more objects than MaxObjects is an error; an object over MaxObjectBytes
// is listed as too large, never read, and Read refuses it.
func TestListBounds(t *testing.T) {
	b := newBucket(t)
	const n = 1010
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b.put(t, fmt.Sprintf("p/%04d.txt", i), "x")
		}()
	}
	wg.Wait()
	b.put(t, "big/large.txt", strings.Repeat("y", 100))
	b.put(t, "big/small.txt", "y")
	p := newProxy(t, b.server.Endpoint)
	listing, _ := syncOnce(t, lister(t, s3list.Config{Endpoint: p.srv.URL, Bucket: b.name, Prefix: "p/"}), nil)
	if len(listing.Objects) != n || p.listRequests.Load() < 2 {
		t.Errorf("listed %d objects in %d requests; want %d over at least 2 pages", len(listing.Objects), p.listRequests.Load(), n)
	}
	_, err := lister(t, s3list.Config{Endpoint: p.srv.URL, Bucket: b.name, Prefix: "p/", MaxObjects: 1000}).List(context.Background(), nil)
	if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(err.Error(), "max_objects (1000)") {
		t.Errorf("1010 objects, MaxObjects 1000: %v; want a too-large error naming max_objects", err)
	}
	l := lister(t, s3list.Config{Endpoint: p.srv.URL, Bucket: b.name, Prefix: "big/", MaxObjectBytes: 10})
	before, _ := p.readCount()
	listing, _ = syncOnce(t, l, nil)
	if after, _ := p.readCount(); !slices.Equal(listing.TooLarge, []string{"big/large.txt"}) || after-before != 1 {
		t.Errorf("too large %v, %d reads; want big/large.txt only, and only small.txt read", listing.TooLarge, after-before)
	}
	if _, err := l.Read(context.Background(), "big/large.txt"); ragd.KindOf(err) != ragd.KindTooLarge {
		t.Errorf("Read of an object over MaxObjectBytes: %v", err)
	}
}

// TestListFailures: a missing bucket, refused credentials, credentials
// missing from the environment, a server that is down and an endpoint on
// a private address (the server's guard): each an error, never a listing.
func TestListFailures(t *testing.T) {
	b := newBucket(t)
	b.put(t, "a.md", "# a")
	p := newProxy(t, b.server.Endpoint)
	ctx := context.Background()
	check := func(name string, l *s3list.Lister, kind ragd.ErrorKind, says string) {
		t.Helper()
		listing, err := l.List(ctx, map[string]string{"a.md": "x"})
		if ragd.KindOf(err) != kind || !strings.Contains(err.Error(), says) || listing.Objects != nil || listing.Deleted != nil {
			t.Errorf("%s: %v, listing %+v; want kind %d saying %q, no listing", name, err, listing, kind, says)
		}
	}
	check("missing bucket", lister(t, s3list.Config{Endpoint: p.srv.URL, Bucket: b.name + "-missing"}), ragd.KindNotFound, "does not exist")
	t.Setenv("RAGD_TEST_WRONG_AK", "wrong-key")
	check("refused credentials", lister(t, s3list.Config{Endpoint: p.srv.URL, Bucket: b.name, AccessKey: "env:RAGD_TEST_WRONG_AK", SecretKey: "env:RAGD_TEST_S3_SK"}),
		ragd.KindForbidden, "refused the credentials")
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	check("server down", lister(t, s3list.Config{Endpoint: down.URL, Bucket: b.name}), ragd.KindUnavailable, "could not be listed")
	l, err := s3list.New(s3list.Config{Endpoint: b.server.Endpoint, Bucket: b.name}, &guard.Fetcher{})
	if err != nil {
		t.Fatal(err)
	}
	check("private endpoint", l, ragd.KindForbidden, "allow_private_urls")
	for _, c := range []s3list.Config{
		{Endpoint: p.srv.URL, Bucket: b.name, AccessKey: "env:RAGD_TEST_UNSET_VARIABLE", SecretKey: "env:RAGD_TEST_S3_SK"},
		{Endpoint: p.srv.URL, Bucket: b.name, AccessKey: "AKIAPLAINTEXT", SecretKey: "plain-secret"},
		{Endpoint: "ftp://host/", Bucket: b.name},
	} {
		if _, err := s3list.New(c, open); ragd.KindOf(err) != ragd.KindInvalid || strings.Contains(err.Error(), "plain-secret") {
			t.Errorf("New(%s, %s): %v; want invalid, naming no secret", c.Endpoint, c.AccessKey, err)
		}
	}
}
