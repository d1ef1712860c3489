package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"ragd"
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
}

func TestIsTransientClassifies(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{&APIError{StatusCode: 400, Message: "bad"}, false},
		{&APIError{StatusCode: 401}, false},
		{&APIError{StatusCode: 403}, false},
		{&APIError{StatusCode: 404}, false},
		{&APIError{StatusCode: 408}, true},
		{&APIError{StatusCode: 429}, true},
		{&APIError{StatusCode: 500}, true},
		{&APIError{StatusCode: 503}, true},
		{fmt.Errorf("wrapped: %w", &APIError{StatusCode: 502}), true},
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
