package s3list_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"ragd"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/s3list"
	"ragd/internal/testkit/s3bucket"
	"ragd/internal/testkit/testenv"
)

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
	b := s3bucket.New(t)
	for _, k := range []string{"docs/a.md", "docs/b.md", "docs/c.md", "other/x.md"} {
		b.Put(t, k, "# "+k)
	}
	p := s3bucket.NewProxy(t, b.Server.Endpoint)
	l := lister(t, s3list.Config{Endpoint: p.URL, Bucket: b.Name, Prefix: "docs/"})
	first, etags := syncOnce(t, l, nil)
	if !slices.Equal(first.Added, []string{"docs/a.md", "docs/b.md", "docs/c.md"}) || len(first.Objects) != 3 {
		t.Fatalf("first listing added %v (%d objects); want docs/a, b, c (not other/)", first.Added, len(first.Objects))
	}
	if n, _ := p.Reads(); n != 3 {
		t.Fatalf("first sync read %d objects, want 3", n)
	}
	b.Put(t, "docs/b.md", "# b, edited")
	b.Remove(t, "docs/c.md")
	b.Put(t, "docs/d.md", "# d")
	second, _ := syncOnce(t, l, etags)
	want := s3list.Listing{Added: []string{"docs/d.md"}, Changed: []string{"docs/b.md"}, Unchanged: []string{"docs/a.md"}, Deleted: []string{"docs/c.md"}}
	if !slices.Equal(second.Added, want.Added) || !slices.Equal(second.Changed, want.Changed) ||
		!slices.Equal(second.Unchanged, want.Unchanged) || !slices.Equal(second.Deleted, want.Deleted) {
		t.Errorf("second listing: added %v changed %v unchanged %v deleted %v; want %v %v %v %v",
			second.Added, second.Changed, second.Unchanged, second.Deleted, want.Added, want.Changed, want.Unchanged, want.Deleted)
	}
	if n, keys := p.Reads(); n != 5 || p.ReadsOf("docs/a.md") != 1 {
		t.Errorf("after two syncs %d object reads (%v, a.md %d times); want 5, a.md once", n, keys, p.ReadsOf("docs/a.md"))
	}
}

// TestListBounds: a listing longer than one page (1,000 keys) is paged;
// more objects than MaxObjects is an error; an object over MaxObjectBytes
// is listed as too large, never read, and Read refuses it.
func TestListBounds(t *testing.T) {
	b := s3bucket.New(t)
	const n = 1010
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			b.Put(t, fmt.Sprintf("p/%04d.txt", i), "x")
		}()
	}
	wg.Wait()
	b.Put(t, "big/large.txt", strings.Repeat("y", 100))
	b.Put(t, "big/small.txt", "y")
	p := s3bucket.NewProxy(t, b.Server.Endpoint)
	listing, _ := syncOnce(t, lister(t, s3list.Config{Endpoint: p.URL, Bucket: b.Name, Prefix: "p/"}), nil)
	if len(listing.Objects) != n || p.ListRequests.Load() < 2 {
		t.Errorf("listed %d objects in %d requests; want %d over at least 2 pages", len(listing.Objects), p.ListRequests.Load(), n)
	}
	_, err := lister(t, s3list.Config{Endpoint: p.URL, Bucket: b.Name, Prefix: "p/", MaxObjects: 1000}).List(context.Background(), nil)
	if ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(err.Error(), "max_objects (1000)") {
		t.Errorf("1010 objects, MaxObjects 1000: %v; want a too-large error naming max_objects", err)
	}
	l := lister(t, s3list.Config{Endpoint: p.URL, Bucket: b.Name, Prefix: "big/", MaxObjectBytes: 10})
	before, _ := p.Reads()
	listing, _ = syncOnce(t, l, nil)
	if after, _ := p.Reads(); !slices.Equal(listing.TooLarge, []string{"big/large.txt"}) || after-before != 1 {
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
	b := s3bucket.New(t)
	b.Put(t, "a.md", "# a")
	p := s3bucket.NewProxy(t, b.Server.Endpoint)
	ctx := context.Background()
	check := func(name string, l *s3list.Lister, kind ragd.ErrorKind, says string) {
		t.Helper()
		listing, err := l.List(ctx, map[string]string{"a.md": "x"})
		if ragd.KindOf(err) != kind || !strings.Contains(err.Error(), says) || listing.Objects != nil || listing.Deleted != nil {
			t.Errorf("%s: %v, listing %+v; want kind %d saying %q, no listing", name, err, listing, kind, says)
		}
	}
	check("missing bucket", lister(t, s3list.Config{Endpoint: p.URL, Bucket: b.Name + "-missing"}), ragd.KindNotFound, "does not exist")
	t.Setenv("RAGD_TEST_WRONG_AK", s3bucket.WrongKey)
	check("refused credentials", lister(t, s3list.Config{Endpoint: p.URL, Bucket: b.Name, AccessKey: "env:RAGD_TEST_WRONG_AK", SecretKey: "env:RAGD_TEST_S3_SK"}),
		ragd.KindForbidden, "refused the credentials")
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	check("server down", lister(t, s3list.Config{Endpoint: down.URL, Bucket: b.Name}), ragd.KindUnavailable, "could not be listed")
	l, err := s3list.New(s3list.Config{Endpoint: b.Server.Endpoint, Bucket: b.Name}, &guard.Fetcher{})
	if err != nil {
		t.Fatal(err)
	}
	check("private endpoint", l, ragd.KindForbidden, "allow_private_urls")
	for _, c := range []s3list.Config{
		{Endpoint: p.URL, Bucket: b.Name, AccessKey: "env:RAGD_TEST_UNSET_VARIABLE", SecretKey: "env:RAGD_TEST_S3_SK"},
		{Endpoint: p.URL, Bucket: b.Name, AccessKey: "AKIAPLAINTEXT", SecretKey: "plain-secret"},
		{Endpoint: "ftp://host/", Bucket: b.Name},
	} {
		if _, err := s3list.New(c, open); ragd.KindOf(err) != ragd.KindInvalid || strings.Contains(err.Error(), "plain-secret") {
			t.Errorf("New(%s, %s): %v; want invalid, naming no secret", c.Endpoint, c.AccessKey, err)
		}
	}
}
