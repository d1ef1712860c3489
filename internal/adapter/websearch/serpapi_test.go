package websearch

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// serpAnswerJSON follows SerpAPI's documented search.json shape (trimmed);
// the test servers below stand in for serpapi.com.
const serpAnswerJSON = `{
  "search_metadata": {"id": "64f0", "status": "Success", "json_endpoint": "https://serpapi.com/searches/64f0.json"},
  "search_parameters": {"engine": "google", "q": "golang generics", "google_domain": "google.com"},
  "search_information": {"total_results": 1230000, "time_taken_displayed": 0.31},
  "organic_results": [
    {"position": 1, "title": "Tutorial: Getting started with generics", "link": "https://go.dev/doc/tutorial/generics",
     "displayed_link": "https://go.dev › doc › tutorial", "snippet": "This tutorial introduces the basics of generics in Go."},
    {"position": 2, "title": " An Introduction To Generics ", "link": "https://go.dev/blog/intro-generics",
     "snippet": " The Go 1.18 release adds support for generics. "},
    {"position": 3, "title": "No link here", "snippet": "skipped"},
    {"position": 4, "title": "Generics - Go by Example", "link": "https://gobyexample.com/generics", "snippet": "Starting with version 1.18"},
    {"position": 5, "title": "Fifth", "link": "https://example.com/5", "snippet": "five"}
  ]
}`

func TestSerpAPIMapsResultsAndSendsParams(t *testing.T) {
	var got url.Values
	var path string
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) {
		got, path = r.URL.Query(), r.URL.Path
		reply(200, serpAnswerJSON)(w, r)
	})
	p := NewSerpAPI(testKey, Options{BaseURL: srv.URL})
	res, err := p.Search(context.Background(), " golang generics ", 3)
	if err != nil {
		t.Fatal(err)
	}
	if path != "/search.json" || got.Get("engine") != "google" || got.Get("q") != "golang generics" ||
		got.Get("num") != "3" || got.Get("api_key") != testKey {
		t.Fatalf("request %s ? %v", path, got)
	}
	want := []Result{
		{"Tutorial: Getting started with generics", "https://go.dev/doc/tutorial/generics", "This tutorial introduces the basics of generics in Go."},
		{"An Introduction To Generics", "https://go.dev/blog/intro-generics", "The Go 1.18 release adds support for generics."},
		{"Generics - Go by Example", "https://gobyexample.com/generics", "Starting with version 1.18"},
	}
	if len(res) != len(want) {
		t.Fatalf("got %d results, want %d (max respected, linkless skipped): %+v", len(res), len(want), res)
	}
	for i := range want {
		if res[i] != want[i] {
			t.Errorf("result %d = %+v, want %+v", i, res[i], want[i])
		}
	}
	if p.Name() != "serpapi" {
		t.Errorf("name %q", p.Name())
	}
}

