package sources_test

import (
	"bytes"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ragd"
	"ragd/internal/platform/keyspace"
	"ragd/internal/testkit/s3bucket"
	"ragd/internal/testkit/stack"
	"ragd/internal/testkit/testenv"
	"ragd/wire"
)

// The s3 kind against the test S3 server (gofakes3's own process,
// testenv.S3), through s3bucket.Proxy, which counts object reads on the
// wire and stands in for S3's refusal of an unknown access key. These
// tests set environment variables (the source's env:VAR keys), so they
// do not run in parallel.

// s3Env names the key pair of the test server in the environment, the
// secret a value of this test's own, and returns the secret.
func s3Env(t *testing.T, b *s3bucket.Bucket) string {
	secret := "s3-secret-" + testenv.Unique(t, "k")
	t.Setenv("RAGD_TEST_SOURCES_S3_AK", b.Server.AccessKey)
	t.Setenv("RAGD_TEST_SOURCES_S3_SK", secret) // the test server checks no signature
	return secret
}

// addS3Source adds an s3 source of the bucket's prefix at endpoint with
// the key pair s3Env named, and returns its id.
func addS3Source(t *testing.T, s *stack.Stack, b *s3bucket.Bucket, endpoint, prefix string, more map[string]any) string {
	t.Helper()
	body := map[string]any{"kind": "s3", "url": "s3://" + b.Name + "/" + prefix, "endpoint": endpoint,
		"access_key": "env:RAGD_TEST_SOURCES_S3_AK", "secret_key": "env:RAGD_TEST_SOURCES_S3_SK"}
	for k, v := range more {
		body[k] = v
	}
	return addKind(t, s, ragd.SourceS3, body)
}

// s3Keys are the object keys of the namespace's documents from s3
// sources.
func s3Keys(t *testing.T, s *stack.Stack) []string {
	t.Helper()
	return items(t, s, ragd.SourceS3)
}

// Two syncs of a bucket's prefix over REST: the first indexes the
// objects in scope (searchable), the second — after one object changed,
// one was deleted and one added — reflects exactly that and reads only
// the 2 objects that changed (counted on the wire). The secret key's
// value is never in GET /sources nor in the logs (at debug level).
func TestS3SyncReflectsEachChange(t *testing.T) {
	b := s3bucket.New(t)
	secret := s3Env(t, b)
	b.Put(t, "handbook/anchors.md", "# Anchors\n\nThe anchor chain is inspected every spring.\n")
	b.Put(t, "handbook/buoys.md", "# Buoys\n\nRed buoys mark the port side of the channel.\n")
	b.Put(t, "handbook/charts.md", "# Charts\n\nCharts are corrected from the weekly notices.\n")
	b.Put(t, "handbook/deck/log.txt", "Deck log: entries are made every watch.\n")
	b.Put(t, "handbook/logo.png", "not an image we read")
	b.Put(t, "elsewhere/x.md", "# Elsewhere\n\nOutside the prefix.\n")
	proxy := s3bucket.NewProxy(t, b.Server.Endpoint)
	logPath := filepath.Join(t.TempDir(), "ragd.log")
	logs, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logs.Close() })
	cfg := stack.Config(t)
	cfg.Ingest.AllowPrivateURLs = true
	cfg.Worker.MaxRetries = 0
	s := stack.StartWithLogger(t, cfg, true, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))

	id := addS3Source(t, s, b, proxy.URL, "handbook/", map[string]any{"tags": []string{"handbook"}})
	job, res := sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	equal(t, "after the first sync", s3Keys(t, s), []string{"handbook/anchors.md", "handbook/buoys.md", "handbook/charts.md", "handbook/deck/log.txt"})
	if n, _ := proxy.Reads(); res.FilesAdded != 4 || n != 4 || s.S3.Reads.Load() != 4 {
		t.Fatalf("first sync: %+v, %d reads on the wire", res, n)
	}
	if found := search(t, s, "which side do red buoys mark"); len(found) == 0 || !strings.HasSuffix(found[0].Source, "#handbook/buoys.md") {
		t.Fatalf("search after the first sync: %+v", found)
	}

	b.Put(t, "handbook/anchors.md", "# Anchors\n\nThe anchor chain is inspected every autumn now.\n")
	b.Remove(t, "handbook/buoys.md")
	b.Put(t, "handbook/flags.md", "# Flags\n\nThe ensign is hoisted at eight.\n")
	job, res = sync(t, s, id, nil)
	if job.Status != ragd.JobCompleted {
		t.Fatalf("second sync: %s %s", job.Status, job.Error)
	}
	equal(t, "after the second sync", s3Keys(t, s), []string{"handbook/anchors.md", "handbook/charts.md", "handbook/deck/log.txt", "handbook/flags.md"})
	if res.FilesAdded != 1 || res.FilesChanged != 1 || res.FilesUnchanged != 2 || res.DocumentsDeleted != 1 {
		t.Fatalf("second sync: %+v", res)
	}
	if n, keys := proxy.Reads(); n != 4+2 || proxy.ReadsOf("handbook/charts.md") != 1 {
		t.Fatalf("after the second sync %d reads on the wire (%v); want 6: only anchors.md and flags.md read again", n, keys)
	}
	doc := document(t, s, ragd.SourceItemURI(ragd.SourceS3, strings.ToLower(proxy.URL)+"/"+b.Name+"/handbook/", "handbook/anchors.md"))
	if doc.WebURL != "" || !slices.Equal(doc.Tags, []string{"handbook"}) {
		t.Fatalf("anchors.md after its change: %+v", doc)
	}
	if found := search(t, s, "when is the anchor chain inspected"); len(found) == 0 || !strings.Contains(found[0].Text, "autumn") {
		t.Fatalf("search after the second sync: %+v", found)
	}
	r := s.Do(t, "GET", "/sources", nil)
	if !strings.Contains(string(r.Body), `"secret_key":"env:RAGD_TEST_SOURCES_S3_SK"`) || strings.Contains(string(r.Body), secret) {
		t.Fatalf("GET /sources: %s; want the secret named, never its value", r.Body)
	}
	if written, err := os.ReadFile(logPath); err != nil || len(written) == 0 || bytes.Contains(written, []byte(secret)) {
		t.Fatalf("the logs (%d bytes, %v) hold the secret key's value, or nothing was logged", len(written), err)
	}
}

