package guard_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ragd"
	"ragd/internal/ingest"
	"ragd/internal/ingest/guard"
	"ragd/internal/ingest/sourcetype"
	"ragd/internal/testkit/testenv"
)

// server serves a few canned responses and counts the requests it got.
func server(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<h1>Hello</h1><p>World.</p>")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=iso-8859-1")
		w.Write([]byte("caf\xe9"))
	})
	mux.HandleFunc("/readme.md", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "# Readme")
	})
	mux.HandleFunc("/notes", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/markdown")
		fmt.Fprint(w, "# Notes")
	})
	mux.HandleFunc("/doc.pdf", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(testenv.MinimalPDF("BT /F1 12 Tf 72 720 Td (Served.) Tj ET"))
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte{0x89, 'P', 'N', 'G'})
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte(strings.Repeat("x", 5000)))
	})
	mux.HandleFunc("/big-chunked", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		for i := 0; i < 10; i++ {
			w.Write([]byte(strings.Repeat("y", 500)))
			w.(http.Flusher).Flush() // no Content-Length: the cap must hold while reading
		}
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/page", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		var code int
		fmt.Sscanf(strings.TrimPrefix(r.URL.Path, "/status/"), "%d", &code)
		http.Error(w, "nope", code)
	})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("User-Agent") == "" {
			t.Error("no User-Agent")
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	srv, _ := server(t)
	strict := &guard.Fetcher{}
	_, err := strict.CheckURL(ctx, srv.URL+"/page")
	wantKind(t, err, ragd.KindForbidden, "127.0.0.1", "ingest.allow_private_urls")

	loose := &guard.Fetcher{AllowPrivate: true}
	if u, err := loose.CheckURL(ctx, srv.URL+"/page"); err != nil || u.Path != "/page" {
		t.Errorf("AllowPrivate: %v %v", u, err)
	}

	for _, raw := range []string{"ftp://example.com/x", "file:///etc/passwd", "example.com/page", "http://", "https:///path", "::not a url"} {
		_, err := strict.CheckURL(ctx, raw)
		wantKind(t, err, ragd.KindInvalid)
		var e *ragd.Error
		errors.As(err, &e)
		if len(e.Fields) != 1 || e.Fields[0].Loc[1] != "url" {
			t.Errorf("%q: fields %+v", raw, e.Fields)
		}
	}

	for _, host := range []string{
		"127.0.0.1", "localhost", "10.1.2.3", "172.16.5.4", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "224.0.0.1", "[::1]", "[fe80::1]", "[fc00::1]", "[::ffff:127.0.0.1]", "[64:ff9b::a00:1]", "[::]",
	} {
		_, err := strict.CheckURL(ctx, "http://"+host+":8080/x")
		wantKind(t, err, ragd.KindForbidden, "private/loopback")
	}
	for _, host := range []string{"8.8.8.8", "[2606:4700:4700::1111]", "100.128.0.1"} {
		if _, err := strict.CheckURL(ctx, "https://"+host+"/"); err != nil {
			t.Errorf("%s refused: %v", host, err)
		}
	}
	_, err = strict.CheckURL(ctx, "http://no-such-host.invalid/")
	wantKind(t, err, ragd.KindInvalid, "cannot resolve")
}

func TestFetchRefusesPrivateAtDialTime(t *testing.T) {
	srv, hits := server(t)
	_, _, _, err := (&guard.Fetcher{}).Fetch(context.Background(), srv.URL+"/page")
	wantKind(t, err, ragd.KindForbidden, "127.0.0.1", "ingest.allow_private_urls")
	if !ingest.IsPermanent(err) {
		t.Error("refusal should be permanent")
	}
	if hits.Load() != 0 {
		t.Errorf("server was reached %d times", hits.Load())
	}
}

func TestFetchRedirectToPrivateAddressRefused(t *testing.T) {
	// 127.0.0.2 plays the private target; 127.0.0.1 the public site
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	var privateHits atomic.Int32
	private := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		privateHits.Add(1)
		fmt.Fprint(w, "secret")
	})}}
	private.Start()
	defer private.Close()
	public := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/metadata", http.StatusFound)
	}))
	defer public.Close()

	f := guard.BlockingOnly(func(a netip.Addr) bool { return a == netip.MustParseAddr("127.0.0.2") })
	_, _, _, err = f.Fetch(context.Background(), public.URL+"/")
	wantKind(t, err, ragd.KindForbidden, "127.0.0.2")
	if privateHits.Load() != 0 {
		t.Error("redirect reached the private address")
	}
}

