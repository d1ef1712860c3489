// Package s3bucket gives tests a fresh bucket on the test S3 server
// (testenv.S3) with a client that fills it, and Proxy, a stand-in in
// front of the server that counts object reads and list requests and
// answers a request signed with the access key WrongKey as S3 answers an
// unknown key (403 InvalidAccessKeyId), a check the test server does not
// make.
package s3bucket

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

	"ragd/internal/testkit/testenv"
)

// WrongKey is the access key Proxy refuses.
const WrongKey = "wrong-key"

// Bucket is a fresh bucket on the test S3 server.
type Bucket struct {
	Name   string
	Server testenv.S3Server
	client *minio.Client
}

// New makes a bucket of a name of its own on the test S3 server.
func New(t testing.TB) *Bucket {
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
	_, _ = rand.Read(b)
	name := "ragd-test-" + hex.EncodeToString(b)
	if err := c.MakeBucket(context.Background(), name, minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket on %s: %v", srv.Endpoint, err)
	}
	return &Bucket{Name: name, Server: srv, client: c}
}

// Put writes an object.
func (b *Bucket) Put(t testing.TB, key, body string) {
	t.Helper()
	if _, err := b.client.PutObject(context.Background(), b.Name, key, strings.NewReader(body), int64(len(body)), minio.PutObjectOptions{}); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

// Remove deletes an object.
func (b *Bucket) Remove(t testing.TB, key string) {
	t.Helper()
	if err := b.client.RemoveObject(context.Background(), b.Name, key, minio.RemoveObjectOptions{}); err != nil {
		t.Fatalf("remove %s: %v", key, err)
	}
}

// Proxy passes requests to an S3 server, counting object reads (GETs of
// a key) and list requests; a request signed with WrongKey it refuses.
type Proxy struct {
	// URL is the proxy's endpoint.
	URL          string
	mu           sync.Mutex
	reads        map[string]int // object GETs by key
	ListRequests atomic.Int32
}

// NewProxy starts a proxy to endpoint, closed when the test ends.
func NewProxy(t testing.TB, endpoint string) *Proxy {
	target, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	p := &Proxy{reads: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), "Credential="+WrongKey+"/") {
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
			p.ListRequests.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Reads is how many object reads the proxy passed, and of which keys
// (sorted).
func (p *Proxy) Reads() (n int, keys []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, c := range p.reads {
		n += c
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return n, keys
}

// ReadsOf is how many times key was read.
func (p *Proxy) ReadsOf(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads[key]
}

// Drop removes every object and then the bucket itself.
func (b *Bucket) Drop(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	for obj := range b.client.ListObjects(ctx, b.Name, minio.ListObjectsOptions{Recursive: true}) {
		if obj.Err != nil {
			t.Fatalf("list %s: %v", b.Name, obj.Err)
		}
		b.Remove(t, obj.Key)
	}
	if err := b.client.RemoveBucket(ctx, b.Name); err != nil {
		t.Fatalf("remove bucket %s: %v", b.Name, err)
	}
}