func TestSerpAPIEmptyResults(t *testing.T) {
	for name, body := range map[string]string{
		"no organic_results": `{"search_metadata": {"status": "Success"}, "error": "Google hasn't returned any results for this query."}`,
		"empty list":         `{"search_metadata": {"status": "Success"}, "organic_results": []}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv := newServer(t, reply(200, body))
			res, err := NewSerpAPI(testKey, Options{BaseURL: srv.URL}).Search(context.Background(), "zzqx", 5)
			if err != nil || res == nil || len(res) != 0 {
				t.Fatalf("got %v, %v; want an empty non-nil slice", res, err)
			}
		})
	}
}

func TestSerpAPIHTTPErrors(t *testing.T) {
	cases := []struct {
		status    int
		body      string
		message   string
		transient bool
	}{
		{401, `{"error": "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"}`, "Invalid API key", false},
		{400, `{"error": "Missing query ` + "`q`" + ` parameter."}`, "Missing query", false},
		{429, `{"error": "Your account has run out of searches."}`, "run out of searches", true},
		{500, `{"error": "Internal error, please retry."}`, "Internal error", true},
		{503, `<html><body>Service Unavailable</body></html>`, "Service Unavailable", true},
	}
	for _, c := range cases {
		srv := newServer(t, reply(c.status, c.body))
		_, err := NewSerpAPI(testKey, Options{BaseURL: srv.URL}).Search(context.Background(), "q", 5)
		var se *StatusError
		if !errors.As(err, &se) || se.Status != c.status || !strings.Contains(err.Error(), c.message) {
			t.Errorf("HTTP %d: got %v; want a StatusError saying %q", c.status, err, c.message)
		}
		if IsTransient(err) != c.transient {
			t.Errorf("HTTP %d: transient = %v, want %v", c.status, IsTransient(err), c.transient)
		}
		assertNoSecret(t, err, testKey)
	}
}

func TestSerpAPIErrorWithStatus200(t *testing.T) {
	srv := newServer(t, reply(200, `{"error": "Your searches for the month are exhausted."}`))
	_, err := NewSerpAPI(testKey, Options{BaseURL: srv.URL}).Search(context.Background(), "q", 5)
	if err == nil || !strings.Contains(err.Error(), "exhausted") {
		t.Fatalf("got %v", err)
	}
}

func TestSerpAPISlowAnswerTimesOut(t *testing.T) {
	srv := newServer(t, stall)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := NewSerpAPI(testKey, Options{BaseURL: srv.URL}).Search(ctx, "q", 5)
	if !errors.Is(err, context.DeadlineExceeded) || !IsTransient(err) {
		t.Fatalf("got %v; want a transient deadline error", err)
	}
	assertNoSecret(t, err, testKey)
}

func TestSerpAPINetworkErrorHidesKey(t *testing.T) {
	srv := newServer(t, reply(200, "{}"))
	base := srv.URL
	srv.Close() // connection refused from now on
	_, err := NewSerpAPI(testKey, Options{BaseURL: base}).Search(context.Background(), "q", 5)
	var ue *url.Error
	if !errors.As(err, &ue) || !IsTransient(err) {
		t.Fatalf("got %v; want a transient *url.Error", err)
	}
	if !strings.Contains(ue.URL, "api_key="+redacted) {
		t.Errorf("URL in error not redacted: %s", ue.URL)
	}
	assertNoSecret(t, err, testKey)
}

func TestSerpAPIMalformedJSON(t *testing.T) {
	srv := newServer(t, reply(200, `{"organic_results": [{"title": "cut off`))
	_, err := NewSerpAPI(testKey, Options{BaseURL: srv.URL}).Search(context.Background(), "q", 5)
	if err == nil || !strings.Contains(err.Error(), "malformed") || IsTransient(err) {
		t.Fatalf("got %v; want a non-transient malformed-answer error", err)
	}
}

func TestSerpAPIValidatesBeforeCalling(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, func(w http.ResponseWriter, r *http.Request) { hits.Add(1); reply(200, serpAnswerJSON)(w, r) })
	p := NewSerpAPI(testKey, Options{BaseURL: srv.URL})
	for _, c := range []struct {
		q     string
		max   int
		field string
	}{{"", 5, "query"}, {"  \t", 5, "query"}, {"q", 0, "max_results"}, {"q", 21, "max_results"}} {
		_, err := p.Search(context.Background(), c.q, c.max)
		if f := invalidField(err); f != c.field {
			t.Errorf("Search(%q, %d): field %q (%v), want %q", c.q, c.max, f, err, c.field)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("%d requests sent for invalid arguments", hits.Load())
	}
}

func TestSerpAPIBadBaseURL(t *testing.T) {
	_, err := NewSerpAPI(testKey, Options{BaseURL: "ftp://example.com"}).Search(context.Background(), "q", 5)
	if err == nil || IsTransient(err) {
		t.Fatalf("got %v", err)
	}
}