func TestFetch(t *testing.T) {
	srv, _ := server(t)
	f := &guard.Fetcher{AllowPrivate: true, MaxBytes: 4096, Timeout: 5 * time.Second}
	ctx := context.Background()
	cases := []struct {
		path, body string
		typ        ragd.SourceType
	}{
		{"/page", "<h1>Hello</h1><p>World.</p>", ragd.SourceHTML},
		{"/latin1", "café", ragd.SourceText},
		{"/readme.md", "# Readme", ragd.SourceMarkdown},
		{"/notes", "# Notes", ragd.SourceMarkdown},
	}
	for _, c := range cases {
		body, typ, final, err := f.Fetch(ctx, srv.URL+c.path)
		if err != nil || string(body) != c.body || typ != c.typ || final != srv.URL+c.path {
			t.Errorf("%s: %q %q %q %v", c.path, body, typ, final, err)
		}
	}
	body, typ, _, err := f.Fetch(ctx, srv.URL+"/doc.pdf")
	if err != nil || typ != ragd.SourcePDF {
		t.Fatalf("pdf by extension: %q %v", typ, err)
	}
	if l, err := ingest.Parse(body, typ, "doc.pdf"); err != nil || l.NormalizedText() != "Served." {
		t.Errorf("fetched pdf: %v", err)
	}

	_, _, final, err := f.Fetch(ctx, srv.URL+"/redirect")
	if err != nil || final != srv.URL+"/page" {
		t.Errorf("redirect: final %q, %v", final, err)
	}
	_, _, _, err = f.Fetch(ctx, srv.URL+"/loop")
	wantKind(t, err, ragd.KindInvalid, "redirects")

	for _, p := range []string{"/big", "/big-chunked"} {
		_, _, _, err = f.Fetch(ctx, srv.URL+p)
		wantKind(t, err, ragd.KindTooLarge, "4096-byte limit")
	}

	_, _, _, err = f.Fetch(ctx, srv.URL+"/image")
	if !errors.Is(err, sourcetype.ErrUnsupported) || !strings.Contains(err.Error(), "image/png") || !ingest.IsPermanent(err) {
		t.Errorf("unsupported type: %v", err)
	}

	for code, permanent := range map[int]bool{404: true, 403: true, 410: true, 429: false, 500: false, 503: false} {
		_, _, _, err = f.Fetch(ctx, fmt.Sprintf("%s/status/%d", srv.URL, code))
		var se *guard.StatusError
		if !errors.As(err, &se) || se.StatusCode != code || !strings.Contains(err.Error(), fmt.Sprint(code)) {
			t.Errorf("status %d: %v", code, err)
		}
		if ingest.IsPermanent(err) != permanent {
			t.Errorf("status %d: permanent = %v", code, ingest.IsPermanent(err))
		}
	}

	_, _, _, err = f.Fetch(ctx, "gopher://example.com/")
	wantKind(t, err, ragd.KindInvalid, "scheme")
}

func TestFetchNetworkErrorIsTransient(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	_, _, _, err = (&guard.Fetcher{AllowPrivate: true, Timeout: 2 * time.Second}).Fetch(context.Background(), "http://"+addr+"/")
	if err == nil || ingest.IsPermanent(err) {
		t.Errorf("connection refused: %v (permanent %v)", err, ingest.IsPermanent(err))
	}
}

// A URL longer than MaxURLBytes is refused at url, naming
// ingest.max_url_bytes, before its host is looked up; one at the bound
// is checked as any other.
func TestCheckURLLength(t *testing.T) {
	f := &guard.Fetcher{MaxURLBytes: 64}
	raw := "https://8.8.8.8/" + strings.Repeat("a", 64-len("https://8.8.8.8/"))
	if _, err := f.CheckURL(context.Background(), raw); err != nil {
		t.Fatalf("a URL of 64 bytes: %v", err)
	}
	_, err := f.CheckURL(context.Background(), raw+"a")
	wantKind(t, err, ragd.KindInvalid, "65 bytes, more than ingest.max_url_bytes (64)")
	var e *ragd.Error
	if errors.As(err, &e); len(e.Fields) != 1 || e.Fields[0].Loc[1] != "url" {
		t.Fatalf("fields %+v, want one at url", e.Fields)
	}
}
