package s3sync_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"ragd"
	"ragd/internal/catalog/registry"
	"ragd/internal/ingest/guard"
	"ragd/internal/jobs/s3sync"
	"ragd/internal/jobs/sourcesync"
	"ragd/internal/platform/keyspace"
	"ragd/internal/platform/kv"
	"ragd/internal/testkit/s3bucket"
	"ragd/internal/testkit/testenv"
)

const ns = "docs"

// fixture is a Syncer on the real Redis and the test S3 server (through
// a counting proxy), and an s3 source of a fresh bucket.
type fixture struct {
	s      *s3sync.Syncer
	bucket *s3bucket.Bucket
	proxy  *s3bucket.Proxy
	src    ragd.Source
}

func newFixture(t *testing.T, prefix string) *fixture {
	t.Helper()
	rdb := testenv.RedisClient(t, testenv.RedisURL(t))
	keys := keyspace.New("test:" + testenv.Unique(t, "S3"))
	b := s3bucket.New(t)
	p := s3bucket.NewProxy(t, b.Server.Endpoint)
	t.Setenv("RAGD_TEST_S3SYNC_AK", b.Server.AccessKey)
	t.Setenv("RAGD_TEST_S3SYNC_SK", b.Server.SecretKey)
	s := &s3sync.Syncer{UploadsDir: t.TempDir(), Fetcher: &guard.Fetcher{AllowPrivate: true}, Registry: registry.New(rdb, keys),
		KV: kv.New(rdb), Keys: keys, MaxObjects: 100, MaxObjectBytes: 1 << 20, Timeout: time.Minute}
	src := ragd.Source{ID: "src_" + testenv.Unique(t, "id"), Namespace: ns, Kind: ragd.SourceS3, URL: "s3://" + b.Name + "/" + prefix,
		Endpoint: p.URL, AccessKey: "env:RAGD_TEST_S3SYNC_AK", SecretKey: "env:RAGD_TEST_S3SYNC_SK"}
	if err := s.Check(context.Background(), src); err != nil {
		t.Fatalf("Check: %v", err)
	}
	return &fixture{s: s, bucket: b, proxy: p, src: src}
}