// search is the top results of a search of the default namespace.
func search(t *testing.T, s *stack.Stack, query string) []wire.Result {
	t.Helper()
	r := s.Do(t, "POST", "/tools/rag_search", map[string]any{"query": query, "kb_name": "default", "top_k": 3})
	if r.Status != http.StatusOK {
		t.Fatalf("search %q: %d %s", query, r.Status, r.Body)
	}
	var found wire.SearchResponse
	decode(t, r.Body, &found)
	return found.Results
}

// A listing that fails — refused credentials, a missing bucket — fails
// the job and deletes nothing; a sync that would delete more than half
// of the documents stops unless force.
func TestS3FailuresPruneNothing(t *testing.T) {
	b := s3bucket.New(t)
	s3Env(t, b)
	t.Setenv("RAGD_TEST_SOURCES_S3_WRONG", s3bucket.WrongKey)
	for _, k := range []string{"a.md", "b.md", "c.md", "d.md"} {
		b.Put(t, k, "# Page "+k+"\n\nThe page about "+k+" and nothing else.\n")
	}
	proxy := s3bucket.NewProxy(t, b.Server.Endpoint)
	s := start(t)
	id := addS3Source(t, s, b, proxy.URL, "", nil)
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	all := []string{"a.md", "b.md", "c.md", "d.md"}

	b.Remove(t, "a.md")
	b.Remove(t, "b.md")
	b.Remove(t, "c.md")
	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true})
	if r.Status != http.StatusConflict || !strings.Contains(string(r.Body), "3 of the source's 4 documents") {
		t.Fatalf("dry run deleting 3 of 4: %d %s", r.Status, r.Body)
	}
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobFailed || !strings.Contains(job.Error, "more than half") {
		t.Fatalf("sync deleting 3 of 4: %s %q", job.Status, job.Error)
	}
	equal(t, "after the stopped sync", s3Keys(t, s), all)

	r = s.Do(t, "PATCH", "/sources/"+id, map[string]any{"access_key": "env:RAGD_TEST_SOURCES_S3_WRONG"})
	if r.Status != http.StatusOK {
		t.Fatalf("PATCH: %d %s", r.Status, r.Body)
	}
	job, _ := sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "refused the credentials") {
		t.Fatalf("sync with refused credentials: %s %q", job.Status, job.Error)
	}
	equal(t, "after refused credentials", s3Keys(t, s), all)
	s.Do(t, "PATCH", "/sources/"+id, map[string]any{"access_key": "env:RAGD_TEST_SOURCES_S3_AK"})

	b.Drop(t)
	job, _ = sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobFailed || !strings.Contains(job.Error, "does not exist") {
		t.Fatalf("sync of a missing bucket: %s %q", job.Status, job.Error)
	}
	equal(t, "after the missing bucket", s3Keys(t, s), all)
}

