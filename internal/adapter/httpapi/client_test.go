package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"ragd"
)

// seen is what a stand-in server received.
type seen struct{ auth, accept, contentType, body string }

// server answers every POST with status, header and body, and records the
// request on got.
func server(t *testing.T, status int, header http.Header, body string, got *seen) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		*got = seen{r.Header.Get("Authorization"), r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(b)}
		for k, v := range header {
			w.Header()[k] = v
		}
		w.WriteHeader(status)
		fmt.Fprint(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func client(url, key string) *Client {
	return &Client{API: "test API", URL: url, Key: key, HTTP: &http.Client{}, MaxBody: 64}
}

// The key goes as a Bearer token when set, and no Authorization header
// when not; the body is the JSON of the value given.
func TestPostSendsJSONAndTheKeyOnlyWhenSet(t *testing.T) {
	for _, key := range []string{"sk-test", ""} {
		var got seen
		srv := server(t, 200, nil, `{"ok":true}`, &got)
		raw, err := client(srv.URL, key).Post(context.Background(), map[string]int{"n": 1})
		if err != nil || string(raw) != `{"ok":true}` {
			t.Fatalf("key %q: %q, %v", key, raw, err)
		}
		want := ""
		if key != "" {
			want = "Bearer " + key
		}
		if got.auth != want || got.body != `{"n":1}` || got.contentType != "application/json" || got.accept != "application/json" {
			t.Errorf("key %q: the server saw %+v, want Authorization %q", key, got, want)
		}
	}
	var got seen
	resp, err := client(server(t, 200, nil, "data: x\n\n", &got).URL, "").Open(context.Background(), 1, "text/event-stream")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got.accept != "text/event-stream" {
		t.Errorf("Accept %q, want the one asked for", got.accept)
	}
}

// An error status is an *Error with the status, the provider's message
// and the Retry-After it sent, whatever shape the provider gives its
// message.
func TestErrorStatusCarriesStatusMessageAndRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		status     int
		body, want string
	}{
		{401, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}`, "Incorrect API key provided"},
		{404, `{"error":"model \"nomic\" not found, try pulling it first"}`, `model "nomic" not found, try pulling it first`},
		{400, `{"message":"invalid request: query is empty","id":"x"}`, "invalid request: query is empty"},
		{422, `{"detail":"top_n must be positive"}`, "top_n must be positive"},
		{502, "  upstream connect error\n", "upstream connect error"},
		{500, `{"error":{"code":5}}`, `{"error":{"code":5}}`},
		{503, "", "Service Unavailable"},
	} {
		var got seen
		srv := server(t, tc.status, http.Header{"Retry-After": {"7"}}, tc.body, &got)
		_, err := client(srv.URL, "").Post(context.Background(), 1)
		e, ok := errors.AsType[*Error](err)
		if !ok || e.StatusCode != tc.status || e.Message != tc.want || e.RetryAfter != 7*time.Second || RetryAfterOf(err) != 7*time.Second {
			t.Errorf("%d %s: got %#v", tc.status, tc.body, err)
			continue
		}
		if want := fmt.Sprintf("test API: HTTP %d: %s", tc.status, tc.want); err.Error() != want {
			t.Errorf("error %q, want %q", err, want)
		}
	}
	if RetryAfterOf(errors.New("plain")) != 0 {
		t.Error("a plain error asked to wait")
	}
}

// A body that names no message is quoted up to MaxExcerpt bytes, cut on a
// character boundary.
func TestMessageExcerptIsBounded(t *testing.T) {
	body := "x" + strings.Repeat("é", MaxExcerpt) // the cut falls inside an é
	msg := Message(500, []byte(body))
	if !utf8.ValidString(msg) || !strings.HasSuffix(msg, "…") || len(strings.TrimSuffix(msg, "…")) != MaxExcerpt-1 {
		t.Errorf("excerpt of %d bytes: %d bytes %q", len(body), len(msg), msg)
	}
	short := strings.Repeat("y", MaxExcerpt)
	if got := Message(500, []byte(short)); got != short {
		t.Errorf("a body of MaxExcerpt bytes became %q", got)
	}
}

func TestRetryAfterSecondsAndHTTPDate(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"":       0,
		"0":      0,
		"30":     30 * time.Second,
		"-5":     0,
		"soon":   0,
		"999999": time.Hour, // capped
		time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat):    0, // past
		time.Now().Add(3 * time.Hour).UTC().Format(http.TimeFormat): time.Hour,
	} {
		if got := retryAfter(http.Header{"Retry-After": {v}}); got != want {
			t.Errorf("Retry-After %q: %v, want %v", v, got, want)
		}
	}
	in10 := time.Now().Add(10 * time.Minute).UTC().Format(http.TimeFormat)
	if got := retryAfter(http.Header{"Retry-After": {in10}}); got <= 8*time.Minute || got > 10*time.Minute {
		t.Errorf("Retry-After %q (in 10 minutes): %v", in10, got)
	}
}

func TestErrorTextAndTransient(t *testing.T) {
	for _, tc := range []struct {
		e         Error
		text      string
		transient bool
	}{
		{Error{API: "llm", Message: "overloaded"}, "llm: server error: overloaded", true},
		{Error{API: "rerank", StatusCode: 401}, "rerank: HTTP 401: Unauthorized", false},
		{Error{API: "rerank", StatusCode: 400, Message: "bad"}, "rerank: HTTP 400: bad", false},
		{Error{API: "x", StatusCode: 404}, "x: HTTP 404: Not Found", false},
		{Error{API: "x", StatusCode: 408}, "x: HTTP 408: Request Timeout", true},
		{Error{API: "x", StatusCode: 429}, "x: HTTP 429: Too Many Requests", true},
		{Error{API: "x", StatusCode: 500}, "x: HTTP 500: Internal Server Error", true},
		{Error{API: "x", StatusCode: 503}, "x: HTTP 503: Service Unavailable", true},
	} {
		if tc.e.Error() != tc.text || tc.e.Transient() != tc.transient {
			t.Errorf("%+v: %q (transient %v), want %q (%v)", tc.e, tc.e.Error(), tc.e.Transient(), tc.text, tc.transient)
		}
	}
}

// A 2xx answer longer than MaxBody is refused; one of MaxBody bytes is read
// whole.
func TestAnswerIsBounded(t *testing.T) {
	var got seen
	full := strings.Repeat("a", 64)
	if raw, err := client(server(t, 200, nil, full, &got).URL, "").Post(context.Background(), 1); err != nil || string(raw) != full {
		t.Fatalf("MaxBody bytes: %d bytes, %v", len(raw), err)
	}
	_, err := client(server(t, 200, nil, full+"a", &got).URL, "").Post(context.Background(), 1)
	if err == nil || err.Error() != "test API: answer larger than 64 bytes" || IsTransport(err) {
		t.Errorf("MaxBody+1 bytes: %v", err)
	}
}

// A server that cannot be reached is a transport error, a ragd.NetError
// naming no URL; the cause (here the caller's deadline) still unwraps.
func TestTransportErrorsNameNoURL(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := client(url, "").Post(context.Background(), 1)
	if _, ok := errors.AsType[*ragd.NetError](err); !ok || !IsTransport(err) || strings.Contains(err.Error(), strings.TrimPrefix(url, "http://")) {
		t.Errorf("closed server: %v (transport %v)", err, IsTransport(err))
	}

	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = client(slow.URL, "").Post(ctx, 1)
	if !IsTransport(err) || !errors.Is(err, context.DeadlineExceeded) || err.Error() != "test API: timed out" {
		t.Errorf("timed out: %v", err)
	}
	if IsTransport(errors.New("plain")) || IsTransport(&Error{StatusCode: 500}) {
		t.Error("an answer counted as a transport failure")
	}
}