// sync plans, stages every item to read and tells the syncer, as the
// worker does; the documents of the items in indexed (all when nil)
// are then recorded, as their document jobs would.
func (f *fixture) sync(t *testing.T, force bool, indexed func(key string) bool) *sourcesync.Plan {
	t.Helper()
	ctx := context.Background()
	p, err := f.s.Plan(ctx, f.src, force)
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	for _, d := range p.Deleted {
		if err := f.s.Registry.Delete(ctx, ns, d.DocumentID); err != nil {
			t.Fatal(err)
		}
	}
	for _, key := range append(slices.Clone(p.Added), p.Changed...) {
		file, err := f.s.Stage(ctx, p, key)
		if err != nil {
			t.Fatalf("Stage %s: %v", key, err)
		}
		if indexed != nil && !indexed(key) {
			continue
		}
		now := time.Now().UTC()
		if err := f.s.Registry.Put(ctx, ragd.Document{ID: ragd.DocumentID(ns, file.Source), Namespace: ns, Source: file.Source,
			SourceType: ragd.SourceMarkdown, ContentHash: file.Upload, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.s.Synced(ctx, p); err != nil {
		t.Fatalf("Synced: %v", err)
	}
	return p
}

func deletedKeys(p *sourcesync.Plan) []string {
	out := []string{}
	for _, d := range p.Deleted {
		key, _ := ragd.SourceItem(ragd.SourceS3, d.Source)
		out = append(out, key)
	}
	return out
}

func checkPlan(t *testing.T, what string, p *sourcesync.Plan, added, changed []string, unchanged int, deleted []string) {
	t.Helper()
	if !slices.Equal(p.Added, added) || !slices.Equal(p.Changed, changed) || p.Unchanged != unchanged || !slices.Equal(deletedKeys(p), deleted) {
		t.Fatalf("%s: added %v changed %v unchanged %d deleted %v; want %v %v %d %v",
			what, p.Added, p.Changed, p.Unchanged, deletedKeys(p), added, changed, unchanged, deleted)
	}
}

// TestSyncReadsOnlyWhatChanged: two syncs of a prefix. The first reads
// the objects in scope (a supported type, taken by the globs, not
// hidden, under the prefix) and stages their bytes with the s3 source
// URI; the second, after one object changed, one was deleted and one
// added, plans exactly that and reads only the changed and the added
// (reads counted by the syncer and on the wire). A key the exclude globs
// now leave out has its document deleted. Forget drops the ETags: the
// next sync reads everything again.
func TestSyncReadsOnlyWhatChanged(t *testing.T) {
	f := newFixture(t, "docs/")
	for _, k := range []string{"docs/a.md", "docs/b.md", "docs/c.md", "docs/drafts/x.md", "docs/.trash/y.md", "docs/logo.png", "other/z.md"} {
		f.bucket.Put(t, k, "# "+k+"\n\nThe text of "+k+".\n")
	}
	f.src.Exclude = []string{"drafts/"}
	p := f.sync(t, false, nil)
	checkPlan(t, "first sync", p, []string{"docs/a.md", "docs/b.md", "docs/c.md"}, []string{}, 0, []string{})
	if !p.Full || f.s.Reads.Load() != 3 {
		t.Fatalf("first sync: full %v, %d reads; want a full plan, 3 reads", p.Full, f.s.Reads.Load())
	}
	file, err := f.s.Stage(context.Background(), p, "docs/a.md")
	if err != nil {
		t.Fatal(err)
	}
	where := strings.ToLower(f.proxy.URL) + "/" + f.bucket.Name + "/docs/"
	body, _ := os.ReadFile(filepath.Join(f.s.UploadsDir, file.Upload))
	if file.Source != "s3+"+where+"#docs/a.md" || file.Filename != "a.md" || file.WebURL != "" || string(body) != "# docs/a.md\n\nThe text of docs/a.md.\n" {
		t.Fatalf("staged docs/a.md: %+v, %q", file, body)
	}
	if _, err := f.s.Stage(context.Background(), p, "docs/drafts/x.md"); err == nil {
		t.Fatal("an excluded key was staged")
	}

	f.bucket.Put(t, "docs/b.md", "# b\n\nEdited.\n")
	f.bucket.Remove(t, "docs/c.md")
	f.bucket.Put(t, "docs/d.md", "# d\n\nNew.\n")
	before, _ := f.proxy.Reads()
	p = f.sync(t, false, nil)
	checkPlan(t, "second sync", p, []string{"docs/d.md"}, []string{"docs/b.md"}, 1, []string{"docs/c.md"})
	if after, keys := f.proxy.Reads(); after-before != 2 || p.Full {
		t.Fatalf("second sync read %d objects (%v), full %v; want 2 (b and d)", after-before, keys, p.Full)
	}

	f.src.Exclude = []string{"drafts/", "d.md"}
	p = f.sync(t, false, nil)
	checkPlan(t, "d.md excluded", p, []string{}, []string{}, 2, []string{"docs/d.md"})

	if err := f.s.Forget(context.Background(), f.src); err != nil {
		t.Fatal(err)
	}
	p = f.sync(t, false, nil)
	checkPlan(t, "after Forget", p, []string{}, []string{"docs/a.md", "docs/b.md"}, 0, []string{})
}

// TestFailedDocumentIsReadAgain: the ETag of an object whose document
// was not indexed (its job failed) is not trusted: the next sync reads it
// again, though it did not change.
func TestFailedDocumentIsReadAgain(t *testing.T) {
	f := newFixture(t, "")
	f.bucket.Put(t, "a.md", "# a\n\nAlpha.\n")
	f.bucket.Put(t, "b.md", "# b\n\nBravo.\n")
	f.sync(t, false, func(key string) bool { return key != "b.md" })
	p := f.sync(t, false, nil)
	checkPlan(t, "after b.md's document failed", p, []string{"b.md"}, []string{}, 1, []string{})
}

// TestTooLargeIsKept: an object over MaxObjectBytes is not read, is in
// the plan's Failed, and its document is not deleted.
func TestTooLargeIsKept(t *testing.T) {
	f := newFixture(t, "")
	f.bucket.Put(t, "a.md", "# a\n\nAlpha.\n")
	f.bucket.Put(t, "big.md", "# big\n\nsmall at first.\n")
	f.sync(t, false, nil)
	f.bucket.Put(t, "big.md", "# big\n\n"+strings.Repeat("grown ", 200)+"\n")
	f.s.MaxObjectBytes = 100
	before := f.s.Reads.Load()
	p := f.sync(t, false, nil)
	checkPlan(t, "big.md grown too large", p, []string{}, []string{}, 1, []string{})
	if !strings.Contains(p.Failed["big.md"], "ingest.max_file_bytes") || f.s.Reads.Load() != before {
		t.Fatalf("failed %v, %d reads; want big.md failed naming ingest.max_file_bytes, nothing read", p.Failed, f.s.Reads.Load()-before)
	}
}

// TestListingFailuresDeleteNothing: a missing bucket, refused credentials,
// an unset variable, an endpoint on loopback without allow_private_urls,
// more objects than sources.s3_max_objects and a sync deleting more than
// half fail the plan: no plan, so nothing
// is deleted; force then deletes.
func TestListingFailuresDeleteNothing(t *testing.T) {
	f := newFixture(t, "")
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		f.bucket.Put(t, k, "# "+k+"\n\nText.\n")
	}
	f.sync(t, false, nil)
	ctx := context.Background()
	t.Setenv("RAGD_TEST_S3SYNC_WRONG", s3bucket.WrongKey)
	cases := []struct {
		name    string
		change  func(*ragd.Source)
		private bool // the guard refuses private addresses
		kind    ragd.ErrorKind
		says    string
	}{
		{"missing bucket", func(s *ragd.Source) { s.URL = "s3://" + f.bucket.Name + "-missing/" }, false, ragd.KindNotFound, "does not exist"},
		{"refused credentials", func(s *ragd.Source) { s.AccessKey = "env:RAGD_TEST_S3SYNC_WRONG" }, false, ragd.KindForbidden, "refused the credentials"},
		{"unset variable", func(s *ragd.Source) { s.SecretKey = "env:RAGD_TEST_S3SYNC_UNSET" }, false, ragd.KindInvalid, "RAGD_TEST_S3SYNC_UNSET"},
		{"private address", func(*ragd.Source) {}, true, ragd.KindForbidden, "allow_private_urls"},
	}
	for _, c := range cases {
		src := f.src
		c.change(&src)
		f.s.Fetcher = &guard.Fetcher{AllowPrivate: !c.private}
		p, err := f.s.Plan(ctx, src, true)
		if p != nil || ragd.KindOf(err) != c.kind || !strings.Contains(fmt.Sprint(err), c.says) ||
			strings.Contains(fmt.Sprint(err), f.bucket.Server.SecretKey) {
			t.Errorf("%s: plan %v, %v; want no plan, kind %d saying %q", c.name, p, err, c.kind, c.says)
		}
	}
	f.s.Fetcher = &guard.Fetcher{AllowPrivate: true}
	f.s.MaxObjects = 2
	if _, err := f.s.Plan(ctx, f.src, true); ragd.KindOf(err) != ragd.KindTooLarge || !strings.Contains(fmt.Sprint(err), "sources.s3_max_objects (2)") {
		t.Errorf("3 objects, s3_max_objects 2: %v; want too large naming the setting", err)
	}
	f.s.MaxObjects = 100
	f.bucket.Remove(t, "a.md")
	f.bucket.Remove(t, "b.md")
	_, err := f.s.Plan(ctx, f.src, false)
	if ragd.KindOf(err) != ragd.KindConflict || !strings.Contains(fmt.Sprint(err), "2 of the source's 3 documents") {
		t.Fatalf("deleting 2 of 3: %v; want a refusal", err)
	}
	p := f.sync(t, true, nil)
	checkPlan(t, "forced", p, []string{}, []string{"c.md"}, 0, []string{"a.md", "b.md"})
}

// TestCheck: each refusal of an s3 source's settings names its field and
// never echoes a key written in clear; good forms pass.
func TestCheck(t *testing.T) {
	s := &s3sync.Syncer{}
	good := ragd.Source{Kind: ragd.SourceS3, URL: "s3://team-docs/handbook/", Endpoint: "https://s3.eu-west-1.amazonaws.com",
		Region: "eu-west-1", AccessKey: "env:S3_AK", SecretKey: "env:S3_SK", Include: []string{"**/*.md"}}
	for _, src := range []ragd.Source{good, {Kind: ragd.SourceS3, URL: "s3://public", Endpoint: "http://minio.internal:9000/"}} {
		if err := s.Check(context.Background(), src); err != nil {
			t.Errorf("Check(%s at %s): %v", src.URL, src.Endpoint, err)
		}
	}
	cases := []struct {
		name, field string
		change      func(*ragd.Source)
	}{
		{"other scheme", "url", func(s *ragd.Source) { s.URL = "https://team-docs/handbook/" }},
		{"no bucket", "url", func(s *ragd.Source) { s.URL = "s3:///handbook/" }},
		{"# in the url", "url", func(s *ragd.Source) { s.URL = "s3://team-docs/hand#book/" }},
		{"no endpoint", "endpoint", func(s *ragd.Source) { s.Endpoint = "" }},
		{"endpoint with a path", "endpoint", func(s *ragd.Source) { s.Endpoint = "https://s3.example.com/bucket" }},
		{"endpoint with a fragment", "endpoint", func(s *ragd.Source) { s.Endpoint = "https://s3.example.com/#x" }},
		{"endpoint of another scheme", "endpoint", func(s *ragd.Source) { s.Endpoint = "ftp://s3.example.com" }},
		{"endpoint with credentials", "endpoint", func(s *ragd.Source) { s.Endpoint = "https://AKIAINCLEAR:wJalrInClear@s3.example.com" }},
		{"access key in clear", "access_key", func(s *ragd.Source) { s.AccessKey = "AKIAINCLEAR" }},
		{"secret key in clear", "secret_key", func(s *ragd.Source) { s.SecretKey = "wJalrInClear" }},
		{"empty variable name", "secret_key", func(s *ragd.Source) { s.SecretKey = "env:" }},
		{"one key only", "secret_key", func(s *ragd.Source) { s.SecretKey = "" }},
		{"ssh_key", "ssh_key", func(s *ragd.Source) { s.SSHKey = "env:KEY" }},
		{"ref", "ref", func(s *ragd.Source) { s.Ref = "main" }},
		{"max_pages", "max_pages", func(s *ragd.Source) { s.MaxPages = 10 }},
		{"region", "region", func(s *ragd.Source) { s.Region = "eu west/1" }},
		{"glob", "exclude", func(s *ragd.Source) { s.Exclude = []string{" "} }},
	}
	for _, c := range cases {
		src := good
		c.change(&src)
		err := s.Check(context.Background(), src)
		if fieldOf(err) != c.field || strings.Contains(fmt.Sprint(err), "InClear") {
			t.Errorf("%s: %v; want invalid naming %s, echoing no key", c.name, err, c.field)
		}
	}
}

// fieldOf is the request field an invalid error names, "" for none.
func fieldOf(err error) string {
	var e *ragd.Error
	if errors.As(err, &e) && e.Kind == ragd.KindInvalid && len(e.Fields) == 1 && len(e.Fields[0].Loc) == 2 {
		return e.Fields[0].Loc[1]
	}
	return ""
}