// With force, a sync that deletes more than half goes ahead.
func TestS3ForceDeletes(t *testing.T) {
	b := s3bucket.New(t)
	s3Env(t, b)
	for _, k := range []string{"a.md", "b.md", "c.md"} {
		b.Put(t, k, "# Note "+k+"\n\nA note called "+k+".\n")
	}
	s := start(t)
	id := addS3Source(t, s, b, b.Server.Endpoint, "", nil)
	if job, _ := sync(t, s, id, nil); job.Status != ragd.JobCompleted {
		t.Fatalf("first sync: %s %s", job.Status, job.Error)
	}
	b.Remove(t, "a.md")
	b.Remove(t, "b.md")
	job, res := sync(t, s, id, map[string]any{"force": true})
	if job.Status != ragd.JobCompleted || res.DocumentsDeleted != 2 {
		t.Fatalf("forced sync: %s %q %+v", job.Status, job.Error, res)
	}
	equal(t, "after the forced sync", s3Keys(t, s), []string{"c.md"})
	r := s.Do(t, "DELETE", "/sources/"+id, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("DELETE: %d %s", r.Status, r.Body)
	}
	if n, _ := s.Redis.Exists(t.Context(), keyspace.New(s.Config.Redis.KeyPrefix).SourceState(id)).Result(); n != 0 {
		t.Fatal("the source's ETags outlived it")
	}
}

// POST /sources refuses a malformed s3 source naming the field, and a
// sync of an endpoint on a loopback address is refused while
// ingest.allow_private_urls is off.
func TestS3Refusals(t *testing.T) {
	b := s3bucket.New(t)
	s3Env(t, b)
	s := stack.Start(t, stack.Config(t), false) // allow_private_urls off
	for _, c := range []struct {
		body map[string]any
		says string
	}{
		{map[string]any{"url": "https://bucket/prefix", "endpoint": "https://s3.example.com"}, "an s3 source's url is s3://"},
		{map[string]any{"url": "s3://bucket/prefix"}, "needs an endpoint"},
		{map[string]any{"url": "s3://bucket/prefix", "endpoint": "https://s3.example.com/path"}, "no path"},
		{map[string]any{"url": "s3://bucket/a#b", "endpoint": "https://s3.example.com"}, "may not hold #"},
		{map[string]any{"url": "s3://bucket/", "endpoint": "https://s3.example.com", "access_key": "AKIACLEARTEXT", "secret_key": "env:X"}, "access_key must be env:VAR"},
		{map[string]any{"url": "s3://bucket/", "endpoint": "https://s3.example.com", "ref": "main"}, "ref is not a setting of an s3 source"},
	} {
		c.body["kind"] = "s3"
		r := s.Do(t, "POST", "/sources", c.body)
		if r.Status != http.StatusUnprocessableEntity || !strings.Contains(string(r.Body), c.says) || strings.Contains(string(r.Body), "AKIACLEARTEXT") {
			t.Errorf("%v: %d %s; want 422 saying %q", c.body, r.Status, r.Body, c.says)
		}
	}
	id := addS3Source(t, s, b, b.Server.Endpoint, "", nil)
	r := s.Do(t, "POST", "/sources/"+id+"/sync", map[string]any{"dry_run": true})
	if r.Status != http.StatusForbidden || !strings.Contains(string(r.Body), "ingest.allow_private_urls") {
		t.Errorf("endpoint on loopback: %d %s", r.Status, r.Body)
	}
}
