package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"ragd"
	"ragd/internal/adapter/httpapi"
	"strings"
	"testing"
	"time"
)

func TestCompleteTimeoutIsTransient(t *testing.T) {
	srv, _ := newServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any) {
		select { // sleeps well past the client's timeout
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		writeJSON(w, 200, completion(map[string]any{"role": "assistant", "content": "late"}, "stop"))
	})
	c := newClient(t, srv)
	// The caller's deadline (in ragd the guard's llm.timeout) bounds it.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Complete(ctx, ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}})
	if err == nil || !IsTransient(err) {
		t.Fatalf("err %v, want transient", err)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v does not say it timed out", err)
	}
}

func TestConnectionRefusedIsTransient(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	c, err := New(Config{BaseURL: url + "/v1", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Complete(context.Background(), ragd.ChatRequest{Messages: []ragd.ChatMessage{{Role: ragd.RoleUser, Content: "hi"}}})
	if err == nil || !IsTransient(err) {
		t.Fatalf("err %v, want transient", err)
	}
	// Its text reaches a job's error and a search's log: it names the
	// model's server neither by URL nor by address.
	if host := strings.TrimPrefix(url, "http://"); strings.Contains(err.Error(), host) || strings.Contains(err.Error(), "127.0.0.1") {
		t.Fatalf("err %q names the server", err)
	}
}

func TestIsTransientClassifies(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&httpapi.Error{StatusCode: 400, Message: "bad"}, false},
		{&httpapi.Error{StatusCode: 401}, false},
		{&httpapi.Error{StatusCode: 403}, false},
		{&httpapi.Error{StatusCode: 404}, false},
		{&httpapi.Error{StatusCode: 408}, true},
		{&httpapi.Error{StatusCode: 429}, true},
		{&httpapi.Error{StatusCode: 500}, true},
		{&httpapi.Error{StatusCode: 503}, true},
		{fmt.Errorf("wrapped: %w", &httpapi.Error{StatusCode: 502}), true},
		{fmt.Errorf("%w: eof", ErrMalformed), false},
		{context.Canceled, false},
		{context.DeadlineExceeded, true},
		{errors.New("something else"), false},
	} {
		if got := IsTransient(tc.err); got != tc.want {
			t.Errorf("IsTransient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
